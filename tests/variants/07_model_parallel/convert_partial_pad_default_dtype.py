# cell: convert
# loses: test_convert
# S(k) -> P pads each piece into torch.zeros(shape), PyTorch's default float32: float64 or integer tensors come
# back as float32: breaks "with the dtype of the input" (the visible test's tensor is float32 already).
n = len(shards)
sk, sa = parse_placement(src)
dk, da = parse_placement(dst)
dtype = shards[0].dtype
if (sk, sa) == (dk, da):
    return [s.clone() for s in shards]
if sk == "B":
    if dk == "S":
        return [torch.tensor_split(shards[r], n, dim=da)[r].clone() for r in range(n)]
    return [shards[r].clone() if r == 0 else torch.zeros_like(shards[r]) for r in range(n)]
if sk == "P":
    out = comm.all_reduce(list(shards)) if dk == "B" else comm.reduce_scatter(list(shards), da)
    return [t.to(dtype) for t in out]
if dk == "B":
    return comm.all_gather(list(shards), sa)
if dk == "P":
    lengths = [s.shape[sa] for s in shards]
    out = []
    for r, s in enumerate(shards):
        shape = list(s.shape)
        shape[sa] = sum(lengths)
        z = torch.zeros(shape)
        z.narrow(sa, sum(lengths[:r]), lengths[r]).copy_(s)
        out.append(z)
    return out
received = comm.all_to_all(list(shards), da)
return [torch.cat(pieces, dim=sa) for pieces in received]
