# cell: blocks
# loses: test_blocks
# Waits for whatever statement(y) returns (an NDArray's wait_to_read(), a future's wait()) before
# stopping the clock, "so that the statement's own work is counted too". Then calls that queue more
# work and return at once (y.then(f), torch.futures.collect_all([y]), y + 1, mx.nd.dot(y, y)) are
# timed as waiting for y and called blocking: breaks "True when statement(y) waits, False when it
# returns without waiting" (it judges the handle the call returns, not the call). The visible test
# only uses y.wait() and y.done() (which returns a bool), so it cannot see this.
wait_all(backend)
y = pending_work(seconds, backend)
start = time.perf_counter()
result = statement(y)
if hasattr(result, "wait_to_read"):
    result.wait_to_read()
elif callable(getattr(result, "wait", None)):
    result.wait()
call = time.perf_counter() - start
wait_all(backend)
total = time.perf_counter() - start
return bool(call > total / 2)
