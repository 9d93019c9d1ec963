# cell: blocks
# scores: full
# Correct, another style: three independent measurements, each on a freshly queued y on an idle back
# end, each comparing the call with the whole run it belongs to (from the call until everything
# queued is done); the verdict is the majority, so one scheduler hiccup cannot flip it. Returns a
# Python bool (an int compared with an int).
votes = 0
for _ in range(3):
    wait_all(backend)
    y = pending_work(seconds, backend)
    t0 = time.perf_counter()
    statement(y)
    t1 = time.perf_counter()
    wait_all(backend)
    t2 = time.perf_counter()
    votes += int((t1 - t0) > (t2 - t0) / 2)
return votes >= 2
