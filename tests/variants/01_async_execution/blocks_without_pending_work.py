# cell: blocks
# loses: test_blocks
mx.nd.waitall()
y = pending_work(seconds)
mx.nd.waitall()
start = time.perf_counter()
statement(y)
called = time.perf_counter() - start
return called > 0.5 * seconds
