# cell: convert
# loses: test_convert
# Broadcast -> split with torch.chunk: its pieces differ from tensor_split's when the length does not divide
# (5 on 3 ranks: chunk gives 2, 2, 1 too, but 4 on 3 gives 2, 2 and nothing for rank 2).
n = len(shards)
(s, s_axis), (d, d_axis) = parse_placement(src), parse_placement(dst)
if (s, s_axis) == (d, d_axis):
    return [t.clone() for t in shards]
if s == "P":
    return comm.all_reduce(shards) if d == "B" else comm.reduce_scatter(shards, d_axis)
if s == "B":
    if d == "S":
        out = []
        for r, t in enumerate(shards):
            pieces = torch.chunk(t, n, dim=d_axis)
            out.append(pieces[r].clone() if r < len(pieces) else t.narrow(d_axis, 0, 0).clone())
        return out
    return [t.clone() if r == 0 else torch.zeros_like(t) for r, t in enumerate(shards)]
if d == "B":
    return comm.all_gather(shards, s_axis)
if d == "S":
    return [torch.cat(got, dim=s_axis) for got in comm.all_to_all(shards, d_axis)]
length, out, offset = sum(t.shape[s_axis] for t in shards), [], 0
for t in shards:
    shape = list(t.shape)
    shape[s_axis] = length
    z = t.new_zeros(shape)
    z.narrow(s_axis, offset, t.shape[s_axis]).copy_(t)
    offset += t.shape[s_axis]
    out.append(z)
return out
