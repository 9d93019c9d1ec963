# cell: benchmark
# loses: test_benchmark_sync
# the clock starts before the sync that waits for earlier work: the first timed call's
# duration holds the work queued before benchmark and the unfinished warm-up calls (the old
# bound ran from the previous launch, so it held them too, and this scored full)
for _ in range(warmup):
    fn()
times = []
for _ in range(repeat):
    start = time.perf_counter()
    sync()
    fn()
    sync()
    times.append(time.perf_counter() - start)
times.sort()
mid = len(times) // 2
return float(times[mid] if len(times) % 2 else (times[mid - 1] + times[mid]) / 2)
