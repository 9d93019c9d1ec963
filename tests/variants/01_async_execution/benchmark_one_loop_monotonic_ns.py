# cell: benchmark
# scores: full
# one loop over every call, integer nanoseconds of the monotonic clock, the median by hand
sync()
laps = []
for _ in range(warmup + repeat):
    t0 = time.monotonic_ns()
    fn()
    sync()
    laps.append(time.monotonic_ns() - t0)
timed = sorted(laps[warmup:])
mid = len(timed) // 2
ns = timed[mid] if len(timed) % 2 else (timed[mid - 1] + timed[mid]) / 2
return ns / 1e9
