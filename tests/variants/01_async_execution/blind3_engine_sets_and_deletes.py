# cell: engine
# region: 1
# scores: full
# Correct, all three regions in another style: deps built with a set comprehension over
# reads + writes plus the readers of each written var; _finish deletes a _writing entry once its
# count is 0 (a Counter reads 0 for a missing key, so "counts only unfinished ops" still holds);
# wait_for waits until no entry is left for var.
deps = {self._last_writer[v] for v in reads + writes if v in self._last_writer}
deps.update(r for v in writes for r in self._readers.get(v, ()))
for v in reads:
    self._readers.setdefault(v, []).append(op)
for v in writes:
    self._last_writer[v] = op
    self._readers[v] = []
# region: 2
op.done = True
self._unfinished -= 1
for v in op.writes:
    self._writing[v] -= 1
    if not self._writing[v]:
        del self._writing[v]
if error is not None:
    self._errors.append(error)
for d in op.dependents:
    d.waiting -= 1
    if not d.waiting:
        self._ready.append(d)
# region: 3
with self._cv:
    self._wait(lambda: not self._writing.get(var, 0))
    errors, self._errors = self._errors, []
if errors:
    raise errors[0]
