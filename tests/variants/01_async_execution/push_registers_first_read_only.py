# cell: engine
# region: 1
# loses: test_engine_order
# an op is noted as a reader of its first input only, so a later write of its second input
# does not wait for it
deps = set()
for var in reads + writes:
    if var in self._last_writer:
        deps.add(self._last_writer[var])
for var in writes:
    deps.update(self._readers.get(var, ()))
if reads:
    self._readers.setdefault(reads[0], []).append(op)
for var in writes:
    self._last_writer[var] = op
    self._readers[var] = []
