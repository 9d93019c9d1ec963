# cell: split_and_load
# scores: full
# MXNet's own function with even_split=False gives the balanced sizes; only the error is added.
# PyTorch tensors: torch.tensor_split gives the same sizes rule.
if data.shape[0] < len(ctxs):
    raise ValueError(f"{data.shape[0]} samples cannot be split over {len(ctxs)} devices")
if isinstance(data, torch.Tensor):
    return [part.to(ctx) for part, ctx in zip(torch.tensor_split(data, len(ctxs)), ctxs)]
return gluon.utils.split_and_load(data, ctxs, even_split=False)
