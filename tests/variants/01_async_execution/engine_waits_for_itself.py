# cell: engine
# region: 1
# loses: test_engine_order
deps = set()
for var in reads:
    self._readers.setdefault(var, []).append(op)
for var in reads + writes:
    if var in self._last_writer:
        deps.add(self._last_writer[var])
for var in writes:
    deps.update(self._readers.get(var, ()))
    self._last_writer[var] = op
    self._readers[var] = []
