"""labkit.judge.pool and labkit.judge.traffic: a pool of gloo workers kept across calls, and bytes between them counted from outside."""

from __future__ import annotations

import os
import shutil

import pytest
import torch

import labkit.judge.handles
from labkit.judge.traffic import Meter
from labkit.judge.pool import Pool

pytestmark = pytest.mark.skipif(shutil.which("ss") is None, reason="needs ss (iproute2)")


def ring_(tensor):
    import torch.distributed as dist

    rank, n = dist.get_rank(), dist.get_world_size()
    chunks = torch.tensor_split(tensor.view(-1), n)
    right, left = (rank + 1) % n, (rank - 1) % n
    for s in range(n - 1):
        into = chunks[(rank - s - 1) % n]
        buf = torch.empty_like(into)
        request = dist.isend(chunks[(rank - s) % n], right)
        dist.recv(buf, left)
        request.wait()
        into.add_(buf)
    for s in range(n - 1):
        request = dist.isend(chunks[(rank + 1 - s) % n], right)
        dist.recv(chunks[(rank - s) % n], left)
        request.wait()
    return tensor


def library_(tensor):
    import torch.distributed as dist

    dist.all_reduce(tensor)
    return tensor


def through_rank0(tensor):
    import torch.distributed as dist

    rank, n = dist.get_rank(), dist.get_world_size()
    if rank == 0:
        buf = torch.empty_like(tensor)
        for src in range(1, n):
            dist.recv(buf, src)
            tensor.add_(buf)
        for dst in range(1, n):
            dist.send(tensor, dst)
    else:
        dist.send(tensor, 0)
        dist.recv(tensor, 0)
    return tensor.clone()


def not_written(tensor):
    raise NotImplementedError("not yet")


def deadlock(tensor):
    import torch.distributed as dist

    dist.recv(tensor, (dist.get_rank() - 1) % dist.get_world_size())
    return tensor


@pytest.fixture(scope="module")
def pool():
    p = Pool(3, timeout=20)
    yield p
    p.close()


def _run(pool, meter, fn, numel=3000):
    xs = [torch.arange(numel, dtype=torch.int64) * (r + 1) for r in range(pool.world_size)]
    with meter.watch() as flows:
        reports = pool.call(fn, [(x,) for x in xs])
    return xs, reports, flows


def test_ring_bytes_go_right_and_match_the_ring_share(pool):
    pool.group(3)
    meter = Meter(pool)
    xs, reports, flows = _run(pool, meter, ring_)
    for r, report in enumerate(reports):
        assert report["returned"] == 0
        assert torch.equal(report["args"][0], sum(xs))
        payload = 2 * 2 * 1000 * 8  # 2(N-1) chunks of 1000 int64
        assert payload <= flows.to(r, (r + 1) % 3) <= payload + 4 * 256
        assert flows.elsewhere(r, (r + 1) % 3) <= 4 * 128  # receipts to the left only
    assert torch.equal(xs[0], torch.arange(3000))  # the caller's tensors went by value


def test_library_allreduce_and_gather_to_one_are_told_apart(pool):
    pool.group(3)
    meter = Meter(pool)
    _, _, flows = _run(pool, meter, library_)
    assert all(flows.elsewhere(r, (r + 1) % 3) > 10_000 for r in range(3))  # gloo's ring runs left
    _, reports, flows = _run(pool, meter, through_rank0)
    assert reports[0]["returned"] is None and reports[0]["returned_type"] == "Tensor"
    assert flows.elsewhere(0, 1) > 20_000 and flows.to(1, 2) == 0


def test_judged_meter_enters_the_namespace_and_reads_loopback(pool, monkeypatch):
    """As the judge: the workers' pids found under the 'kernel' (here this process) by NSpid, ss run through
    nsenter in their network namespace, and the loopback counter read only where that namespace is theirs alone."""
    if os.geteuid() != 0:
        pytest.skip("nsenter into a namespace needs root here")

    class FakeSession:
        pid = os.getpid()

    monkeypatch.setattr(labkit.judge.handles, "_session", FakeSession())
    pool.group(3)
    meter = Meter(pool)
    assert meter.judged and meter.pids == pool.pids()
    _, _, flows = _run(pool, meter, ring_, numel=30000)
    # The workers share this process's network (as with the sandbox off): its loopback carries every other
    # process's traffic too, so it is not read (a CI run failed a correct ring on another grading's bytes).
    assert not meter._own_network() and flows.loopback is None
    # In the sandbox the namespace is the workers' own, and its counter covers what the sockets account for.
    monkeypatch.setattr(Meter, "_own_network", lambda self: True)
    monkeypatch.setattr(Meter, "OTHERS_ALLOWED", 1 << 62)   # the host's network: other processes send too
    monkeypatch.setattr(Meter, "UNSEEN", 1 << 62)
    _, _, flows = _run(pool, meter, ring_, numel=30000)
    assert flows.loopback is not None
    assert flows.loopback >= sum(flows.to(r, (r + 1) % 3) for r in range(3)) + flows.resent


def test_errors_come_back_and_a_deadlock_stops_the_pool():
    p = Pool(2, timeout=5)
    try:
        with pytest.raises(NotImplementedError):
            p.call(not_written, [(torch.zeros(2),), (torch.zeros(2),)])
        with pytest.raises(ValueError, match="per_rank_args"):
            p.call(ring_, [(torch.zeros(2),)])
        p.group(1)
        assert p.call(ring_, [(torch.ones(2),)])[0]["returned"] == 0
        p.group(2)
        pids = p.pids()
        with pytest.raises(TimeoutError, match="did not finish"):
            p.call(deadlock, [(torch.zeros(2),), (torch.zeros(2),)])
        assert not p.alive
        for pid in pids:
            assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z"
    finally:
        p.close()


def keeps_(mib, pieces):
    """Returns what the worker must keep: `pieces` tensors of mib/pieces MiB each, written (so resident)."""
    return [torch.ones(mib * 2**20 // 8 // pieces, dtype=torch.float64) for _ in range(pieces)]


def keeps_shared_(mib):
    """Keeps a tensor moved to shared memory."""
    return torch.ones(mib * 2**20 // 8, dtype=torch.float64).share_memory_()


def churns_(mib):
    """Allocates and frees big and small blocks, keeps nothing."""
    junk = [torch.ones(n, dtype=torch.float64) for n in (2**20, 3 * 2**17, 2**10, 2**21)]
    del junk
    return None


def peaks_(mib, keep):
    """Holds mib MiB for a moment, then keeps `keep` MiB of it."""
    held = torch.ones(mib * 2**20 // 8, dtype=torch.float64)
    kept = held[:keep * 2**20 // 8].clone()
    del held
    return kept


def test_a_calls_peak_is_read_from_outside(pool):
    """Meter.peaks: the highest resident memory a call reached above where it started, read from /proc
    (VmHWM, reset before the call), whatever the call kept; a later smaller call is not hidden by it."""
    pool.group(3)
    meter = Meter(pool)
    for mib, keep in ((24, 2), (8, 0), (16, 16)):
        peak = meter.peaks(peaks_, [(mib, keep)] * 3)
        assert all(abs(p - (mib + keep) * 2**20) <= 2**19 for p in peak), (
            mib, keep, [p / 2**20 for p in peak])


def test_what_a_call_returns_is_measured_from_outside_until_released(pool):
    """Meter.resident reads each worker's anonymous resident memory from /proc; what the last call returned stays
    alive until release(); the difference is what was kept, to 1/8 MiB, however the memory was cut up, after
    other calls allocated and freed blocks of many sizes."""
    pool.group(3)
    meter = Meter(pool)
    pool.call(keeps_, [(8, 4)] * 3)  # once first: one-off allocations
    for mib, pieces in ((8, 1), (24, 3), (16, 16)):
        pool.call(churns_, [(mib,)] * 3)
        pool.release()
        before = meter.resident()
        pool.call(keeps_, [(mib, pieces)] * 3)
        pool.settle()
        kept = [a - b for a, b in zip(meter.resident(), before)]
        assert all(abs(k - mib * 2**20) <= 2**17 for k in kept), (mib, pieces, [k / 2**20 for k in kept])
        pool.release()
        back = [a - b for a, b in zip(meter.resident(), before)]
        assert all(abs(b) <= 2**17 for b in back), (mib, pieces, [b / 2**20 for b in back])
    kept, flows = meter.keeps(keeps_, [(8, 2)] * 3)  # the same in one call: a first run, then the measured one
    # the ranks sent nothing (this test shares the machine's network namespace: another test's
    # processes may talk meanwhile, and show as ('other', 'other'))
    assert all(abs(k - 8 * 2**20) <= 2**17 for k in kept) and not any(flows.by(r) for r in range(3)), \
        ([k / 2**20 for k in kept], flows)
    pool.call(keeps_shared_, [(8,)] * 3)
    pool.release()
    before = meter.resident()
    pool.call(keeps_shared_, [(8,)] * 3)
    pool.settle()
    assert all(a - b >= 8 * 2**20 - 2**17 for a, b in zip(meter.resident(), before))  # shared memory counts too
    pool.release()


def test_retransmitted_bytes_are_not_counted_twice():
    """A loaded machine drops loopback packets now and then, and TCP sends those bytes again: `ss` counts them in
    bytes_sent; the meter counts each byte a worker wrote once, and the retransmissions apart (the loopback
    counter carries them)."""
    meter = object.__new__(Meter)
    meter._ss, meter._rank = "ss", {11: 0, 12: 1}
    meter._loopback = lambda: None
    lines = lambda sent, retrans: (  # noqa: E731
        "0 0 127.0.0.1:5000 127.0.0.1:6000 users:((\"python\",pid=11,fd=3))\n"
        f"\t cubic bytes_sent:{sent}{f' bytes_retrans:{retrans}' if retrans else ''} segs_out:9\n"
        "0 0 127.0.0.1:6000 127.0.0.1:5000 users:((\"python\",pid=12,fd=3))\n\t cubic bytes_sent:0 segs_out:1\n")
    meter._run = lambda argv: lines(1000, 0)
    before = meter.snapshot()
    meter._run = lambda argv: lines(141000, 40000)
    flows = meter.between(before, meter.snapshot())
    assert flows.to(0, 1) == 100000 and flows.resent == 40000, flows


def test_the_receiver_is_the_socket_with_the_addresses_swapped():
    """Linux gives one ephemeral port to connections of different processes as long as their peers differ: here
    rank 1 connected to rank 0's listener (port 6000) from port 7000, and rank 0 to a third process from port 7000
    too. Rank 0's 400 bytes went to rank 1 (the meter once read rank 0 as the receiver: the last socket listed with
    the address 127.0.0.1:7000 was rank 0's own, and a correct ring lost its points)."""
    meter = object.__new__(Meter)
    meter._ss, meter._rank = "ss", {11: 0, 12: 1}
    meter._loopback = lambda: None
    lines = lambda sent: (  # noqa: E731
        "0 0 127.0.0.1:7000 127.0.0.1:6000 users:((\"python\",pid=12,fd=3))\n\t cubic bytes_sent:0 segs_out:1\n"
        f"0 0 127.0.0.1:6000 127.0.0.1:7000 users:((\"python\",pid=11,fd=4))\n\t cubic bytes_sent:{sent} segs_out:9\n"
        "0 0 127.0.0.1:7000 127.0.0.1:8000 users:((\"python\",pid=11,fd=5))\n\t cubic bytes_sent:0 segs_out:1\n")
    meter._run = lambda argv: lines(100)
    before = meter.snapshot()
    meter._run = lambda argv: lines(500)
    flows = meter.between(before, meter.snapshot())
    assert flows.sent == {(0, 1): 400}, flows.sent


def test_the_meter_measures_the_workers_the_sandbox_lists_never_the_ones_named(tmp_path):
    """With a forked sandbox's record (grading/trusted/forkserver.py's PID 1 writes ``+pid`` for each
    worker it forks and ``-pid`` for each that ends), the ranks a pool names must be exactly
    the workers alive on that list: a decoy, or a worker the list does not hold, is refused."""
    import subprocess
    import sys

    from labkit.judge.traffic import Meter

    kids = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) for _ in range(3)]
    try:
        a, b, c = (k.pid for k in kids)
        record = tmp_path / "workers.record"
        record.write_text(f"+{a}\n+{b}\n+{c}\n-{c}\n")
        assert Meter._host_pids([b, a], os.getpid(), str(record)) == [b, a]
        with pytest.raises(RuntimeError, match=rf"Stop the other workers \(\[{b}\]\)"):
            Meter._host_pids([a], os.getpid(), str(record))
        with pytest.raises(RuntimeError, match="never on a list the notebook gives"):
            Meter._host_pids([a, c], os.getpid(), str(record))   # c has ended
        with pytest.raises(RuntimeError, match="never on a list the notebook gives"):
            Meter._host_pids([a, a], os.getpid(), str(record))
        record.write_text(f"+{a}\n+{os.getpid()}\n")              # not a child of the sandbox's PID 1
        with pytest.raises(RuntimeError, match="not forked by its PID 1"):
            Meter._host_pids([a, os.getpid()], os.getpid(), str(record))
    finally:
        for k in kids:
            k.kill()
            k.wait()


def test_bytes_sent_by_processes_that_are_not_ranks_are_refused():
    """Trusted grading (the sandbox's own loopback counted): a process that is not one of the
    pool's ranks (a pool the kernel started itself, off the sandbox's list, while decoys on the
    list send a ring's share) sends nothing while a call is measured; the ranks' own bytes pass."""
    meter = object.__new__(Meter)
    meter._ss, meter._rank = "ss", {11: 0, 12: 1}
    lines = lambda ranks, others: (  # noqa: E731
        "0 0 127.0.0.1:5000 127.0.0.1:6000 users:((\"python\",pid=11,fd=3))\n"
        f"\t cubic bytes_sent:{ranks} segs_out:9\n"
        "0 0 127.0.0.1:6000 127.0.0.1:5000 users:((\"python\",pid=12,fd=3))\n\t cubic bytes_sent:0 segs_out:1\n"
        "0 0 127.0.0.1:7000 127.0.0.1:8000 users:((\"python\",pid=40,fd=3))\n"
        f"\t cubic bytes_sent:{others} segs_out:9\n")
    for loopback in (None, 0):   # None: self-study, the host's loopback (not counted)
        meter._loopback = lambda: loopback
        meter._run = lambda argv: lines(0, 0)
        before = meter.snapshot()
        meter._run = lambda argv: lines(240000, 4000)
        assert meter.between(before, meter.snapshot()).to(0, 1) == 240000
        meter._run = lambda argv: lines(240000, 240000)
        if loopback is None:
            assert meter.between(before, meter.snapshot()).to("other", "other") == 240000
        else:
            with pytest.raises(RuntimeError, match="not the pool's ranks sent 240000 bytes"):
                meter.between(before, meter.snapshot())


def test_a_worker_started_after_the_meter_is_refused_at_each_measurement(tmp_path):
    """The sandbox's list is read again at every measurement: a worker started after the meter
    was made (a pool started at its first call, while the decoys the meter was made on idle)
    is refused, and so is one started and ended while a call was measured."""
    meter = object.__new__(Meter)
    record = tmp_path / "workers.record"
    record.write_text("k5\n+11\n+12\n")
    meter._record, meter._ranks, meter._rank = str(record), {11, 12}, {}
    meter._ss, meter._loopback, meter._run = "ss", lambda: None, lambda argv: ""
    before = meter.snapshot()
    assert meter.between(before, meter.snapshot()).total == 0
    record.write_text("k5\n+11\n+12\n+13\n")
    with pytest.raises(RuntimeError, match=r"running in this sandbox are \[11, 12, 13\]"):
        meter.snapshot()
    record.write_text("k5\n+11\n+12\n+13\n-13\n")
    with pytest.raises(RuntimeError, match="started or ended in this sandbox while a call was measured"):
        meter.between(before, meter.snapshot())


def test_a_socket_a_rank_shares_with_another_process_is_not_that_ranks():
    """A socket is a rank's only where that rank alone holds it: a worker off the sandbox's
    list that lends its connections to a listed rank (SCM_RIGHTS) sends as "other"."""
    meter = object.__new__(Meter)
    meter._ss, meter._rank, meter._loopback = "ss", {11: 0, 12: 1}, lambda: None
    lines = lambda sent, users: (  # noqa: E731
        f"0 0 127.0.0.1:5000 127.0.0.1:6000 users:({users})\n\t cubic bytes_sent:{sent} segs_out:9\n"
        "0 0 127.0.0.1:6000 127.0.0.1:5000 users:((\"python\",pid=12,fd=3))\n\t cubic bytes_sent:0 segs_out:1\n")
    alone, lent = "(\"python\",pid=11,fd=3)", "(\"python\",pid=40,fd=7),(\"python\",pid=11,fd=9)"
    for users, key in ((alone, (0, 1)), (lent, ("other", 1))):
        meter._run = lambda argv: lines(100, users)
        before = meter.snapshot()
        meter._run = lambda argv: lines(500, users)
        assert meter.between(before, meter.snapshot()).sent == {key: 400}


def test_a_connection_whose_ends_change_hands_during_a_call_is_refused():
    """Bytes are written by the process that held a socket then: two ranks that swap the ends of their
    connection after sending (fd passing, dup2) would have rank 0's bytes to rank 1 counted as rank 1's
    to rank 0 (a ring run to the left passed as one run to the right). Refused; unchanged holders count; bytes
    on a connection opened during the call are no rank's (its ends may have been handed over before the count)."""
    meter = object.__new__(Meter)
    meter._ss, meter._rank, meter._loopback = "ss", {11: 0, 12: 1}, lambda: None
    lines = lambda sent, a, b: (  # noqa: E731
        f"0 0 127.0.0.1:5000 127.0.0.1:6000 users:((\"python\",pid={a},fd=3))\n\t cubic bytes_sent:{sent} segs_out:9\n"
        f"0 0 127.0.0.1:6000 127.0.0.1:5000 users:((\"python\",pid={b},fd=3))\n\t cubic bytes_sent:0 segs_out:1\n")
    meter._run = lambda argv: lines(100, 11, 12)
    before = meter.snapshot()
    meter._run = lambda argv: lines(500, 11, 12)
    assert meter.between(before, meter.snapshot()).sent == {(0, 1): 400}
    meter._run = lambda argv: lines(500, 12, 11)
    with pytest.raises(RuntimeError, match="changed hands"):
        meter.between(before, meter.snapshot())
    meter._run = lambda argv: ""  # a connection opened during the call: its sender is not known
    before = meter.snapshot()
    meter._run = lambda argv: lines(500, 11, 12)
    assert meter.between(before, meter.snapshot()).sent == {("other", 1): 500}


def test_traffic_on_connections_closed_before_the_count_is_refused():
    """Trusted grading: the sandbox's loopback carried more than the connections open after the
    call account for (a pool that opens its connections for a call and closes them before the
    meter looks): refused by the meter, for every notebook's checks."""
    meter = object.__new__(Meter)
    meter._ss, meter._rank = "ss", {11: 0, 12: 1}
    lines = lambda sent: (  # noqa: E731
        f"0 0 127.0.0.1:5000 127.0.0.1:6000 users:((\"python\",pid=11,fd=3))\n\t cubic bytes_sent:{sent} segs_out:9\n"
        "0 0 127.0.0.1:6000 127.0.0.1:5000 users:((\"python\",pid=12,fd=3))\n\t cubic bytes_sent:0 segs_out:1\n")
    counter = iter([0, 240000, 240000, 1240000])
    meter._loopback = lambda: next(counter)
    meter._run = lambda argv: lines(0)
    before = meter.snapshot()
    meter._run = lambda argv: lines(240000)
    assert meter.between(before, meter.snapshot()).to(0, 1) == 240000
    meter._run = lambda argv: lines(0)
    before = meter.snapshot()
    meter._run = lambda argv: lines(240000)
    with pytest.raises(RuntimeError, match="traffic on connections closed before the count"):
        meter.between(before, meter.snapshot())
