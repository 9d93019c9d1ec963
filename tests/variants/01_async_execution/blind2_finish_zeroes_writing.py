# cell: engine
# region: 2
# loses: test_engine_order
# "Once its writer finished, nobody writes var": sets _writing[var] to 0 instead of subtracting 1.
# With two unfinished writers of var (the second waits for the first), the first one's end makes
# _writing[var] 0 while the second still runs, so wait_for(var) returns early. Breaks "_writing
# counts only unfinished ops".
op.done = True
for var in op.writes:
    self._writing[var] = 0
self._unfinished -= 1
if error is not None:
    self._errors.append(error)
for d in op.dependents:
    d.waiting -= 1
    if d.waiting == 0:
        self._ready.append(d)
