# cell: engine
# region: 2
# scores: full
# another structure: count down first, then ready the ones at zero in one go
op.done = True
self._unfinished -= 1
self._writing.subtract(op.writes)
released = []
for d in op.dependents:
    d.waiting -= 1
    if not d.waiting:
        released.append(d)
self._ready.extend(released)
if error is not None:
    self._errors.append(error)
