"""Checks of notebook 03 (allreduce): what its test cells call, so that each cell reads as the
contract.

Each check raises an AssertionError whose message is what the learner reads. The checks run
where the test cell runs: in the learner's own kernel (Validate) on the learner's functions
themselves, in trusted grading in the judge, on its proxies of them (``labkit.judge``).
Where a check needs what only the learner's side can observe (the memory a result lives in,
a pool of worker processes), it reads it there with library code alone, through
``labkit.judge.handles.learner_side``: no test code runs where the learner's code runs, and what
comes back are values. Expected values are computed here, from copies made before the call.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import torch

from labkit.checks import check_close, check_equal
from labkit.judge.handles import learner_side

def one_report_per_rank(reports: Any, n: int, what: str) -> list[dict]:
    """The per-rank reports of a worker pool's call (``labkit.judge.pool.Pool.call``): a list of
    ``n`` dicts, one per rank, so that a check's loop over them reads every rank's. In trusted
    grading the pool lives where the learner's code runs, and its answer may hold any number."""
    listed = type(reports) is list
    assert listed and len(reports) == n and all(type(r) is dict for r in reports), (
        f"{what}: the worker pool's call gave "
        + ("an empty list" if listed and not reports
           else f"a list of {len(reports)} ({', '.join(type(r).__name__ for r in reports[:8])})" if listed
           else f"a {type(reports).__name__}")
        + f"; expected {n} reports, a dict for each rank: the pool (labkit.judge.pool) reports every rank's call, "
        "leave it as it is")
    return reports


# ---- naive_allreduce and ring_allreduce_sim ----------------------------------------------


# The contract's inputs: 1..max_workers workers, lengths 0..max_length, every dtype a sum is
# defined for. Values are made so that every order of additions gives the same exact sum in
# the dtype (integers up to its range / N, floats as small integers times a power of two), so
# the reference is exact; integers go beyond 2**24 (int32) and 2**53 (int64).
PRECISION = {torch.float16: 11, torch.bfloat16: 8, torch.float32: 24, torch.float64: 53, torch.complex64: 24,
             torch.complex128: 53}
SUM_DTYPES = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, *PRECISION]


def allreduce_cases(max_workers: int = 4, max_length: int = 9):
    """A Hypothesis strategy: one list of buffers (one per worker) over the contract above."""
    from hypothesis import strategies as st

    @st.composite
    def cases(draw):
        n = draw(st.integers(1, max_workers))
        length = draw(st.integers(0, max_length))
        dtype = draw(st.sampled_from(SUM_DTYPES))
        if dtype in PRECISION:
            top, scale = 2 ** (PRECISION[dtype] - 3), 2.0 ** draw(st.integers(-6, 4))
            values = st.integers(-top, top)
        else:
            info = torch.iinfo(dtype)
            values = st.integers(max(info.min // n, info.min), info.max // n)
            scale = 1
        rows = draw(st.lists(st.lists(values, min_size=length, max_size=length), min_size=n, max_size=n))
        if dtype in PRECISION:
            return [(torch.tensor(row, dtype=torch.float64) * scale).to(dtype) if length
                    else torch.zeros(0, dtype=dtype) for row in rows]
        return [torch.tensor(row, dtype=torch.int64).to(dtype) if length else torch.zeros(0, dtype=dtype)
                for row in rows]

    return cases()


def exact_sum(buffers: list) -> torch.Tensor:
    """The reference: the exact element-wise sum, in the buffers' dtype."""
    wide = (torch.complex128 if buffers[0].is_complex() else torch.float64 if buffers[0].is_floating_point()
            else torch.int64)
    return torch.stack([b.to(wide) for b in buffers]).sum(0).to(buffers[0].dtype)


def describe_buffers(buffers: list) -> str:
    return f"{len(buffers)} workers, length {buffers[0].numel()}, {str(buffers[0].dtype).removeprefix('torch.')}"


def calls_kept_there(fn: Callable, cases: list, pick: Any = None) -> tuple[list, list, list, list]:
    """Call fn(buffers) for every case where the learner's code runs, keeping the buffers and
    the results there (library containers, no test code). Returns, per case: the result and
    the buffers after the call (as values), and the data addresses of the result's tensors
    and of the buffers' tensors, read there by torch's Tensor.data_ptr. ``pick``: a callable
    made there (``operator.itemgetter``) that takes the list of tensors out of a result.

    In trusted grading the buffers live in memory the judge maps and reads itself
    (``labkit.judge.outside.JudgeMapped``: the buffers after the call are what that memory holds),
    and every returned tensor is looked for in the kernel's memory where torch there says it
    is (``labkit.judge.outside.kernel_memory``): a tensor reported at an address that does not hold
    its values fails, whatever the kernel's torch was made to say."""
    from labkit.judge.outside import JudgeMapped

    builtins, itertools = learner_side("builtins"), learner_side("itertools")
    torch_there = learner_side("torch")
    deque = learner_side("collections").deque
    map_, list_ = builtins.map, builtins.list
    mapped = [JudgeMapped(list(case)) for case in cases]
    given = deque(itertools.chain(*[m.there for m in mapped]))
    kept = deque(map_(fn, given))
    # read once, and counted here: a len() asked of the kernel's container apart may not be what reading it gives
    results = list_(kept)
    count = len(results) if type(results) is list else 0
    if count != len(cases):  # a StopIteration raised by fn ends the map there, without an error
        raise AssertionError(f"the function returned for {count} of the {len(cases)} cases it was called on: it "
                             "raised StopIteration (which ends a loop silently) or stopped early")
    tensors = kept if pick is None else deque(map_(pick, kept))

    def each(method, held):
        return list_(map_(list_, map_(map_, itertools.repeat(method), held)))

    out_addresses = _one_per_case(each(torch_there.Tensor.data_ptr, tensors), len(cases), "returned buffers' addresses")
    values = _one_per_case(list_(map_(list_, tensors)), len(cases), "returned buffers")
    if pick is None:  # the values looked for in memory are the results graded, not a second answer
        for c, (case, result) in enumerate(zip(values, results)):
            assert type(result) not in (list, tuple) or (len(case) == len(result) and all(
                map(_same_bits, case, result))), (
                f"case {c}: reading the returned buffers again where your code runs gave other values than it "
                "returned")
    strides = _one_per_case(each(torch_there.Tensor.stride, tensors), len(cases), "returned buffers' strides")
    _where_they_say(values, out_addresses, strides, lambda: list_(map_(list_, tensors)))
    in_addresses = _one_per_case(each(torch_there.Tensor.data_ptr, given), len(cases), "input buffers' addresses")
    for c, (case, at) in enumerate(zip(cases, in_addresses)):
        assert len(at) == len(case), (f"case {c}: {len(case)} input buffers, but torch where your code runs gave "
                                      f"{len(at)} addresses for them")
    return results, [m.read() for m in mapped], out_addresses, in_addresses


def _same_bits(v: Any, w: Any) -> bool:
    """Two tensors of one dtype and shape holding the same bytes (NaNs included)."""
    return (isinstance(v, torch.Tensor) and isinstance(w, torch.Tensor) and v.dtype == w.dtype
            and v.shape == w.shape and torch.equal(v.reshape(-1).view(torch.uint8), w.reshape(-1).view(torch.uint8)))


def _one_per_case(read: Any, n: int, what: str) -> list[list]:
    """What a read where the learner's code runs gave: a list per case, for each of the n cases
    (checked here: a loop over fewer would leave cases unchecked)."""
    count = len(read) if type(read) is list else None
    assert count == n and all(type(x) is list for x in read), (
        f"torch where your code runs gave the {what} "
        + (f"of {count} of the {n} cases" if count is not None else f"of the {n} cases as a {type(read).__name__}")
        + " (a list for each case expected)")
    return read


SPREAD = 16   # a returned tensor's strides may spread it over at most this many times its bytes


def _where_they_say(values: list, addresses: list, strides: list, again: Callable | None = None) -> None:
    """Trusted grading: each returned tensor's values are in the learner's kernel's memory at
    the address and strides torch there reports (read by the judge; nothing to check elsewhere),
    and that memory is the tensor's own: the judge changes each one's memory (its bytes XOR a
    key of its own), ``again()`` (the returned tensors read once more through the kernel) must
    show each tensor so changed, and the judge puts the memory back. A tensor reported at the
    address of a copy that holds its values does not change; two on one memory show one key."""
    from labkit.judge.outside import kernel_memory

    spans, where = [], []
    assert len(values) == len(addresses) == len(strides), (
        f"{len(values)} cases returned, but torch where your code runs gave addresses for {len(addresses)} and strides "
        f"for {len(strides)}")
    for c, (case, at, st) in enumerate(zip(values, addresses, strides)):
        assert len(at) == len(st) == len(case), (
            f"case {c}: {len(case)} returned buffers, but torch where your code runs gave {len(at)} addresses and "
            f"{len(st)} strides for them")
        for r, (v, a, s) in enumerate(zip(case, at, st)):
            assert isinstance(v, torch.Tensor), (
                f"case {c}, returned buffer {r}: expected a torch tensor, got {type(v).__name__} {v!r:.60}")
            if not v.numel():
                continue
            assert type(a) is int and type(s) in (list, tuple) and len(s) == v.dim() \
                and all(type(k) is int for k in s), (
                    f"case {c}, returned buffer {r}: torch where your code runs gives no address and strides for it "
                    f"(data_ptr() is {a!r}, stride() is {s!r})")
            size = (1 + sum((n - 1) * abs(k) for n, k in zip(v.shape, s))) * v.element_size()
            assert size <= SPREAD * v.numel() * v.element_size() + 4096, (
                f"case {c}, returned buffer {r}: its strides {tuple(s)}, as torch where your code runs gives them, "
                f"spread its {v.numel()} values over {size} bytes of memory")
            spans.append((a, size))
            where.append((c, r, v, tuple(s)))
    got = kernel_memory(spans) if spans else None
    if got is None:
        return

    def held(data: bytes, v: torch.Tensor, s: tuple) -> torch.Tensor | None:
        if not len(data) or len(data) % v.element_size() or any(k < 0 for k in s):
            return None
        there = torch.frombuffer(bytearray(data), dtype=v.dtype).as_strided(tuple(v.shape), s)
        return there.reshape(-1).contiguous().view(torch.uint8)

    def bits(v: torch.Tensor) -> torch.Tensor:
        return v.reshape(-1).contiguous().view(torch.uint8)

    for (c, r, v, s), data in zip(where, got):
        there = held(data, v, s)
        assert there is not None and torch.equal(there, bits(v)), (
            f"case {c}, returned buffer {r}: the memory at the address torch gives for it (data_ptr) does "
            "not hold its values (read by the grader from your kernel's memory)")
    if again is None:
        return
    flipped = [(torch.frombuffer(bytearray(data), dtype=torch.uint8) ^ (1 + i % 255)).numpy().tobytes()
               if data else b"" for i, data in enumerate(got)]
    try:
        kernel_memory([], [(a, d) for (a, _), d in zip(spans, flipped)])
        now = again()
    finally:
        kernel_memory([], [(a, d) for (a, _), d in reversed(list(zip(spans, got)))])
    for (c, r, v, s), data in zip(where, flipped):
        seen = now[c][r]
        assert isinstance(seen, torch.Tensor) and seen.dtype == v.dtype and seen.shape == v.shape \
            and torch.equal(bits(seen), held(data, v, s)), (
                f"case {c}, returned buffer {r}: the memory at the address torch gives for it (data_ptr) is not "
                "its own: the grader changed that memory and the buffer did not change with it (or another "
                "returned buffer lives there too)")


def check_one_per_worker(out: Any, n: int) -> None:
    """One returned buffer per worker."""
    check_equal(len(out), n, "number of returned buffers (one per worker)")


def check_every_worker_gets(out: list, expected: torch.Tensor, what: str = "buffer returned to worker",
                            rtol: float = 1e-5, atol: float = 1e-8) -> None:
    """Every returned buffer equals ``expected`` (within rtol/atol)."""
    for r, o in enumerate(out):
        check_close(o, expected, f"{what} {r}", rtol=rtol, atol=atol)


def check_inputs_untouched(after: list, before: list) -> None:
    """Every input buffer holds after the call what it held before."""
    for r, x in enumerate(after):
        check_equal(x, before[r], f"input buffer {r} after the call (inputs must stay untouched)")


def check_own_memory(out_addresses: list, input_addresses: list) -> None:
    """Every returned buffer is a new tensor with memory of its own: no two of the returned
    and input tensors share a data address."""
    assert len(out_addresses) == len(input_addresses), (
        f"{len(input_addresses)} buffers given, but torch where your code runs gave the addresses of "
        f"{len(out_addresses)} returned ones: return one new tensor per worker")
    pointers = set(out_addresses) | set(input_addresses)
    expected = len(out_addresses) + len(input_addresses)
    assert len(pointers) == expected, (
        "every returned buffer must be a new tensor with its own memory: expected "
        f"{expected} distinct storages among inputs and outputs, got {len(pointers)}")


def order_dependent(n: int, length: int, seed: int) -> list[torch.Tensor]:
    """float32 data of wildly different magnitudes: the sum depends on the order of the additions."""
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(length, generator=g) * 10.0 ** torch.randint(-6, 7, (length,), generator=g)
            for _ in range(n)]


def replay(buffers: list, trace: list) -> tuple[list, list, list]:
    """Apply a trace (steps < N-1 add, later steps overwrite); returns the buffers and, per
    worker and chunk, how many times each worker's data is in it, after the reduce-scatter
    and at the end."""
    n = len(buffers)
    work = [b.clone() for b in buffers]
    chunks = [torch.tensor_split(w, n) for w in work]
    held = [[torch.eye(n, dtype=torch.int64)[w] for _ in range(n)] for w in range(n)]
    after_reduce_scatter = held
    for step in range(2 * (n - 1)):
        if step == n - 1:
            after_reduce_scatter = [row[:] for row in held]
        moves = [(dst, c, chunks[src][c].clone(), held[src][c]) for st, src, dst, c in trace if st == step]
        for dst, c, data, counts in moves:
            if step < n - 1:
                chunks[dst][c].add_(data)
                held[dst][c] = held[dst][c] + counts
            else:
                chunks[dst][c].copy_(data)
                held[dst][c] = counts
    return work, after_reduce_scatter, held


def _transfers(trace: Any) -> list[tuple]:
    return [tuple(int(v) for v in t) for t in trace]


def check_steps(trace: Any, n: int) -> None:
    """The trace's steps are 0 .. 2(N-1)-1, and at every step every worker sends exactly once."""
    trace = _transfers(trace)
    check_equal(sorted({t[0] for t in trace}), list(range(2 * (n - 1))), f"N={n}: step numbers in the trace")
    for s in range(2 * (n - 1)):
        check_equal(sorted(src for st, src, _, _ in trace if st == s), list(range(n)),
                    f"N={n}, step {s}: senders (every worker sends exactly once)")


def check_right_neighbour(trace: Any, n: int) -> None:
    """Every transfer goes to the sender's right neighbour, with a chunk index in 0..N-1."""
    for s, src, dst, c in sorted(_transfers(trace)):
        check_equal(dst, (src + 1) % n, f"N={n}, step {s}: receiver of worker {src}'s chunk (its right neighbour)")
        assert 0 <= c < n, f"N={n}, step {s}: chunk index must be in 0..{n - 1}, got {c}"


def check_reduce_scatter(data: list, trace: Any) -> None:
    """Replaying the trace, after the reduce-scatter every worker holds one complete chunk,
    a different one on each worker."""
    n = len(data)
    _, middle, _ = replay(data, _transfers(trace))
    complete = [[c for c in range(n) if bool((middle[w][c] == 1).all())] for w in range(n)]
    check_equal([len(cs) for cs in complete], [1] * n,
                f"N={n}: complete chunks per worker after the reduce-scatter, replaying your trace")
    check_equal(len({cs[0] for cs in complete}), n, f"N={n}: different chunks complete on the {n} workers "
                f"after the reduce-scatter (found {complete})")


def check_all_complete(data: list, trace: Any) -> None:
    """Replaying the trace, at the end every chunk of every worker holds every worker's data once."""
    n = len(data)
    _, _, end = replay(data, _transfers(trace))
    for w in range(n):
        for c in range(n):
            check_equal(end[w][c].tolist(), [1] * n, f"N={n}: how many times each worker's data is in chunk {c} "
                        f"of worker {w} at the end, replaying your trace")


def check_replay_gives(out: list, data: list, trace: Any) -> None:
    """Replaying the trace on the data gives the returned buffers bit for bit."""
    n = len(data)
    replayed, _, _ = replay(data, _transfers(trace))
    for w in range(n):
        assert torch.equal(out[w], replayed[w]), (
            f"N={n}: worker {w}'s buffer is not what replaying your trace gives on data whose float sum depends on "
            f"the order of additions (max difference {(out[w] - replayed[w]).abs().max().item():.3g}): the trace "
            "must record the transfers your code made")


def check_trace(ring_allreduce_sim: Callable, n: int, length: int, seed: int) -> None:
    """Every check of a ring's trace, on order-dependent data of n workers."""
    data = order_dependent(n, length, seed)
    out, trace = ring_allreduce_sim([x.clone() for x in data])
    check_steps(trace, n)
    check_right_neighbour(trace, n)
    check_reduce_scatter(data, trace)
    check_all_complete(data, trace)
    check_replay_gives(out, data, trace)


# ---- tree_ring_crossover -------------------------------------------------------------------

def tree_time(n: int, m: float, alpha: float, beta: float) -> float:
    """The alpha-beta model's tree allreduce of m bytes over n workers."""
    return 2 * math.ceil(math.log2(n)) * (alpha + m * beta)


def ring_time(n: int, m: float, alpha: float, beta: float) -> float:
    """The alpha-beta model's ring allreduce of m bytes over n workers."""
    return 2 * (n - 1) * alpha + 2 * (n - 1) / n * m * beta


def check_crossover(tree_ring_crossover: Callable, n: int, alpha: float, beta: float) -> None:
    """At the returned size the model's tree and ring take equal time, below it the tree wins,
    above it the ring; 0.0 where the tree never wins (n <= 3)."""
    m = tree_ring_crossover(n, alpha, beta)
    what = f"n={n}, alpha={alpha:g}, beta={beta:g}"
    if n <= 3:
        check_equal(float(m), 0.0, f"{what}: the crossover (the tree is never faster here)")
        return
    check_close(tree_time(n, m, alpha, beta), ring_time(n, m, alpha, beta), f"{what}: tree time at your "
                f"crossover {m:.6g} bytes, against the ring's", rtol=1e-9)
    assert tree_time(n, 0.9 * m, alpha, beta) < ring_time(n, 0.9 * m, alpha, beta), (
        f"{what}: below {m:.6g} bytes the tree should win")
    assert tree_time(n, 1.1 * m, alpha, beta) > ring_time(n, 1.1 * m, alpha, beta), (
        f"{what}: above {m:.6g} bytes the ring should win")


# ---- ring_allreduce_ across real processes ---------------------------------------------------

HEADERS_PER_STEP, RECEIPTS_PER_STEP = 256, 128


def sum_of(per_rank: list) -> torch.Tensor:
    """What every rank must hold afterwards, computed here from copies made before the call."""
    x = torch.stack([t.clone() for t in per_rank])
    wide = torch.float64 if x.is_floating_point() else torch.int64
    return x.to(wide).sum(0).to(x.dtype)


def ring_inputs(n: int, shape: tuple, dtype: torch.dtype, transposed: bool, seed: int) -> list:
    """Every rank's tensor (a transposed case hands the ranks non-contiguous .t() views)."""
    g = torch.Generator().manual_seed(seed)
    stored = shape[::-1] if transposed else shape
    made = [torch.randn(stored, generator=g).to(dtype) if dtype.is_floating_point
            else torch.randint(-1000, 1000, stored, generator=g).to(dtype) for _ in range(n)]
    return [t.t() for t in made] if transposed else made


def check_returned(reports: list, what: str) -> None:
    """Every rank's call returned the tensor it was given (argument 0)."""
    for r, report in enumerate(reports):
        assert report["returned"] == 0, (f"{what}, rank {r}: ring_allreduce_ returned a {report['returned_type']}; "
                                         "it must return the tensor it was given, summed in place")


def check_sum_in_place(reports: list, expected: torch.Tensor, what: str, exact: bool) -> None:
    """Every rank's argument holds the sum after the call (exactly, or within 1e-4)."""
    for r, report in enumerate(reports):
        mine = report["args"][0]
        if exact:
            assert torch.equal(mine, expected), (
                f"{what}, rank {r}: your tensor after the call is {mine.flatten()[:8].tolist()}..., expected "
                f"{expected.flatten()[:8].tolist()}... "
                f"(max difference {(mine.double() - expected.double()).abs().max().item():g})")
        else:
            check_close(mine, expected, f"{what}, rank {r}: your tensor after the call", rtol=1e-4, atol=1e-4)


def check_returned_and_values(reports: list, expected: torch.Tensor, what: str, exact: bool) -> None:
    """``check_returned`` and ``check_sum_in_place``."""
    check_returned(reports, what)
    check_sum_in_place(reports, expected, what, exact)


def check_only_right(flows: Any, n: int, what: str) -> None:
    """Each rank sends data only to its right neighbour (its receipts to the left stay small),
    and nothing at all to any other process: a ring never talks to a rank beyond its two
    neighbours, which any collective (a barrier, an allreduce of a flag) does on 4 ranks."""
    for r in range(n if n > 1 else 0):
        right, left = (r + 1) % n, (r - 1) % n
        sent = {peer: b for (src, peer), b in flows.sent.items() if src == r}
        beyond = {peer: b for peer, b in sent.items() if peer not in (left, right) and b}
        assert not beyond, (
            f"{what}, rank {r}: sent {sum(beyond.values())} bytes to processes that are not its neighbours "
            f"(bytes by receiving rank: {sent}); a ring exchanges messages with its left and right neighbours "
            f"only: no collective (a barrier or an allreduce talks to every rank)")
        elsewhere = flows.elsewhere(r, right)
        assert elsewhere <= 2 * (n - 1) * RECEIPTS_PER_STEP, (
            f"{what}, rank {r}: sent {elsewhere} bytes to processes other than its right neighbour {right} "
            f"(bytes by receiving rank: {sent}); a ring sends data only to the right, and its receipts to the left "
            f"stay under {2 * (n - 1) * RECEIPTS_PER_STEP} bytes")


def check_ring_share(flows: Any, n: int, numel: int, element_size: int, what: str) -> None:
    """Each rank sends its right neighbour at most a ring's share (2(N-1) chunks of ceil(numel/N)
    elements, plus headers) and, with data to send, something; all ranks together send at
    least 2(N-1) times the tensor (in trusted grading the meter itself refuses traffic that the
    connections it counts do not account for, and traffic of processes that are not ranks)."""
    if n == 1:
        return
    share = 2 * (n - 1) * -(-numel // n) * element_size
    for r in range(n):
        right = (r + 1) % n
        to_right = flows.to(r, right)
        assert to_right <= share + 2 * (n - 1) * HEADERS_PER_STEP, (
            f"{what}, rank {r}: sent {to_right} bytes to its right neighbour; a ring sends at most 2(N-1) chunks of "
            f"ceil(numel/N) elements = {share} bytes, plus headers (up to {2 * (n - 1) * HEADERS_PER_STEP})")
        if numel:
            assert to_right > 0, f"{what}, rank {r}: sent nothing to its right neighbour; with N > 1 every rank sends"
    if numel:
        total, least = sum(flows.to(r, (r + 1) % n) for r in range(n)), 2 * (n - 1) * numel * element_size
        assert total >= least, (f"{what}: the ranks sent {total} bytes in all; an allreduce of {numel * element_size} "
                                f"bytes over {n} ranks sends at least 2(N-1) x that = {least}")


def check_bytes(flows: Any, n: int, numel: int, element_size: int, what: str) -> None:
    """``check_only_right`` and ``check_ring_share``."""
    check_only_right(flows, n, what)
    check_ring_share(flows, n, numel, element_size, what)


class RingCall:
    """One call of ring_allreduce_ on every rank: what each rank's call reported, the sum
    expected, and the bytes counted from outside the processes while it ran."""

    def __init__(self, reports: list, expected: torch.Tensor, flows: Any, what: str, exact: bool, n: int):
        # the world size is the test's: the pool's answer, where the learner's code runs, may report any number of ranks
        self.reports = one_report_per_rank(reports, n, what)
        self.expected, self.flows, self.what, self.exact, self.n = expected, flows, what, exact, n

    def returns_its_argument(self) -> None:
        """Every rank's call returned the tensor it was given."""
        check_returned(self.reports, self.what)

    def gives_every_rank_the_sum(self) -> None:
        """Every rank's tensor holds the sum of all ranks' tensors after the call."""
        check_sum_in_place(self.reports, self.expected, self.what, self.exact)

    def sends_only_to_its_right_neighbour(self) -> None:
        """Each rank sends data to its right neighbour alone."""
        check_only_right(self.flows, self.n, self.what)

    def sends_a_rings_share_of_bytes(self) -> None:
        """Each rank sends a ring's share of the bytes, no more, and the ranks together no less."""
        check_ring_share(self.flows, self.n, self.expected.numel(), self.expected.element_size(), self.what)


class RingPool:
    """Worker processes where the learner's code runs (``labkit.judge.pool.shared_pool``, made
    there from library code), and a meter that counts, from outside them, the bytes they send."""

    def __init__(self, size: int):
        from labkit.judge.traffic import Meter

        self.pool = learner_side("labkit.judge.pool").shared_pool(size)
        self.meter = Meter(self.pool)

    def call(self, fn: Callable, per_rank: list, exact: bool) -> RingCall:
        """fn(tensor) on len(per_rank) ranks at once, rank r given per_rank[r]."""
        n, shape, dtype = len(per_rank), tuple(per_rank[0].shape), per_rank[0].dtype
        layout = "transposed view of " if not per_rank[0].is_contiguous() else ""
        what = f"world size {n}, {layout}{shape} {str(dtype).removeprefix('torch.')}"
        expected = sum_of(per_rank)
        self.pool.group(n)
        with self.meter.watch() as flows:
            reports = self.pool.call(fn, [(t,) for t in per_rank])
        return RingCall(reports, expected, flows, what, exact, n)
