# cell: engine
# region: 1
# scores: full
# Correct, MXNet's own way (a write waits for the readers of the current version, which themselves
# waited for its writer): for a written var with readers since the last write, deps holds those
# readers and not the last writer; with no readers, the last writer. Every reader in the list was
# pushed after that writer and waited for it if it was unfinished, so the write still starts after
# the last writer ended (write after write holds transitively) and waits for nothing else. A probe:
# if this loses, a test pins op.waiting to the direct-dependency count, which the contract (every
# hazard respected, nothing else waited for) does not promise.
deps = set()
for var in reads:
    if var in self._last_writer:
        deps.add(self._last_writer[var])
for var in writes:
    readers = self._readers.get(var, [])
    if readers:
        deps.update(readers)
    elif var in self._last_writer:
        deps.add(self._last_writer[var])
for var in reads:
    if var not in writes:
        self._readers.setdefault(var, []).append(op)
for var in writes:
    self._last_writer[var] = op
    self._readers[var] = []
