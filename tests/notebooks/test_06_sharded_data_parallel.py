"""06_sharded_data_parallel: the facts the notebook's DDP test stands on, checked on this machine.

The judged test bounds each rank's bytes by a step's gradients plus 400..800 bytes of gloo's
messages per bucket allreduce and compares parameters to the bit with a reference computed in
the judge. These tests show the bounds hold for the solution and for the buckets the test can
draw, that the reference equals the solution run in real processes to the bit, and that the
notebook's prediction (step_traffic) is what the wire carries apart from those messages."""

from __future__ import annotations

import contextlib

import re

import nbformat
import pytest
import torch
import torch.distributed as dist

from grading.course import SOLUTIONS

NOTEBOOK = SOLUTIONS / "06_sharded_data_parallel" / "06_sharded_data_parallel.ipynb"
WANTED = ("def make_model", "def bucket_plan", "class BucketedDDP", "def ddp_data", "def _check_zero_args")


def _namespace() -> dict:
    """The notebook's model, bucket plan, DDP, data and predictions, run from the solution's cells."""
    ns = {"__name__": "nb06_cells", "torch": torch, "dist": dist, "contextlib": contextlib, "math": __import__("math")}
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.lstrip().startswith(WANTED):
            source = cell.source
            if source.startswith("def make_model"):
                source = source.split("\n\n\nfor name")[0]  # the definition, not the printout
            exec(compile(source, "<nb06>", "exec"), ns)  # noqa: S102 (the course's own solution)
    for name in ("make_model", "bucket_plan", "BucketedDDP", "ddp_train_", "ddp_data", "step_traffic"):
        assert name in ns, f"the solution notebook no longer defines {name}"
    return ns


@pytest.fixture(scope="module")
def nb06():
    return _namespace()


@pytest.fixture(scope="module")
def pool():
    from labkit.judge.pool import Pool

    p = Pool(2)
    yield p
    p.close()


def _reference(nb06, start, X, y, lr):
    """The averaged data-parallel step the notebook's test computes (labkit.checks)."""
    from labkit.checks.sharded_data_parallel import DdpCheck

    return DdpCheck(None, None, None, nb06["make_model"], None).reference(start, X, y, lr)


def test_every_bucket_the_test_can_draw_has_32_elements(nb06):
    """gloo's allreduce of fewer than ~32 elements sends other messages; the test draws caps of 300 bytes and up."""
    sizes = [p.numel() * p.element_size() for p in nb06["make_model"]().parameters()]
    for cap in range(300, 20001, 7):
        for bucket in nb06["bucket_plan"](sizes, cap):
            assert sum(sizes[i] for i in bucket) // 8 >= 32, (cap, bucket)


@pytest.mark.parametrize("steps,micro,batch,lr,cap", [(2, 1, 8, 0.5, 1000), (3, 2, 5, 1.0, 300), (2, 3, 4, 0.25, 10**6)])
def test_solution_matches_the_reference_to_the_bit_and_the_byte_bounds(nb06, pool, steps, micro, batch, lr, cap):
    from labkit.judge.traffic import Meter

    start = [p.detach().clone() for p in nb06["make_model"](3).parameters()]
    X, y = nb06["ddp_data"](2, steps, micro, batch, 5)
    expected = _reference(nb06, start, X, y, lr)
    sizes = [p.numel() * p.element_size() for p in start]
    plan = nb06["bucket_plan"](sizes, cap)
    # the prediction of Exercise 3, bucket by bucket, is the data part (even buckets: no padding)
    predicted = steps * sum(nb06["step_traffic"](sum(sizes[i] for i in b) // 8, 2, 0, torch.float64) for b in plan)
    seen = []
    for _ in range(3):  # gloo now and then sends one collective's messages several times over on a busy machine
        with Meter(pool).watch() as flows:
            reports = pool.call(nb06["ddp_train_"], [([p.clone() for p in start], X[r], y[r], lr, cap) for r in range(2)])
        for report in reports:
            assert all(torch.equal(a, b) for a, b in zip(report["args"][0], expected))
        per_collective = [(flows.to(r, 1 - r) - steps * sum(sizes)) / (steps * len(plan)) for r in range(2)]
        seen.append(per_collective)
        if all(400 <= c <= 800 for c in per_collective) and \
                all(abs(flows.to(r, 1 - r) - predicted - steps * len(plan) * 576) <= 8 * steps * len(plan) for r in range(2)):
            return
    raise AssertionError(f"bytes of messages per allreduce, per rank, in three runs: {seen} (576 expected)")


def _released_cells(grade_id: str) -> str:
    """The source of a cell of the learner's release (notebooks/), hidden tests already stripped."""
    from grading.course import NOTEBOOKS

    nb = nbformat.read(NOTEBOOKS / NOTEBOOK.parent.name / NOTEBOOK.name, as_version=4)
    return "\n".join(c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def test_the_released_ddp_test_holds_no_bucket_plan():
    """Exercise 1's reference plan lives in hidden tests only: the visible DDP test counts buckets without it."""
    visible = _released_cells("test_bucketed_ddp")
    assert "ddp.matches_the_averaged_step(" in visible
    assert "size >= cap" not in visible and "def _plan" not in visible


def _markdown() -> str:
    return "\n".join(c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells if c.cell_type == "markdown")


def test_what_the_notebook_says_ddp_does_is_what_torch_does():
    """Exercise 1's note on torch's DDP and Exercise 2's on wait(), against torch's own code."""
    import sys

    from torch.nn.parallel.distributed import _BucketCapacityConfig

    text = _markdown()
    assert "the real one also makes the first bucket small" not in text
    assert "in the first iteration every parameter is in one bucket" in text
    assert "rebuilds the buckets in the order the gradients actually became ready" in text
    assert "on NCCL it makes the current CUDA stream wait" in text
    default = _BucketCapacityConfig.create(None, None, False)
    assert default.compute_bucket_size_limits(static_graph=False, find_unused_parameters=False)[0] == [sys.maxsize]
    assert default.compute_bucket_size_limits(static_graph=False, find_unused_parameters=True)[0] == [2**20, 25 * 2**20]
    assert dist._DEFAULT_FIRST_BUCKET_BYTES == 2**20 and "`dist._DEFAULT_FIRST_BUCKET_BYTES` (1 MiB)" in text
    set_cap = _BucketCapacityConfig.create(4, None, False)
    assert set_cap.compute_bucket_size_limits(static_graph=False, find_unused_parameters=True)[0] == [4 * 2**20]
    mixed = [torch.zeros(10), torch.zeros(10, dtype=torch.float64), torch.zeros(10)]
    assert dist._compute_bucket_assignment_by_size(mixed, [10**6], [False] * 3)[0] == [[0, 2], [1]]


def test_the_zero_widget_figures_are_what_step_memory_gives(nb06):
    """The GB and GiB next to the widget: 7.5B parameters with Adam in mixed precision, as the cell prints them."""
    text = _markdown()
    ddp = sum(nb06["step_memory"](int(7.5e9), 1, 0, torch.bfloat16, "adam").values())
    zero3 = sum(nb06["step_memory"](int(7.5e9), 64, 3, torch.bfloat16, "adam").values())
    assert f"{ddp / 1e9:.0f} GB per device for DDP in mixed precision is {ddp / 2**30:.1f} GiB" in text
    assert f"ZeRO-3's {zero3 / 1e9:.1f} GB on 64 devices is {zero3 / 2**30:.1f} GiB" in text
    assert "step_memory(int(7.5e9)" in "\n".join(c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells)
    assert "about 60%" not in _released_cells("test_bucketed_ddp")
    assert "at most 6 blocks" not in text


def test_torchrun_cell_prints_one_line_per_rank_and_one_line_for_a_failure():
    """The ranks' lines are whole; a failure is one line naming the rank and its error, without torchrun's log."""
    ns: dict = {}
    exec("import os, subprocess, sys, tempfile, textwrap", ns)  # noqa: S102 (the cell's imports, from the set-up cell)
    for cell in nbformat.read(NOTEBOOK, as_version=4).cells:
        if cell.cell_type == "code" and cell.source.startswith("SCRIPT = textwrap"):
            exec(compile(cell.source.split("\n\nif GRADING:")[0], "<nb06>", "exec"), ns)  # noqa: S102
    code, printed, failure = ns["torchrun"](ns["SCRIPT"], 2)
    assert code == 0 and failure is None, failure
    assert sorted(line.split(":")[0] for line in printed) == ["rank 0/2 (LOCAL_RANK 0)", "rank 1/2 (LOCAL_RANK 1)"]
    code, printed, failure = ns["torchrun"](ns["SCRIPT"], 2, env={"FAIL_RANK": "1"})
    assert code == 1 and printed == []
    # the rank's own exit code: 1, or -6 when its process aborts on the way out (gloo's teardown, now and then)
    assert re.fullmatch(r"rank 1 failed first \(exit code (1|-6)\): RuntimeError: rank 1 fails on purpose at step 10",
                        failure or ""), failure


@pytest.fixture(scope="module")
def fsdp2(nb06):
    """The FSDP2 cells of section 4 (their definitions; the launches skip as in grading mode)."""
    ns = {**nb06, "GRADING": True}
    for cell in nbformat.read(NOTEBOOK, as_version=4).cells:
        if cell.get("id") in ("fsdp2-mixed", "fsdp2-prefetch"):
            exec(compile(cell.source, "<nb06>", "exec"), ns)  # noqa: S102 (the course's own cells)
    return ns


def test_fsdp2_bf16_policy_halves_the_all_gather_bytes_and_trains_alike(fsdp2, pool):
    """MixedPrecisionPolicy(bf16, fp32): a step sends float32's bytes less half its all-gather bytes (measured from
    outside, second step alone), and the trained parameters are within 2^-6 of the largest update of float32's."""
    from labkit.judge.traffic import Meter

    width, meter = 256, Meter(pool)
    g = torch.Generator().manual_seed(1)
    X = [torch.randn(2, 8, 8, generator=g) for _ in range(2)]
    y = [torch.randint(0, 3, (2, 8), generator=g) for _ in range(2)]
    half = fsdp2["fsdp2_predicted"](width, 2, 4, 4, 1.0)[0] / 2  # what BF16 all-gathers save on float32's
    seen = []
    for _ in range(3):  # gloo now and then sends one collective's messages several times over on a busy machine
        sent, trained = {}, {}
        for mixed in (False, True):
            for steps in (1, 2):
                with meter.watch() as flows:
                    reports = pool.call(fsdp2["fsdp2_train_"], [(width, X[r][:steps], y[r][:steps], 0.5, mixed, {})
                                                                for r in range(2)])
                sent[mixed, steps] = flows.to(0, 1)
            pool.release()
            trained[mixed] = [torch.cat(parts) for parts in zip(*(r["args"][5]["shards"] for r in reports))]
        saved = (sent[False, 2] - sent[False, 1]) - (sent[True, 2] - sent[True, 1])
        seen.append(saved)
        if abs(saved - half) <= 0.01 * half:
            break
    else:
        raise AssertionError(f"bytes the policy saved per step in three runs: {seen}, {half:.0f} expected")
    start = fsdp2["make_model"](width=width).float()
    update = max((w - s).abs().max().item() for w, s in zip(trained[False], start.parameters()))
    diff = max((a - b).abs().max().item() for a, b in zip(trained[True], trained[False]))
    assert 0 < diff <= 2**-6 * update, (diff, update)


def test_fsdp2_prefetch_issues_the_next_all_gather_before_this_forward(fsdp2, pool):
    """Default: each layer's all-gather comes after the forward before it; with forward prefetch, layer i+1's
    all-gather is issued before layer i's forward, and with backward prefetch of two, L0's before L2's backward ends."""
    g = torch.Generator().manual_seed(2)
    x, y = torch.randn(8, 8, generator=g), torch.randint(0, 3, (8,), generator=g)
    orders = {}
    for prefetch in (False, True):
        reports = pool.call(fsdp2["fsdp2_order_"], [(32, x.clone(), y, prefetch, []) for _ in range(2)])
        pool.release()
        orders[prefetch] = [r["args"][4] for r in reports]
    for rank in range(2):
        default, early = orders[False][rank], orders[True][rank]
        for order in (default, early):
            assert order.count("all-gather L1") == 2 and order.count("reduce-scatter L1") == 1, order
        for i in range(2):
            assert default.index(f"all-gather L{i + 1}") > default.index(f"forward L{i}"), default
            assert early.index(f"all-gather L{i + 1}") < early.index(f"forward L{i}"), early
        back = [early[early.index("loss.backward()"):], default[default.index("loss.backward()"):]]
        assert back[0].index("all-gather L0") < back[0].index("backward L2 done"), early
        assert back[1].index("all-gather L0") > back[1].index("backward L2 done"), default
