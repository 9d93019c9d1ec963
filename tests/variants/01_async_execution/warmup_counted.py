# cell: benchmark
# loses: test_benchmark_stats
sync()
times = []
for _ in range(warmup + repeat):
    start = time.perf_counter()
    fn()
    sync()
    times.append(time.perf_counter() - start)
return float(statistics.median(times))
