# cell: blocks
# loses: test_blocks
# Always queues the pending work on PyTorch, whatever `backend` says, and waits for PyTorch only:
# an MXNet statement (y.wait_to_read(), y.asnumpy(), y.shape) is handed a torch Future and fails,
# and mx.nd.waitall() on an idle MXNet engine is judged non-blocking. Breaks "y comes from
# pending_work(seconds, backend)"; only tests run with backend="mxnet" see it.
wait_all("torch")
y = pending_work(seconds, "torch")
start = time.perf_counter()
statement(y)
call = time.perf_counter() - start
wait_all("torch")
total = time.perf_counter() - start
return bool(call > 0.5 * total)
