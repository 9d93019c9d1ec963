# cell: engine
# region: 3
# loses: test_engine_errors
# wait_for raises the first kept error but does not forget it: the next wait raises it again.
with self._cv:
    self._wait(lambda: self._writing[var] == 0)
    if self._errors:
        raise self._errors[0]
