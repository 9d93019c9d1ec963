# cell: engine
# region: 2
# loses: test_engine_order test_engine_errors
# two regions: _finish never counts a finished writer off self._writing, and wait_for does not
# need the count, since it waits for the newest writer of var to be done: every wait returns on
# time, but self._writing no longer counts only unfinished ops (it never comes back to 0)
if error is not None:
    self._errors.append(error)
op.done = True
self._unfinished -= 1
for d in op.dependents:
    d.waiting -= 1
    if d.waiting == 0:
        self._ready.append(d)
# region: 3
with self._cv:
    newest = self._last_writer.get(var)
    self._wait(lambda: newest is None or newest.done)
    errors, self._errors = self._errors, []
if errors:
    raise errors[0]
