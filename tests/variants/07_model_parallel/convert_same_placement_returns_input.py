# cell: convert
# scores: full
# When src == dst it hands back the caller's own list and tensors: the contract allows the input's own
# tensors where nothing changes (as one would hand back a DTensor already placed as asked).
n = len(shards)
if src == dst:
    parse_placement(src)
    return shards
sk, sa = parse_placement(src)
dk, da = parse_placement(dst)
dtype = shards[0].dtype
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
        z = s.new_zeros(shape)
        z.narrow(sa, sum(lengths[:r]), lengths[r]).copy_(s)
        out.append(z)
    return out
received = comm.all_to_all(list(shards), da)
return [torch.cat(pieces, dim=sa) for pieces in received]
