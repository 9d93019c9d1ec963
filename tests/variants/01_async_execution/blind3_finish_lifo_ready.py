# cell: engine
# region: 2
# scores: full
# Correct, another scheduling order: dependents that become ready go to the FRONT of self._ready
# (appendleft), so a chain runs depth-first, as a work-stealing scheduler would. The contract only
# asks that each op whose count reached 0 be in _ready once; it promises no order among ready ops.
op.done = True
if error is not None:
    self._errors.append(error)
self._unfinished -= 1
self._writing.subtract(op.writes)
for dependent in op.dependents:
    dependent.waiting -= 1
    if dependent.waiting == 0:
        self._ready.appendleft(dependent)
