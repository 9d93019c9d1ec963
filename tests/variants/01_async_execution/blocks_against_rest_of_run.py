# cell: blocks
# scores: full
# another honest measurement: compare the call with what was left to wait for after it
wait_all(backend)
y = pending_work(seconds, backend)
before = time.monotonic()
statement(y)
after = time.monotonic()
wait_all(backend)
rest = time.monotonic() - after
return bool(after - before > rest)
