# cell: engine
# region: 1
# loses: test_engine_order
# Collects deps in a list, not a set: an op that reads and writes `a` last written by P lists P
# twice (read after write and write after write), as does an op reading two vars P wrote. Ordering
# still holds (P appears twice in dependents too, so the count still reaches 0), but op.waiting
# is 2 for one unfinished op and P.dependents holds the op twice: breaks "deps, the set of earlier
# ops" and "waiting counts the unfinished ops it still waits for".
deps = []
for var in reads:
    if var in self._last_writer:
        deps.append(self._last_writer[var])
for var in writes:
    if var in self._last_writer:
        deps.append(self._last_writer[var])
    deps.extend(self._readers.get(var, []))
for var in reads:
    if var not in writes:
        self._readers.setdefault(var, []).append(op)
for var in writes:
    self._last_writer[var] = op
    self._readers[var] = []
