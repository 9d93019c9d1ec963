# cell: engine
# region: 2
# loses: test_engine_errors
# "A failed op produced nothing, so what depends on it must not run": on an error it keeps the error,
# marks the op done and uncounts it, but returns before releasing its dependents. Their waiting
# never reaches 0 and waitall()/wait_for() hang (within() fails). Breaks "every op's waiting counts
# the unfinished ops it still waits for, and each op whose count has just reached 0 is in _ready"
# and "the engine goes on". An error test whose failing op has no dependents passes.
op.done = True
self._unfinished -= 1
for var in op.writes:
    self._writing[var] -= 1
if error is not None:
    self._errors.append(error)
    return
for dependent in op.dependents:
    dependent.waiting -= 1
    if dependent.waiting == 0:
        self._ready.append(dependent)
