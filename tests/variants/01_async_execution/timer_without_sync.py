# cell: benchmark
# loses: test_benchmark_sync
for _ in range(warmup):
    fn()
times = []
for _ in range(repeat):
    start = time.perf_counter()
    fn()
    times.append(time.perf_counter() - start)
return float(statistics.median(times))
