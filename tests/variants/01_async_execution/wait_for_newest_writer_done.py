# cell: engine
# region: 3
# scores: full
# writers of one var run one after another (write after write), so the newest one ends last:
# wait until it is done instead of counting
with self._cv:
    newest = self._last_writer.get(var)
    self._wait(lambda: newest is None or newest.done)
    errors, self._errors = self._errors, []
if errors:
    raise errors[0]
