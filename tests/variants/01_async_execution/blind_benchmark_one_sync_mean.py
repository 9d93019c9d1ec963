# cell: benchmark
# loses: test_benchmark_stats
# d2l's "time the whole loop, sync once at the end, divide": the mean per call, not the median.
sync()
for _ in range(warmup):
    fn()
sync()
start = time.perf_counter()
for _ in range(repeat):
    fn()
sync()
return (time.perf_counter() - start) / repeat
