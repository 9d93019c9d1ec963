# cell: benchmark
# scores: full
# the median by hand, with its own clock and loop shape: a correct answer written another way
import timeit

clock = timeit.default_timer
sync()
for _ in range(warmup):
    fn()
sync()
durations = []
while len(durations) < repeat:
    begin = clock()
    fn()
    sync()
    durations.append(clock() - begin)
durations.sort()
middle = len(durations) // 2
if len(durations) % 2:
    return durations[middle]
return (durations[middle - 1] + durations[middle]) / 2
