# cell: engine
# region: 3
# loses: test_engine_errors
# raises the first kept error and forgets only that one: a second failure before the same wait
# is raised again at the next wait
with self._cv:
    self._wait(lambda: self._writing[var] == 0)
    error = self._errors.pop(0) if self._errors else None
if error is not None:
    raise error
