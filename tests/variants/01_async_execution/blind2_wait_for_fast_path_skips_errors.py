# cell: engine
# region: 3
# loses: test_engine_errors
# A fast path: if nothing writes var any more, return at once, before looking at the kept errors.
# When the failing op has already finished by the time wait_for is called, its error is not raised
# (it stays kept for some later wait): breaks "then raises the first kept error, if any". Whether
# a test sees it depends on whether the failing op is still running when wait_for is called.
with self._cv:
    if self._writing[var] == 0:
        return
    self._wait(lambda: self._writing[var] == 0)
    errors, self._errors = self._errors, []
if errors:
    raise errors[0]
