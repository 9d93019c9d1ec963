# cell: benchmark
# scores: full
# Correct, another order of work: the warm-up calls, then ONE sync() that drains both the work queued
# before benchmark and the warm-up's; after that every timed call starts on an idle stream because
# the sync() that ended the previous timed duration already waited for everything. fn() runs
# exactly warmup + repeat times; the median comes from statistics.median (mean of the middle two).
for _ in range(warmup):
    fn()
sync()
durations = []
for _ in range(repeat):
    begin = time.perf_counter()
    fn()
    sync()
    durations.append(time.perf_counter() - begin)
return float(statistics.median(durations))
