# cell: ring_allreduce_sim
# loses: test_ring_sim_trace
# The right schedule written down, but the sums computed all at once: the trace is not what the code did.
n = len(buffers)
total = torch.stack(buffers).sum(0)
trace = [(s, r, (r + 1) % n, (r - s) % n) for s in range(n - 1) for r in range(n)]
trace += [(n - 1 + s, r, (r + 1) % n, (r + 1 - s) % n) for s in range(n - 1) for r in range(n)]
return [total.clone() for _ in buffers], trace
