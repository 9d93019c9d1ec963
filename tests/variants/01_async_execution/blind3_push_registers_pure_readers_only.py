# cell: engine
# region: 1
# loses: test_engine_order
# Registers an op in self._readers only when it writes nothing ("a reader is an op that only reads").
# An op that reads a and writes c (c = a @ a) is then not among a's readers, so a later write of a
# (a *= 2) does not wait for it: breaks the write-after-read rule and the table promise
# "self._readers[var], the ops that read var since that write".
deps = set()
for var in reads + writes:
    if var in self._last_writer:
        deps.add(self._last_writer[var])
for var in writes:
    deps.update(self._readers.get(var, ()))
if writes:
    for var in writes:
        self._last_writer[var] = op
        self._readers[var] = []
else:
    for var in reads:
        self._readers.setdefault(var, []).append(op)
