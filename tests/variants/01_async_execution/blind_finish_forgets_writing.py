# cell: engine
# region: 2
# loses: test_engine_async
# _finish readies the dependents and counts the op out of _unfinished, but never takes it out
# of _writing: wait_for(var) waits for ever once var has been written.
op.done = True
self._unfinished -= 1
if error is not None:
    self._errors.append(error)
for d in op.dependents:
    d.waiting -= 1
    if d.waiting == 0:
        self._ready.append(d)
