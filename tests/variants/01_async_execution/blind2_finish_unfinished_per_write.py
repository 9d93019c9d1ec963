# cell: engine
# region: 2
# loses: test_engine_async test_engine_order
# Indentation slip: self._unfinished is decremented inside the loop over op.writes, so an op that
# writes one var is counted right, one that writes two is subtracted twice (waitall returns early,
# the idle count goes negative) and a read-only op is never subtracted (waitall hangs). Breaks
# "_unfinished counts only unfinished ops".
op.done = True
for var in op.writes:
    self._writing[var] -= 1
    self._unfinished -= 1
if error is not None:
    self._errors.append(error)
for d in op.dependents:
    d.waiting -= 1
    if d.waiting == 0:
        self._ready.append(d)
