# cell: engine
# region: 3
# loses: test_engine_errors
# "Report a failure as early as possible": if an error is already kept when wait_for is called, it
# is raised at once, before the writers of var have finished. Breaks "returns once no unfinished op
# writes var; like waitall(), it THEN raises the first kept error": the caller sees the error while
# var's writer is still running, and may read var half-written. Errors kept only during the wait
# are raised after it, as they should be.
with self._cv:
    if self._errors:
        errors, self._errors = self._errors, []
        raise errors[0]
    self._wait(lambda: self._writing[var] == 0)
    errors, self._errors = self._errors, []
if errors:
    raise errors[0]
