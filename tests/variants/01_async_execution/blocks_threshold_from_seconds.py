# cell: blocks
# loses: test_blocks
# measures the call, but compares it with the seconds asked for, not with the work measured in
# the same run: right at the calibrated speed, wrong when the products run faster (a call that
# waits then takes less than half of `seconds`)
wait_all(backend)
y = pending_work(seconds, backend)
start = time.perf_counter()
statement(y)
called = time.perf_counter() - start
wait_all(backend)
return called > 0.5 * seconds
