# cell: engine
# region: 1
# scores: full
# another structure: one pass per variable, a var's history kept as (writer, readers) pairs
deps = set()
for var in set(reads) | set(writes):
    writer = self._last_writer.get(var)
    if writer is not None:
        deps.add(writer)                          # after the last write: RAW and WAW
    if var in writes:
        deps.update(self._readers.get(var, []))   # a write also waits for readers: WAR
deps.discard(op)
for var in set(reads) | set(writes):
    if var in writes:
        self._last_writer[var] = op
        self._readers[var] = []
    else:
        self._readers.setdefault(var, []).append(op)
