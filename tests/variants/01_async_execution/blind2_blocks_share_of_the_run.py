# cell: blocks
# scores: full
# Correct, measured within one run: drain the back end, queue y, read the clock before and after
# the call and once the back end is idle again; the call blocked if it covered at least half of
# the run's total (a comparison of floats, so a Python bool).
wait_all(backend)
y = pending_work(seconds, backend)
t0 = time.perf_counter()
statement(y)
t1 = time.perf_counter()
wait_all(backend)
t2 = time.perf_counter()
return (t1 - t0) >= 0.5 * (t2 - t0)
