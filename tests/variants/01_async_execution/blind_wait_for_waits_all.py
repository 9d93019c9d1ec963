# cell: engine
# region: 3
# loses: test_engine_async
# wait_for waits until the engine is idle, as waitall does: it returns late when other,
# longer ops that do not write var are still running.
with self._cv:
    self._wait(lambda: self._unfinished == 0)
    errors, self._errors = self._errors, []
if errors:
    raise errors[0]
