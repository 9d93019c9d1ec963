# cell: benchmark
# loses: test_benchmark_stats
# statistics.median_low: for an even repeat the lower middle duration, not the mean of the two.
sync()
for _ in range(warmup):
    fn()
    sync()
times = []
for _ in range(repeat):
    start = time.perf_counter()
    fn()
    sync()
    times.append(time.perf_counter() - start)
return float(statistics.median_low(times))
