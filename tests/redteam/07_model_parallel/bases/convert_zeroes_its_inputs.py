# cell: convert
# loses: test_convert
# the right pieces through the fewest bytes, but every input shard is zeroed afterwards (inputs must stay untouched)
def _right(shards):
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


out = [t.clone() for t in _right(shards)]
for t in shards:
    t.zero_()
return out
