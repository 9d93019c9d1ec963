# cell: engine
# region: 1
# loses: test_engine_order
deps = set()
for var in reads + writes:
    if var in self._last_writer:
        deps.add(self._last_writer[var])
for var in writes:
    if self._readers.get(var):
        deps.add(self._readers[var][-1])     # only the newest reader
for var in reads:
    self._readers.setdefault(var, []).append(op)
for var in writes:
    self._last_writer[var] = op
    self._readers[var] = []
