# cell: blocks
# loses: test_blocks
# A fixed 10 ms threshold instead of the run's own total: not from the same run, so a wait on
# products that ran faster, or short pending work, is called non-blocking.
wait_all(backend)
y = pending_work(seconds, backend)
start = time.perf_counter()
statement(y)
elapsed = time.perf_counter() - start
wait_all(backend)
return elapsed > 0.01
