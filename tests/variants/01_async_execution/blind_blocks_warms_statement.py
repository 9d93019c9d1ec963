# cell: blocks
# loses: test_blocks
# Benchmark habit: calls the statement once untimed to warm it up, so the timed call finds the
# work done and never waits.
wait_all(backend)
y = pending_work(seconds, backend)
statement(y)
start = time.perf_counter()
statement(y)
call = time.perf_counter() - start
wait_all(backend)
total = time.perf_counter() - start
return bool(call > total / 2)
