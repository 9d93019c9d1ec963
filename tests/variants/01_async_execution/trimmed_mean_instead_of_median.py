# cell: benchmark
# loses: test_benchmark_stats
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
ordered = sorted(times)
kept = ordered[1:-1] if len(ordered) > 2 else ordered
return float(sum(kept) / len(kept))
