# cell: blocks
# loses: test_blocks
# Compares the call with a reference timed on a *separate* run queued just before (a private
# re-calibration), not with the total of the run the statement was called on: the contract says the
# comparison must come from the same run. If the speed of the products changes between the two runs
# (other load starting or stopping), the verdict follows the change, not the call.
wait_all(backend)
probe = pending_work(seconds, backend)
start = time.perf_counter()
wait_all(backend)
reference = time.perf_counter() - start
y = pending_work(seconds, backend)
start = time.perf_counter()
statement(y)
call = time.perf_counter() - start
wait_all(backend)
return bool(call > 0.5 * reference)
