# cell: engine
# region: 1
# loses: test_engine_order
# Treats a read as consuming the write: once an op reads `v`, v's last writer is forgotten. A later
# writer still waits for the reader (and so, through it, for the writer), but a second reader of v
# no longer waits for the writer: read after write broken for every reader but the first; the
# _last_writer table also loses "the newest op that writes var".
deps = set()
for var in reads:
    writer = self._last_writer.pop(var, None)
    if writer is not None:
        deps.add(writer)
for var in writes:
    if var in self._last_writer:
        deps.add(self._last_writer[var])
    deps.update(self._readers.get(var, []))
for var in reads:
    if var not in writes:
        self._readers.setdefault(var, []).append(op)
for var in writes:
    self._last_writer[var] = op
    self._readers[var] = []
