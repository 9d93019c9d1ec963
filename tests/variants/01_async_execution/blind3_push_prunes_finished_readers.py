# cell: engine
# region: 1
# loses: test_engine_order
# Keeps the reader lists short by dropping the readers that are already done each time a read is
# registered (the "Going further" idea, done here). The order of execution stays right (a finished
# reader needs no waiting), but the named state breaks: self._readers[var] must be the ops that
# read var since that write, done or not, and the tests read the tables after each push. It also
# reads op.done without the lock. Only a table check made after some readers finished sees it.
deps = set()
for var in reads + writes:
    writer = self._last_writer.get(var)
    if writer is not None:
        deps.add(writer)
for var in writes:
    deps.update(self._readers.get(var, ()))
for var in reads:
    alive = [r for r in self._readers.get(var, []) if not r.done]
    alive.append(op)
    self._readers[var] = alive
for var in writes:
    self._last_writer[var] = op
    self._readers[var] = []
