# cell: engine
# region: 1
# scores: full
# deps without the tables: keep the unfinished ops and wait for every one that conflicts (more
# than the newest writer and its readers, all of them hazards); the two tables the contract
# names are still kept up to date, for the code that reads them (a wait_for may)
if not hasattr(self, "_pending"):
    self._pending = []
self._pending = [p for p in self._pending if not p.done]
op.reads = reads
deps = {p for p in self._pending
        if set(p.writes) & set(reads + writes) or set(p.reads) & set(writes)}
self._pending.append(op)
for var in reads:
    self._readers.setdefault(var, []).append(op)
for var in writes:
    self._last_writer[var] = op
    self._readers[var] = []
