# cell: benchmark
# loses: test_benchmark_sync test_benchmark_stats
# the median taken with NumPy and returned as it comes: a numpy.float64, which compares like a
# float and passes isinstance(t, float), but the contract says a float
sync()
for _ in range(warmup):
    fn()
    sync()
times = []
for _ in range(repeat):
    start = time.perf_counter()
    fn()
    sync()
    times.append(time.perf_counter() - start)
return np.median(times)
