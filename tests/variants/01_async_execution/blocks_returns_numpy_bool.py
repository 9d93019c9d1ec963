# cell: blocks
# loses: test_blocks
# right verdicts, returned as a numpy.bool_ (compares equal to True/False, but the contract says bool)
wait_all(backend)
y = pending_work(seconds, backend)
start = time.perf_counter()
statement(y)
called = time.perf_counter() - start
wait_all(backend)
return np.greater(called, 0.5 * (time.perf_counter() - start))
