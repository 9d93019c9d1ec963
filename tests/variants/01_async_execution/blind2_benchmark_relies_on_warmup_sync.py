# cell: benchmark
# loses: test_benchmark_sync
# Syncs after each warm-up call and after each timed call, but never before the first call: with
# warmup >= 1 the warm-up's sync drains earlier work, so every visible case passes; with warmup=0
# the first timed call begins while work queued before benchmark() is still running and its time
# includes that work. Breaks "work queued before benchmark is called is not timed".
for _ in range(warmup):
    fn()
    sync()
times = []
for _ in range(repeat):
    start = time.perf_counter()
    fn()
    sync()
    times.append(time.perf_counter() - start)
return float(statistics.median(times))
