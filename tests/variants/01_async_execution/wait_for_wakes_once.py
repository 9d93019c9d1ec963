# cell: engine
# region: 3
# loses: test_engine_async
with self._cv:
    if self._writing[var] > 0:
        self._cv.wait()          # wakes at the first notify_all, whichever op finished
    errors, self._errors = self._errors, []
if errors:
    raise errors[0]
