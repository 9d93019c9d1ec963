# cell: benchmark
# scores: full
# Correct, using the course's labkit.timing.Timer (the notebook's median_seconds helper style):
# Timer(sync) syncs before starting and before stopping, so earlier and warm-up work is not timed
# and each duration ends once fn's work is done.
from labkit.timing import Timer as SyncTimer

for _ in range(warmup):
    fn()
durations = []
for _ in range(repeat):
    with SyncTimer(sync) as t:
        fn()
    durations.append(t.seconds)
return float(statistics.median(durations))
