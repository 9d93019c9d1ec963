# cell: engine
# region: 2
# loses: test_engine_async test_engine_order
# Never sets op.done: an op pushed after this one finished still counts it as unfinished and
# waits for it for ever.
self._unfinished -= 1
for var in op.writes:
    self._writing[var] -= 1
if error is not None:
    self._errors.append(error)
for d in op.dependents:
    d.waiting -= 1
    if d.waiting == 0:
        self._ready.append(d)
