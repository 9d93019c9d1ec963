# cell: engine
# region: 1
# loses: test_engine_order
# a write adds the readers of var to deps but never starts a new list of readers: _readers[var]
# keeps every op that ever read var, not only those since the newest write (harmless to the
# order, since the older readers have finished or are waited for anyway, but the table is wrong)
deps = set()
for var in reads + writes:
    if var in self._last_writer:
        deps.add(self._last_writer[var])
for var in writes:
    deps.update(self._readers.get(var, ()))
for var in reads:
    self._readers.setdefault(var, []).append(op)
for var in writes:
    self._last_writer[var] = op
