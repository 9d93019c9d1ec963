# cell: engine
# region: 3
# loses: test_engine_async
# Also waits for the unfinished readers of var since its last write ("wait until var is quiet"):
# a slow op that only reads var delays wait_for(var). Breaks "ops that only read it do not count".
with self._cv:
    self._wait(lambda: self._writing[var] == 0
               and all(r.done for r in self._readers.get(var, ())))
    errors, self._errors = self._errors, []
if errors:
    raise errors[0]
