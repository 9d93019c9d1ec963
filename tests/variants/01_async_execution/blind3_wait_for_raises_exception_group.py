# cell: engine
# region: 3
# loses: test_engine_errors
# Python 3.11 style: when several ops failed it raises them all at once as an ExceptionGroup (one
# error alone is raised as is). Breaks "raises the first kept error": with two kept errors the
# caller gets an ExceptionGroup, not the first op's exception (except ValueError no longer catches it).
with self._cv:
    self._wait(lambda: self._writing[var] == 0)
    errors, self._errors = self._errors, []
if len(errors) == 1:
    raise errors[0]
if errors:
    raise ExceptionGroup(f"{len(errors)} ops failed before wait_for({var!r})", errors)
