# cell: convert
# scores: full
# Correct, another route with the same bytes: P -> S(k) as an all-to-all of every rank's summand cut along k
# followed by a local sum of the pieces received (what a reduce-scatter does inside), S -> P by index assignment
# into a zero tensor, and a table-free dispatch. The busiest rank sends numel - (its own piece) = what the
# reduce-scatter logs, also when lengths do not divide.
n = len(shards)
src_kind, src_axis = parse_placement(src)
dst_kind, dst_axis = parse_placement(dst)
if (src_kind, src_axis) == (dst_kind, dst_axis):
    return [s for s in shards]
if src_kind == "B":
    if dst_kind == "P":
        return [s.clone() if r == 0 else torch.zeros_like(s) for r, s in enumerate(shards)]
    return [s.tensor_split(n, dim=dst_axis)[r].clone() for r, s in enumerate(shards)]
if src_kind == "P":
    if dst_kind == "B":
        return comm.all_reduce(list(shards))
    received = comm.all_to_all(list(shards), dst_axis)
    return [torch.stack(pieces).sum(0) for pieces in received]
if dst_kind == "B":
    return comm.all_gather(list(shards), src_axis)
if dst_kind == "P":
    bounds = [0]
    for s in shards:
        bounds.append(bounds[-1] + s.shape[src_axis])
    out = []
    for r, s in enumerate(shards):
        shape = list(s.shape)
        shape[src_axis] = bounds[-1]
        z = torch.zeros(shape, dtype=s.dtype)
        index = [slice(None)] * s.dim()
        index[src_axis] = slice(bounds[r], bounds[r + 1])
        z[tuple(index)] = s
        out.append(z)
    return out
return [torch.cat(pieces, dim=src_axis) for pieces in comm.all_to_all(list(shards), dst_axis)]
