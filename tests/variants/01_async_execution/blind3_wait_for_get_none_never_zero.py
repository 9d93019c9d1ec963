# cell: engine
# region: 3
# loses: test_engine_order
# Waits on self._writing.get(var) == 0. For a var that no op ever wrote, .get returns None, never 0,
# so wait_for("never_written") sleeps forever (and so does any var whose zero entry a _finish
# deleted). Breaks "returns once no unfinished op writes var": with no writer it must return at once.
with self._cv:
    self._wait(lambda: self._writing.get(var) == 0)
    errors, self._errors = self._errors, []
if errors:
    raise errors[0]
