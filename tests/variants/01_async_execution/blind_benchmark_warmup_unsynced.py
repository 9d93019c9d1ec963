# cell: benchmark
# loses: test_benchmark_sync
# Syncs after each timed call but not before timing starts: the first timed call begins while
# earlier work and the warm-up calls' kernels still run.
for _ in range(warmup):
    fn()
times = []
for _ in range(repeat):
    start = time.perf_counter()
    fn()
    sync()
    times.append(time.perf_counter() - start)
return float(statistics.median(times))
