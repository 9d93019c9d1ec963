# cell: benchmark
# loses: test_benchmark_stats test_benchmark_sync
# The clock is started once before the timed loop and never restarted: each "duration" is the time
# since the first timed call began (cumulative), so the median is the elapsed time of the first
# (repeat+1)//2 calls, not of one call. Breaks "the median of those repeat durations".
for _ in range(warmup):
    fn()
sync()
times = []
start = time.perf_counter()
for _ in range(repeat):
    fn()
    sync()
    times.append(time.perf_counter() - start)
return float(statistics.median(times))
