# cell: engine
# region: 2
# loses: test_engine_errors
# Keeps the error's class instead of the error (self._errors.append(type(error))). `raise errors[0]`
# in waitall/wait_for then raises a fresh instance with no message and no traceback: same type, so
# pytest.raises(ValueError) passes, but the error the op raised ("op 'x' failed on purpose") is lost.
# Breaks "an error is never lost: the next wait raises it".
op.done = True
self._unfinished -= 1
for var in op.writes:
    self._writing[var] -= 1
if error is not None:
    self._errors.append(type(error))
for dependent in op.dependents:
    dependent.waiting -= 1
    if dependent.waiting == 0:
        self._ready.append(dependent)
