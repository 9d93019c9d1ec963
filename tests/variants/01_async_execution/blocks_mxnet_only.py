# cell: blocks
# loses: test_blocks
# the MXNet-only answer of the course's first version: ignores backend, so on PyTorch's futures
# (and without MXNet) it measures the wrong thing or fails
mx.nd.waitall()
y = pending_work(seconds, "mxnet")
start = time.perf_counter()
statement(y)
called = time.perf_counter() - start
mx.nd.waitall()
return called > 0.5 * (time.perf_counter() - start)
