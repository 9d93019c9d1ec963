# cell: engine
# region: 2
# loses: test_engine_errors
# Marks only a successful op done (op.done = error is None). Everything else is right, so the
# dependents already waiting are released. But the failed op stays the _last_writer of its
# variables with done False: an op pushed AFTER it finished counts it as unfinished in _submit and
# waits forever. Breaks "op.done is true" after _finish. Seen only when something that depends on
# the failed op is pushed after it ran.
op.done = error is None
self._unfinished -= 1
for var in op.writes:
    self._writing[var] -= 1
if error is not None:
    self._errors.append(error)
for dependent in op.dependents:
    dependent.waiting -= 1
    if dependent.waiting == 0:
        self._ready.append(dependent)
