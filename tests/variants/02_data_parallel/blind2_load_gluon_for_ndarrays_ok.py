# cell: split_and_load
# scores: full
# Correct, another valid API: tensors by torch.tensor_split, NDArrays by MXNet's own gluon.utils.split_and_load
# (even_split=False gives the same sizes rule, shard i on ctxs[i]); for fewer samples than contexts MXNet's
# split_data raises a ValueError of its own that names the data's shape and num_slice, so both numbers.
if isinstance(data, torch.Tensor):
    if len(data) < len(ctxs):
        raise ValueError(f"{len(data)} samples cannot be split over {len(ctxs)} devices")
    return [shard.to(ctx) for shard, ctx in zip(torch.tensor_split(data, len(ctxs)), ctxs)]
return gluon.utils.split_and_load(data, ctxs, even_split=False)
