# cell: engine
# region: 1
# scores: full
# Correct, in another style: deps built as set comprehensions over the two tables (last writer of
# every var read or written, readers of every var written), the tables updated under the lock;
# _finish subtracts the written vars with Counter.subtract and readies the dependents whose count
# reached 0 in one extend; wait_for clears the kept errors in place and raises the first.
deps = {self._last_writer[v] for v in (*reads, *writes) if v in self._last_writer}
deps |= {r for v in writes for r in self._readers.get(v, ())}
with self._cv:
    for v in writes:
        self._last_writer[v] = op
        self._readers[v] = []
    for v in reads:
        if v not in writes:
            self._readers.setdefault(v, []).append(op)
# region: 2
op.done = True
self._unfinished -= 1
self._writing.subtract(op.writes)
if error is not None:
    self._errors.append(error)
for dependent in op.dependents:
    dependent.waiting -= 1
self._ready.extend(d for d in op.dependents if d.waiting == 0)
# region: 3
with self._cv:
    self._wait(lambda: not self._writing[var])
    first = self._errors[0] if self._errors else None
    self._errors.clear()
if first is not None:
    raise first
