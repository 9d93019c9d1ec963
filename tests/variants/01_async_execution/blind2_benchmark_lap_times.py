# cell: benchmark
# scores: full
# Correct, lap-timer style: one sync after the warm-up, then each duration is the gap between two
# consecutive "work done" timestamps (the previous sync's return to this call's sync's return),
# which is exactly fn() plus the wait for its work; median of the repeat laps, as a float.
for _ in range(warmup):
    fn()
sync()
laps = []
last = time.perf_counter()
for _ in range(repeat):
    fn()
    sync()
    now = time.perf_counter()
    laps.append(now - last)
    last = now
return float(statistics.median(laps))
