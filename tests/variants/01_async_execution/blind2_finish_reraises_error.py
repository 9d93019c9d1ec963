# cell: engine
# region: 2
# loses: test_engine_errors
# "An error is never lost: raise it": does the bookkeeping, then re-raises the op's error from
# _finish. The worker keeps it as _crash, so the next wait raises it, but every later wait raises
# it again forever (and the kept-error list is never used): breaks "raised at the next wait, once"
# and "the engine goes on".
op.done = True
for var in op.writes:
    self._writing[var] -= 1
self._unfinished -= 1
for d in op.dependents:
    d.waiting -= 1
    if d.waiting == 0:
        self._ready.append(d)
if error is not None:
    raise error
