# cell: benchmark
# loses: test_benchmark_stats
# Everything right, then rounds the median to whole milliseconds "since timings are noisy anyway".
# Breaks "returns the median of those repeat durations": a 0.2 ms call reads as 0.0 s, a 5.4 ms call
# as 5.0 ms (up to 0.5 ms off, 10% of a 5 ms kernel). The judge's 1e-3 s slack for timing noise is
# wider than the rounding, so only a check that the value lies within the stream's own bounds with
# a slack below 0.5 ms (or a sub-millisecond kernel) catches it.
for _ in range(warmup):
    fn()
durations = []
for _ in range(repeat):
    sync()
    start = time.perf_counter()
    fn()
    sync()
    durations.append(time.perf_counter() - start)
return round(statistics.median(durations), 3)
