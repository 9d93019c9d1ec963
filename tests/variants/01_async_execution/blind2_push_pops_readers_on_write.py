# cell: engine
# region: 1
# scores: full
# Correct (probe of how the tests read _readers): on a write, the var's reader list is removed
# from the table (pop) instead of set to [], so "no readers since that write" is an absent key,
# exactly as for a var never read (the engine starts with _readers = {}). Everything else is the
# plain rule. Should score full; if it loses, a test reads _readers[var] where the contract allows
# the key to be absent.
deps = set()
for var in reads:
    if var in self._last_writer:
        deps.add(self._last_writer[var])
for var in writes:
    if var in self._last_writer:
        deps.add(self._last_writer[var])
    deps.update(self._readers.get(var, ()))
for var in writes:
    self._last_writer[var] = op
    self._readers.pop(var, None)
for var in reads:
    if var not in writes:
        self._readers.setdefault(var, []).append(op)
