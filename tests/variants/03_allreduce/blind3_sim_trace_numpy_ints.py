# cell: ring_allreduce_sim
# loses: test_ring_sim_trace
# The schedule is computed with numpy arrays, so src, dst and chunk in the trace are numpy.int64, not int
# (numpy.int64 is not a subclass of int; it hashes and compares like one, so set/dict based checks pass).
# Breaks "list[tuple[int, int, int, int]]".
n = len(buffers)
copies = [b.clone() for b in buffers]
chunks = [torch.tensor_split(c, n) for c in copies]
ranks = np.arange(n)
trace = []
for step in range(2 * (n - 1)):
    send_chunk = (ranks - step) % n
    dst = (ranks + 1) % n
    payloads = [chunks[r][send_chunk[r]].clone() for r in ranks]
    for r in ranks:
        target = chunks[dst[r]][send_chunk[r]]
        if step < n - 1:
            target.add_(payloads[r])
        else:
            target.copy_(payloads[r])
        trace.append((step, r, dst[r], send_chunk[r]))
return copies, trace
