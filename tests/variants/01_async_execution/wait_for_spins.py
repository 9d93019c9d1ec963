# cell: engine
# region: 3
# loses: test_engine_async
while True:                      # polls the count instead of sleeping on the condition variable
    with self._cv:
        if self._crash is not None:
            raise self._crash
        if self._writing[var] == 0:
            errors, self._errors = self._errors, []
            break
if errors:
    raise errors[0]
