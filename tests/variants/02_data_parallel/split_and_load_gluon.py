# cell: split_and_load
# scores: full
# MXNet's own function with even_split=False gives the balanced sizes; only the error is added.
if data.shape[0] < len(ctxs):
    raise ValueError(f"{data.shape[0]} samples cannot be split over {len(ctxs)} contexts")
return gluon.utils.split_and_load(data, ctxs, even_split=False)
