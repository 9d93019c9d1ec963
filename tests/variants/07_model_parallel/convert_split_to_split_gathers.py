# cell: convert
# loses: test_convert
# Split -> other split by an all-gather then a local slice (and split -> partial by gathering too): every rank
# receives the whole tensor where it needs only its piece.
n = len(shards)
(s, s_axis), (d, d_axis) = parse_placement(src), parse_placement(dst)
if (s, s_axis) == (d, d_axis):
    return [t.clone() for t in shards]
if s == "P":
    return comm.all_reduce(shards) if d == "B" else comm.reduce_scatter(shards, d_axis)
if s == "B":
    if d == "S":
        return [torch.tensor_split(t, n, dim=d_axis)[r].clone() for r, t in enumerate(shards)]
    return [t.clone() if r == 0 else torch.zeros_like(t) for r, t in enumerate(shards)]
full = comm.all_gather(shards, s_axis)
if d == "B":
    return full
if d == "S":
    return [torch.tensor_split(t, n, dim=d_axis)[r].clone() for r, t in enumerate(full)]
return [t.clone() if r == 0 else torch.zeros_like(t) for r, t in enumerate(full)]
