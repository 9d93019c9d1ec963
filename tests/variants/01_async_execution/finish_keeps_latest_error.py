# cell: engine
# region: 2
# loses: test_engine_errors
# keeps the newest error in front, so a wait raises the last failure instead of the first
if error is not None:
    self._errors.insert(0, error)
op.done = True
for var in op.writes:
    self._writing[var] -= 1
self._unfinished -= 1
for d in op.dependents:
    d.waiting -= 1
    if d.waiting == 0:
        self._ready.append(d)
