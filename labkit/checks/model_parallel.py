"""Checks of notebook 07 (model parallel): what its test cells call, so that each cell reads as
the contract.

Each check raises an AssertionError whose message is what the learner reads. The checks run
where the test cell runs: in the learner's own kernel (Validate) on the learner's functions
themselves, in trusted grading in the judge, on its proxies of them (``labkit.judge``). The
notebook's given code the checks need (its placements, its simulated communicator, its
pipeline simulator) is handed to them by the test cell. A communicator the learner's code
sends through is the test's own (``labkit.judge.handles.owned``): in trusted grading its calls are
served by the judge, so the bytes it counts are counted there.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable

import torch

from labkit.checks import check_close, check_equal
from labkit.judge.handles import learner_side, owned


def call_there(fn: Callable, *args: Any, grads: bool = False, times: int = 1) -> tuple:
    """fn(*args) where the learner's code runs, on copies of args made there (the code may hand
    them to comm as its own; library containers hold them, no test code runs there). The last
    argument is the communicator (or another argument not read back). Returns the result and the
    other arguments as they are after the call; with ``grads``, also each of those arguments'
    ``.grad`` after the call (a list of them for a list of tensors; pickling a tensor leaves its
    ``.grad`` behind, so it is read there on its own). ``times``: that many calls in a row on the
    same copies (what one call leaves behind is what the next one gets), the result then the
    list of their results."""
    deque, itertools = learner_side("collections").deque, learner_side("itertools")
    builtins, operator = learner_side("builtins"), learner_side("operator")
    held = deque([args])
    results = [builtins.list(itertools.starmap(fn, held))[0] for _ in range(times)]
    result = results[0] if times == 1 else results
    after = builtins.list(builtins.map(operator.itemgetter(slice(0, len(args) - 1)), held))[0]
    if not grads:
        return result, after
    grad, got = operator.attrgetter("grad"), []
    for i, arg in enumerate(args[:-1]):
        ith = builtins.map(operator.itemgetter(i), held)
        if isinstance(arg, list):
            got.append(builtins.list(builtins.map(grad, itertools.chain.from_iterable(ith))))
        else:
            got.append(builtins.list(builtins.map(grad, ith))[0] if isinstance(arg, torch.Tensor) else None)
    return result, after, got


class ConvertCheck:
    """convert(shards, src, dst, comm) on the notebook's placements (``place``,
    ``parse_placement``) and communicator class (``SimComm``)."""

    def __init__(self, convert: Callable, place: Callable, parse_placement: Callable, SimComm: type):  # noqa: N803
        self.convert, self.place, self.parse, self.SimComm = convert, place, parse_placement, SimComm

    def __call__(self, full: torch.Tensor, src: str, dst: str, n: int, seed: int = 0,
                 fewest: Callable | None = None) -> None:
        """The pieces, the dtype and the untouched inputs; with ``fewest``, the busiest rank's
        bytes against fewest(shards, src, dst), the least this conversion needs."""
        shards = self.place(full, src, n, torch.Generator().manual_seed(seed))
        before = [t.clone() for t in shards]
        comm = owned(self.SimComm(n))
        what = f"{src} -> {dst} on {n} ranks, shape {tuple(full.shape)}"
        out, (after, _, _) = call_there(self.convert, shards, src, dst, comm)
        assert isinstance(out, list) and len(out) == n, f"{what}: expected a list of {n} tensors, got " \
            f"{type(out).__name__} of {len(out) if isinstance(out, (list, tuple)) else '?'}"
        for r, t in enumerate(out):
            assert isinstance(t, torch.Tensor) and t.dtype == full.dtype, \
                f"{what}: rank {r} should hold a {full.dtype} tensor, got {getattr(t, 'dtype', type(t).__name__)}"
        kind, axis = self.parse(dst)
        if kind == "P":
            for r, t in enumerate(out):
                check_equal(tuple(t.shape), tuple(full.shape), f"{what}: shape of rank {r}'s summand")
            check_close(torch.stack(out).sum(0), full, f"{what}: the sum of the ranks' summands", rtol=1e-6,
                        atol=1e-5)
        else:
            want = torch.tensor_split(full, n, dim=axis) if kind == "S" else [full] * n
            for r, (t, w) in enumerate(zip(out, want)):
                check_equal(t, w, f"{what}: rank {r}'s tensor")
        check_equal(len(after), len(before), f"{what}: the number of input shards after the call (inputs must stay "
                    "untouched, their list too)")
        for r, (t, b) in enumerate(zip(after, before)):
            check_equal(t, b, f"{what}: input shard {r} after the call (inputs must stay untouched)")
        if fewest is not None:
            least, route = fewest(before, src, dst)
            assert comm.sent() == least, (f"{what}: the busiest rank sent {comm.sent()} bytes through comm "
                                          f"(calls {comm.calls()}); this conversion needs only {least} ({route})")


class MlpCheck:
    """tp_mlp_step(x, w1, b1, w2, b2, dy, comm) on the notebook's cases (``mlp_case``), its
    unsharded reference (``mlp_reference``) and communicator class (``SimComm``)."""

    def __init__(self, tp_mlp_step: Callable, mlp_case: Callable, mlp_reference: Callable,
                 SimComm: type):  # noqa: N803
        self.step, self.case, self.reference, self.SimComm = tp_mlp_step, mlp_case, mlp_reference, SimComm

    def __call__(self, n: int, batch: int, d_in: int, hidden: int, d_out: int, seed: int,
                 weights_require_grad: bool = False) -> None:
        """Outputs and every gradient on every rank equal the unsharded MLP's, the inputs
        untouched, and two allreduces' worth of bytes (Y forward, dX backward).
        ``weights_require_grad``: the pieces of W1, b1, W2 and b2 require grad, as a model's
        parameters do."""
        full, shards = self.case(n, batch, d_in, hidden, d_out, seed)
        before = [[t.clone() for t in s] if isinstance(s, list) else s.clone() for s in shards]
        if weights_require_grad:
            for s in shards[1:5]:
                for t in (s if isinstance(s, list) else [s]):
                    t.requires_grad_()
        want = self.reference(*full)
        comm = owned(self.SimComm(n))
        what = (f"{n} ranks, batch {batch}, d_in {d_in}, hidden {hidden}, d_out {d_out}"
                + (", weights that require grad" if weights_require_grad else ""))
        got, after, grads = call_there(self.step, *shards, comm, grads=True)
        assert isinstance(got, (tuple, list)) and len(got) == 6, f"{what}: expected (y, dx, dw1, db1, dw2, db2)"
        names = ("y", "dx", "dw1", "db1", "dw2", "db2")
        pieces = {"dw1": (2, 1), "db1": (3, 0), "dw2": (4, 0)}
        for name, values in zip(names, got):
            assert isinstance(values, list) and len(values) == n, f"{what}: {name} should be a list of {n} tensors"
            for r, v in enumerate(values):
                if name in pieces:
                    i, axis = pieces[name]
                    w = torch.tensor_split(want[i], n, dim=axis)[r]
                else:
                    w = want[names.index(name)]
                assert isinstance(v, torch.Tensor) and tuple(v.shape) == tuple(w.shape), \
                    f"{what}: rank {r}'s {name} should have shape {tuple(w.shape)}, got {getattr(v, 'shape', v)}"
                check_close(v, w, f"{what}: rank {r}'s {name}", rtol=1e-9, atol=1e-10)
        check_equal(len(after), len(before), f"{what}: the number of inputs after the call")
        for s, b, name in zip(after, before, ("x", "w1", "b1", "w2", "b2", "dy")):
            if isinstance(b, list):
                check_equal(len(s) if isinstance(s, list) else None, len(b), f"{what}: the number of tensors of input "
                            f"{name} after the call (inputs must stay untouched, their lists too)")
            for r, (t, u) in enumerate(zip(s, b) if isinstance(s, list) else [(s, b)]):
                check_equal(t, u, f"{what}: input {name}{f'[{r}]' if isinstance(s, list) else ''} after the call "
                            "(inputs must stay untouched)")
        for s, g, b, name in zip(after, grads, shards, ("x", "w1", "b1", "w2", "b2", "dy")):
            for r, (t, d, u) in enumerate(zip(s, g, b) if isinstance(b, list) else [(s, g, b)]):
                where = f"input {name}{f'[{r}]' if isinstance(b, list) else ''}"
                was = "requires grad" if u.requires_grad else "does not require grad"
                assert getattr(t, "requires_grad", None) == u.requires_grad, (
                    f"{what}: {where} {was} when given; after the call, not so (inputs must stay as they are: "
                    "compute gradients on copies, such as t.detach().clone().requires_grad_())")
                assert d is None, (f"{what}: {where} has a .grad after the call, none before (inputs must stay as "
                                   "they are, .grad included: compute gradients on copies)")
        need = self.SimComm(n)
        need.all_reduce([want[0]] * n)
        need.all_reduce([want[1]] * n)
        assert comm.sent() == need.sent(), (
            f"{what}: the busiest rank sent {comm.sent()} bytes through comm (calls {comm.calls()}); the layer "
            f"needs {need.sent()} (one allreduce of Y forward, one of dX backward)")


def pretty(ops: list) -> str:
    """A stage's operations as text: F0 F1 B0 ..., with chunks F0.0 F1.0 F0.1 ..."""
    return " ".join(f"{op[0]}{op[1]}" + "".join(f".{c}" for c in op[2:]) for op in ops)


def operations(got: list, what: str, holder: str) -> list:
    """A schedule as the contract states it: a list per stage (device) of tuples; plain copies of them."""
    for s, ops in enumerate(got):
        assert type(ops) is list, f"{what}: {holder} {s}'s operations should be a list, got {type(ops).__name__}"
        for op in ops:
            assert type(op) is tuple, (f"{what}: {holder} {s} holds {op!r}; each operation should be a tuple such "
                                       "as ('F', 0) (a list is not equal to one: ['F', 0] != ('F', 0))")
    return [[tuple(op) for op in ops] for ops in got]


class ScheduleCheck:
    """pipeline_schedule(kind, num_stages, num_microbatches), its step timed by the notebook's
    ``simulate``."""

    def __init__(self, pipeline_schedule: Callable, simulate: Callable):
        self.schedule, self.simulate = pipeline_schedule, simulate

    def stages(self, kind: str, p: int, m: int) -> tuple[list, str]:
        """The schedule as a list of p stages of (op, micro-batch) tuples, and how to name it."""
        got = self.schedule(kind, p, m)
        what = f"{kind}, {p} stages, {m} micro-batches"
        assert isinstance(got, list) and len(got) == p, f"{what}: expected a list of {p} stages"
        return operations(got, what, "stage"), what

    def __call__(self, kind: str, p: int, m: int) -> None:
        """The properties the section states, stage by stage: every forward and backward once,
        in micro-batch order; AFAB's forwards first; 1F1B alternating after its warm-up, its
        step no longer than AFAB's."""
        got, what = self.stages(kind, p, m)
        for s, ops in enumerate(got):
            here = f"{what}: stage {s} runs {pretty(ops)}"
            assert [op for op in ops if op[0] == "F"] == [("F", i) for i in range(m)], \
                f"{here}: expected F0 .. F{m - 1}, in order"
            assert [op for op in ops if op[0] == "B"] == [("B", i) for i in range(m)], \
                f"{here}: expected B0 .. B{m - 1}, in order"
            kinds = "".join(o for o, _ in ops)
            if kind == "afab":
                assert kinds == "F" * m + "B" * m, f"{here}: AFAB runs all forwards, then all backwards"
            else:
                steady = kinds[kinds.index("B") - 1:kinds.rindex("F") + 2]  # last warm-up F to first drain B
                assert "FF" not in steady and "BB" not in steady, \
                    f"{here}: after the warm-up, 1F1B alternates F and B until the forwards run out"
        if kind == "1f1b":
            afab = [[("F", i) for i in range(m)] + [("B", i) for i in range(m)] for _ in range(p)]
            check_close(self.simulate(got)[1], self.simulate(afab)[1],
                        f"{what}: step time (t_f 1, t_b 2) against AFAB's", rtol=1e-9)


class InterleavedCheck:
    """interleaved_schedule(num_stages, num_microbatches, num_chunks), its steps timed by the notebook's
    ``simulate``."""

    def __init__(self, interleaved_schedule: Callable, simulate: Callable):
        self.schedule, self.simulate = interleaved_schedule, simulate

    def __call__(self, p: int, m: int, v: int, ratios: list = ((1.0, 2.0),), peaks: list | None = None) -> None:
        """The properties Exercise 6b states, device by device: every forward and backward of every micro-batch
        through every chunk once; for each (t_f, t_b) of ``ratios``, an order simulate runs without deadlock in
        the step the pipe allows, m (t_f + t_b) plus (p - 1)(t_f + t_b) / v; with ``peaks``, device s holding
        at most peaks[s] chunks' activations (forwards run and backwards not yet)."""
        got = self.schedule(p, m, v)
        what = f"{p} devices, {m} micro-batches, {v} chunks"
        assert isinstance(got, list) and len(got) == p, f"{what}: expected a list of {p} lists, one per device"
        got = operations(got, what, "device")
        want = Counter((o, i, c) for o in "FB" for i in range(m) for c in range(v))
        for s, ops in enumerate(got):
            assert Counter(ops) == want, (f"{what}: device {s} runs {pretty(ops)}; expected the forward and the "
                                          f"backward of every micro-batch 0..{m - 1} through every chunk 0..{v - 1} "
                                          "once, each ('F', i, c) or ('B', i, c)")
            held = [0]
            for op in ops:
                held.append(held[-1] + (1 if op[0] == "F" else -1))
            if peaks is not None:
                assert max(held) <= peaks[s], (
                    f"{what}: device {s} runs {pretty(ops)}, holding up to {max(held)} chunks' activations; the "
                    f"shortest step needs no more than {peaks[s]} (a warm-up longer than it needs)")
        for t_f, t_b in ratios:
            try:
                step = self.simulate(got, t_f, t_b)[1]
            except ValueError as exc:
                raise AssertionError(f"{what}: {exc}") from None
            check_close(step, (m + (p - 1) / v) * (t_f + t_b), f"{what}: step time (t_f {t_f}, t_b {t_b}) against "
                        "m (t_f + t_b) of work plus (p - 1)(t_f + t_b) / v of fill and drain", rtol=1e-9)

    def refuses(self, args: tuple, name: str) -> None:
        """interleaved_schedule(*args) raises a ValueError whose message names the argument ``name``."""
        try:
            self.schedule(*args)
        except ValueError as exc:
            assert name in str(exc), f"interleaved_schedule{args}: the ValueError should name {name}; it says {exc}"
        else:
            raise AssertionError(f"interleaved_schedule{args}: expected a ValueError naming {name}")
