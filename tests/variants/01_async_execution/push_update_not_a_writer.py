# cell: engine
# region: 1
# loses: test_engine_order
# an op that reads and writes a var (an update in place) is recorded as one of its readers only,
# not as its newest writer: a later reader does not wait for the update
deps = set()
for var in reads + writes:
    if var in self._last_writer:
        deps.add(self._last_writer[var])
for var in writes:
    deps.update(self._readers.get(var, ()))
for var in reads:
    self._readers.setdefault(var, []).append(op)
for var in writes:
    if var not in reads:
        self._last_writer[var] = op
        self._readers[var] = []
