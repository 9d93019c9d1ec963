# cell: benchmark
# loses: test_benchmark_stats
# Starts the clock after fn() returns ("the launch is free, what costs is the wait"): for
# asynchronous fn it is nearly right, but a synchronous fn's whole duration is left out. Breaks
# "the time ... one call of fn() takes until its work is done".
for _ in range(warmup):
    fn()
sync()
times = []
for _ in range(repeat):
    fn()
    start = time.perf_counter()
    sync()
    times.append(time.perf_counter() - start)
return float(statistics.median(times))
