# cell: engine
# region: 1
# loses: test_engine_order
# "Readers since the last write": a write of ANY variable starts the reader lists afresh
# (self._readers.clear()), not only the lists of the variables it writes. Reader r of b, then a
# write of x, then a write of b: the write of b no longer waits for r (write after read broken),
# and _readers[b] is no longer the ops that read b since b's last write. Needs three ops on two
# variables to be seen; a single-variable hazard test passes.
deps = set()
for var in reads:
    if var in self._last_writer:
        deps.add(self._last_writer[var])
for var in writes:
    if var in self._last_writer:
        deps.add(self._last_writer[var])
    deps.update(self._readers.get(var, ()))
if writes:
    self._readers.clear()
    for var in writes:
        self._last_writer[var] = op
        self._readers[var] = []
for var in reads:
    if var not in writes:
        self._readers.setdefault(var, []).append(op)
