# cell: engine
# region: 2
# loses: test_engine_order
if error is not None:
    self._errors.append(error)
op.done = True
for var in op.writes:
    self._writing[var] -= 1
self._unfinished -= 1
for d in op.dependents:
    if d.waiting > 0:            # ready as soon as any one dependency has finished
        d.waiting = 0
        self._ready.append(d)
