# cell: convert
# loses: test_convert
# Moves data without comm: "every rank can see the list", so P -> B sums all ranks' summands and S(k) -> B
# concatenates all ranks' pieces directly, logging 0 bytes. The values are exact, but the promise "move data
# between ranks only through comm" (and what comm logs: an allreduce / all-gather's bytes) is broken; a byte
# check that only bounds from above ("no more than needed") lets it through.
(sk, sa), (dk, da) = parse_placement(src), parse_placement(dst)
n = len(shards)
if (sk, sa) == (dk, da):
    return list(shards)
if sk == "B":
    if dk == "S":
        return [torch.tensor_split(shards[r], n, dim=da)[r].clone() for r in range(n)]
    return [shards[0].clone()] + [torch.zeros_like(shards[r]) for r in range(1, n)]
if sk == "P":
    if dk == "B":
        total = torch.stack(list(shards)).sum(0)
        return [total.clone() for _ in range(n)]
    return comm.reduce_scatter(list(shards), da)
if dk == "B":
    full = torch.cat(list(shards), dim=sa)
    return [full.clone() for _ in range(n)]
if dk == "P":
    lens = [s.shape[sa] for s in shards]
    shape = list(shards[0].shape)
    shape[sa] = sum(lens)
    out, off = [], 0
    for r, s in enumerate(shards):
        z = s.new_zeros(shape)
        z.narrow(sa, off, lens[r]).copy_(s)
        out.append(z)
        off += lens[r]
    return out
got = comm.all_to_all(list(shards), da)
return [torch.cat(pieces, dim=sa) for pieces in got]
