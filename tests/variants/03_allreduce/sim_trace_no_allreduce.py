# cell: ring_allreduce_sim
# loses: test_ring_sim_trace
# Right sums, and a trace of the right shape (one chunk per worker per step, to the right), that sums nothing.
n = len(buffers)
total = torch.stack(buffers).sum(0)
trace = [(s, r, (r + 1) % n, r) for s in range(2 * (n - 1)) for r in range(n)]
return [total.clone() for _ in buffers], trace
