# cell: engine
# region: 1
# scores: full
# no tables per variable: keep the unfinished ops and wait for every one that conflicts
if not hasattr(self, "_pending"):
    self._pending = []
self._pending = [p for p in self._pending if not p.done]
op.reads = reads
deps = {p for p in self._pending
        if set(p.writes) & set(reads + writes) or set(p.reads) & set(writes)}
self._pending.append(op)
