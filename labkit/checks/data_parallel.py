"""Checks of notebook 02 (data parallel): what its test cells call, so that each cell reads as
the contract.

Each check raises an AssertionError whose message is what the learner reads. The checks run
where the test cell runs: in the learner's own kernel (Validate) on the learner's functions
themselves, in trusted grading in the judge, on its proxies of them (``labkit.judge``).
Expected values are computed here, from copies made before the call.
"""

from __future__ import annotations

from typing import Any, Callable

from labkit.checks import check_close, check_equal


def refuses_too_few_samples(call: Callable[[], Any], n: int, k: int, what: str) -> None:
    """call() raises ValueError, its message naming both numbers (n samples, k devices)."""
    try:
        call()
    except ValueError as err:
        assert str(n) in str(err) and str(k) in str(err), (
            f"the message should name both numbers ({n} samples, {k} devices), got: {err}")
    else:
        raise AssertionError(f"{what} should raise ValueError, returned normally")


def check_ndarray_shards(split_and_load: Callable) -> None:
    """MXNet: 10 samples over the contexts cpu(0), cpu(1), cpu(2) are split 4, 3, 3, shard i on
    context i, the shards together the data."""
    import mxnet as mx
    import numpy as np
    from mxnet import nd

    ctx3 = [mx.cpu(0), mx.cpu(1), mx.cpu(2)]
    data = nd.arange(20).reshape((10, 2))
    parts = split_and_load(data, ctx3)
    check_equal([p.shape[0] for p in parts], [4, 3, 3], "shard sizes of 10 samples over 3 contexts")
    check_equal([p.context for p in parts], ctx3, "context of each shard")
    check_equal(np.concatenate([p.asnumpy() for p in parts]), data.asnumpy(), "the shards concatenated")


def returns_python_float(loss: Any) -> None:
    """The mean loss comes back as a Python float."""
    assert type(loss) is float, (
        f"train_batch should return the mean loss as a Python float; it returned a "
        f"{type(loss).__module__}.{type(loss).__name__}: {loss!r}")


def _listed(replicas: list) -> list[list]:
    """The replicas and their parameters as lists made here, by iterating what the answer
    left (a list of the learner's may answer len() with any number)."""
    return [list(params) for params in replicas]


def same_lengths(replicas: list, held: list, when: str) -> None:
    """As many replicas as were given, each with as many parameters as it held ``when``."""
    replicas = _listed(replicas)
    assert len(replicas) == len(held), (
        f"{len(replicas)} replicas after the step, {len(held)} {when}: keep the replicas list as it was")
    for r, (params, before) in enumerate(zip(replicas, held)):
        assert len(params) == len(before), (
            f"replica {r} holds {len(params)} parameters after the step, {len(before)} {when}: update them "
            "in place, keep the replica's list as it was")


def updated_in_place(replicas: list, held: list) -> None:
    """Every replica's parameters are the tensor objects it held before the step (as many
    replicas, as many parameters each)."""
    same_lengths(replicas, held, "before the step")
    for r, params in enumerate(_listed(replicas)):
        for j, p in enumerate(params):
            assert p is held[r][j], (f"replica {r}, parameter {j} is a new tensor object after the step; "
                                     "update the replica's own tensors in place")


def every_replica_equals(replicas: list, expected: list, what: str, rtol: float = 1e-4, atol: float = 1e-6) -> None:
    """Every replica's parameter j is close to expected[j] (each replica holds as many
    parameters as expected)."""
    for r, params in enumerate(_listed(replicas)):
        assert len(params) == len(expected), (
            f"replica {r} holds {len(params)} parameters after {what}, expected {len(expected)}: "
            "update each replica's parameters in place, keep its list as it was")
        for j, (p, e) in enumerate(zip(params, expected)):
            check_close(p, e, f"replica {r}, parameter {j} after {what}", rtol=rtol, atol=atol)


def train_in_mapped_memory(train_batch: Callable, X: Any, y: Any, replicas: list, lr: float) -> tuple:
    """``train_batch`` on copies of ``replicas`` (leaves that require grad) whose memory the judge
    reads itself (``labkit.judge.outside.JudgeMapped``); returns the loss it returned and what
    each replica's parameters' own memory holds afterwards. A parameter given new memory
    (``p.data = ...``, ``p.set_(...)``, a new tensor in the list) leaves the memory it was given
    as it was, whatever the learner's kernel reports of it. The replicas are built where the
    learner's code runs, with library calls only."""
    from labkit.judge.handles import learner_side
    from labkit.judge.outside import JudgeMapped

    lb, lt, chain = learner_side("builtins"), learner_side("torch"), learner_side("itertools").chain
    deque, partial = learner_side("collections").deque, learner_side("functools").partial
    mapped: list = []
    try:
        for params in replicas:
            mapped.append(JudgeMapped([p.detach() for p in params]))
            deque(lb.map(lt.Tensor.requires_grad_, chain.from_iterable(mapped[-1].there)), 0)
        there = deque(lb.map(lb.list, lb.iter([chain.from_iterable([m.there for m in mapped])])))
        loss, = lb.list(lb.map(partial(train_batch, X, y, lr=lr), there))
        return loss, [m.read() for m in mapped]
    finally:
        for m in mapped:
            m.close()
