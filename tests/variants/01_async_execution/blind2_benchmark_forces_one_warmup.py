# cell: benchmark
# loses: test_benchmark_stats test_benchmark_sync
# "Always warm up at least once": with warmup=0, fn() is called repeat + 1 times, breaking
# "fn() is called exactly warmup + repeat times" (the visible tests use warmup >= 1 only).
for _ in range(max(1, warmup)):
    fn()
sync()
times = []
for _ in range(repeat):
    start = time.perf_counter()
    fn()
    sync()
    times.append(time.perf_counter() - start)
return float(statistics.median(times))
