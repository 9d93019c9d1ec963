# cell: engine
# region: 1
# loses: test_engine_order
# the tables are updated writes first, then reads: an op that reads and writes var (an update in
# place) is left in _readers[var] as a reader since its own write
deps = set()
for var in reads + writes:
    if var in self._last_writer:
        deps.add(self._last_writer[var])
for var in writes:
    deps.update(self._readers.get(var, ()))
for var in writes:
    self._last_writer[var] = op
    self._readers[var] = []
for var in reads:
    self._readers.setdefault(var, []).append(op)
