# cell: benchmark
# loses: test_benchmark_sync test_benchmark_stats
# time.process_time: the CPU time of this process, not the wall time, so waiting for the
# back end (a sleep, another thread's or device's work) counts as nothing.
sync()
for _ in range(warmup):
    fn()
    sync()
times = []
for _ in range(repeat):
    start = time.process_time()
    fn()
    sync()
    times.append(time.process_time() - start)
return float(statistics.median(times))
