# cell: convert
# scores: full
# Other routes with as few bytes: partial -> broadcast as a reduce-scatter of the flattened tensor then an
# all-gather; partial -> split as an all-to-all whose received pieces are summed; broadcast -> partial as the
# tensor divided among the ranks; split -> partial by padding with torch.nn.functional.pad.
n = len(shards)
(s, s_axis), (d, d_axis) = parse_placement(src), parse_placement(dst)
if (s, s_axis) == (d, d_axis):
    return [t.clone() for t in shards]
if s == "P" and d == "B":
    flat = comm.reduce_scatter([t.reshape(-1) for t in shards], 0)
    return [t.reshape(shards[0].shape) for t in comm.all_gather(flat, 0)]
if s == "P":
    return [torch.stack(got).sum(0) for got in comm.all_to_all(shards, d_axis)]
if s == "B" and d == "S":
    return [t.tensor_split(n, d_axis)[r].contiguous().clone() for r, t in enumerate(shards)]
if s == "B":
    return [t / n for t in shards]
if d == "B":
    return comm.all_gather(shards, s_axis)
if d == "S":
    return [torch.cat(got, dim=s_axis) for got in comm.all_to_all(shards, d_axis)]
sizes = [t.shape[s_axis] for t in shards]
out = []
for r, t in enumerate(shards):
    before, after = sum(sizes[:r]), sum(sizes[r + 1:])
    pad = [0, 0] * (t.dim() - 1 - s_axis) + [before, after]
    out.append(torch.nn.functional.pad(t, pad))
return out
