# cell: benchmark
# scores: full
# d2l-style: perf_counter_ns and numpy's median
sync()
for _ in range(warmup):
    fn()
    sync()
ns = np.empty(repeat)
for i in range(repeat):
    t0 = time.perf_counter_ns()
    fn()
    sync()
    ns[i] = time.perf_counter_ns() - t0
return float(np.median(ns) / 1e9)
