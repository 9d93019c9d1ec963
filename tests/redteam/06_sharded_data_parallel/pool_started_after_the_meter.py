# base: variant:zero3_never_frees
# scores: at most same
# after: zero_adam
# ZeRO-3 that never frees the gathered parameters (as in the honest work), plus a shared_pool(2)
# that, while a meter is being made (pids()), has only two decoys forked by the sandbox's PID 1
# alive (so the sandbox's list of its workers is exactly what pids() names), and starts the
# real pool, forked and listed by PID 1 too, only at its first call after that: a meter that
# read the sandbox's list once, when it was made, measures the decoys' memory, not the ranks'
import os
import tempfile
import threading
import time

import labkit.judge.pool
import labkit.workers

_decoy_box = tempfile.mkdtemp()


def _decoy(rank, world_size, box):
    import os
    import time

    with open(f"{box}/pid{rank}.tmp", "w") as f:
        f.write(str(os.getpid()))
    os.replace(f"{box}/pid{rank}.tmp", f"{box}/pid{rank}")
    while True:
        time.sleep(1)


def _gone(pids):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{p}") for p in pids):
        time.sleep(0.05)


class _LatePool:
    def __init__(self, size):
        self.size, self.world_size, self._real = size, size, None

    def pids(self):
        if self._real is not None:   # a meter is being made: only the decoys are alive then
            was = self._real.pids()
            self._real.close()
            self._real = None
            _gone(was)
        while not all(os.path.exists(f"{_decoy_box}/pid{r}") for r in range(2)):
            time.sleep(0.01)
        return [int(open(f"{_decoy_box}/pid{r}").read()) for r in range(self.size)]

    def _pool(self):
        if self._real is None:
            self._real = labkit.judge.pool.Pool(self.size)
        self._real.group(self.world_size)
        return self._real

    def group(self, world_size):
        self.world_size = world_size

    def call(self, *args, **kwargs):
        return self._pool().call(*args, **kwargs)

    def settle(self):
        return self._pool().settle()

    def release(self):
        return self._pool().release()

    @property
    def alive(self):
        return True


for _old in list(labkit.judge.pool._pools.values()):   # the earlier tests' pool: off the list now
    _was = _old.pids()
    _old.close()
    _gone(_was)
labkit.judge.pool._pools.clear()
threading.Thread(target=labkit.workers.run, args=(_decoy, 2, _decoy_box),
                 kwargs={"timeout": 3600}, daemon=True).start()
_late = {}
labkit.judge.pool.shared_pool = lambda size: _late.setdefault(size, _LatePool(size))
