# cell: engine
# region: 2
# loses: test_engine_async test_engine_order test_engine_errors
# Keeps every op's outcome, None for a success: the next wait "raises" None, a TypeError.
op.done = True
self._unfinished -= 1
for var in op.writes:
    self._writing[var] -= 1
self._errors.append(error)
for d in op.dependents:
    d.waiting -= 1
    if d.waiting == 0:
        self._ready.append(d)
