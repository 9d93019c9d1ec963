# cell: benchmark
# scores: full
# Correct, standard-library style: warm up, drain the queue, then timeit.repeat with number=1 times
# repeat single calls of "fn(), then sync()" on time.perf_counter (timeit's default timer).
import timeit

for _ in range(warmup):
    fn()
sync()
durations = timeit.repeat(lambda: (fn(), sync()), number=1, repeat=repeat)
return float(statistics.median(durations))
