# cell: engine
# region: 3
# loses: test_engine_errors
# Raises the most recent kept error instead of the first one (waitall raises errors[0]): with two
# failed ops before one wait, the wrong one is raised. Breaks "raises the first kept error".
with self._cv:
    self._wait(lambda: self._writing[var] == 0)
    errors, self._errors = self._errors, []
if errors:
    raise errors[-1]
