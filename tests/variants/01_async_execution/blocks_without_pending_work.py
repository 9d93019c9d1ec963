# cell: blocks
# loses: test_blocks
wait_all(backend)
y = pending_work(seconds, backend)
wait_all(backend)
start = time.perf_counter()
statement(y)
called = time.perf_counter() - start
return called > 0.5 * seconds
