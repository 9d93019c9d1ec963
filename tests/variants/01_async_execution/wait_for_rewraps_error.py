# cell: engine
# region: 3
# loses: test_engine_errors
# "raise the kept error" read as "raise a ValueError that says what failed": the op's own
# exception type (a KeyError, a RuntimeError...) is lost
with self._cv:
    self._wait(lambda: self._writing[var] == 0)
    errors, self._errors = self._errors, []
if errors:
    raise ValueError(f"an op failed: {errors[0]}")
