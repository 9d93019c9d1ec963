# cell: engine
# region: 1
# loses: test_engine_order
# "an op that reads var is one of its readers itself": an update in place does not wait for the
# earlier readers of var (write after read)
deps = set()
for var in reads + writes:
    if var in self._last_writer:
        deps.add(self._last_writer[var])
for var in writes:
    if var not in reads:
        deps.update(self._readers.get(var, ()))
for var in reads:
    self._readers.setdefault(var, []).append(op)
for var in writes:
    self._last_writer[var] = op
    self._readers[var] = []
