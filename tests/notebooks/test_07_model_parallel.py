"""Notebook 07's given code: the simulated communicator's values and byte counts, the pipeline simulator, the
timeline widget, and the tensor-parallel MLP on real gloo processes."""

from __future__ import annotations

import itertools

import pytest
import torch

from labkit import workers
from tests.harness import notebook_namespace

NB = "07_model_parallel"
PLACEMENTS_2D = ["B", "P", "S(0)", "S(1)"]


@pytest.fixture(scope="module")
def ns():
    """The solution notebook's code cells up to the timeline widget, run as in grading mode (demos shrink)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NBGRADER_EXECUTION", "autograde")
        return notebook_namespace(NB, until="def draw_pipeline(")


def test_sim_comm_collectives_compute_what_torch_distributed_does(ns):
    g = torch.Generator().manual_seed(0)
    xs = [torch.randint(-9, 10, (5, 7), generator=g).float() for _ in range(3)]
    comm = ns["SimComm"](3)
    total = torch.stack(xs).sum(0)
    assert all(torch.equal(t, total) for t in comm.all_reduce(xs))
    assert all(torch.equal(t, w) for t, w in zip(comm.reduce_scatter(xs, 1), torch.tensor_split(total, 3, 1)))
    assert all(torch.equal(t, torch.cat(xs, 0)) for t in comm.all_gather(xs, 0))
    got = comm.all_to_all(xs, 1)
    for dst in range(3):
        assert all(torch.equal(got[dst][src], torch.tensor_split(xs[src], 3, 1)[dst]) for src in range(3))
    with pytest.raises(ValueError, match="3 tensors"):
        comm.all_reduce(xs[:2])
    assert [name for name, _ in comm.calls()] == ["all_reduce", "reduce_scatter", "all_gather", "all_to_all"]


@pytest.mark.parametrize("n", [1, 2, 4])
def test_predicted_bytes_are_what_the_conversions_send(ns, n):
    """conversion_bytes (the solution) agrees with SimComm's count of the solution's convert, for every pair, on
    sizes where every piece is equal: the prediction the learner makes is the measurement the test makes."""
    full = torch.arange(float(4 * n * 2 * n)).reshape(4 * n, 2 * n)
    for src, dst in itertools.product(PLACEMENTS_2D, repeat=2):
        comm = ns["SimComm"](n)
        out = ns["convert"](ns["place"](full, src, n), src, dst, comm)
        assert torch.equal(ns["assemble"](out, dst), full), (src, dst)
        assert comm.sent() == ns["conversion_bytes"](src, dst, full.numel() * 4, n), (src, dst, comm.calls())


@pytest.mark.parametrize("t_f, t_b", [(1.0, 1.0), (1.0, 2.0), (0.5, 3.0)])
def test_simulated_bubble_is_the_formula(ns, t_f, t_b):
    for kind, p, m in itertools.product(("afab", "1f1b"), range(1, 6), range(1, 7)):
        sched = ns["pipeline_schedule"](kind, p, m)
        _, makespan, bubble = ns["simulate"](sched, t_f, t_b)
        assert bubble == pytest.approx((p - 1) / (m + p - 1), abs=1e-12), (kind, p, m)
        assert makespan == pytest.approx((m + p - 1) * (t_f + t_b)), (kind, p, m)


def test_simulate_refuses_a_deadlock(ns):
    with pytest.raises(ValueError, match="deadlocks"):
        ns["simulate"]([[("B", 0), ("F", 0)], [("F", 0), ("B", 0)]])


def test_timeline_has_a_legend_for_its_colours(ns):
    """Forward, backward and idle named beside the chart (it had none), and kept in the figure."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 3.2))
    ns["draw_pipeline"](fig, "1f1b", 4, 6)
    legend = fig.axes[0].get_legend()
    assert legend is not None, "the pipeline chart has no legend"
    assert [t.get_text() for t in legend.get_texts()] == ["forward", "backward", "idle (the bubble)"]
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)   # as the widget draws it
    canvas.draw()
    box = legend.get_window_extent(canvas.get_renderer())
    assert box.x1 <= fig.bbox.x1 + 1, "the legend is cut off at the figure's right edge"


def test_timeline_draws_and_says_when_exercise_5_is_missing(ns):
    """The widget responds in the learner notebook too: AFAB is drawn until Exercise 5 is written."""
    from matplotlib.figure import Figure

    fig = Figure()
    ns["draw_pipeline"](fig, "1f1b", 4, 6)
    assert "bubble 33.3%" in fig.axes[0].get_title()

    def missing(*args):
        raise NotImplementedError()

    fig = Figure()
    ns["draw_pipeline"].__globals__["pipeline_schedule"], saved = missing, ns["pipeline_schedule"]
    try:
        ns["draw_pipeline"](fig, "afab", 2, 2)
    finally:
        ns["draw_pipeline"].__globals__["pipeline_schedule"] = saved
    assert "finish Exercise 5 first" in fig.axes[0].get_title()
    assert len(fig.axes[0].patches) == 2 * 2 * 2  # AFAB drawn meanwhile: 2 stages x 2 micro-batches x F, B


def test_tensor_parallel_mlp_on_gloo_processes_equals_the_unsharded_layer(ns):
    full, _ = ns["mlp_case"](2, hidden=7)
    results = workers.run(ns["tp_mlp_worker"], 2, full, backend="gloo", timeout=120)
    want = ns["mlp_reference"](*full)
    for y, dx, _ in results:
        torch.testing.assert_close(y, want[0])
        torch.testing.assert_close(dx, want[1])
    torch.testing.assert_close(torch.cat([r[2] for r in results], dim=1), want[2])


def test_torchs_parallelize_module_matches_the_learners_mlp_with_one_allreduce_each_way(ns):
    """PyTorch's ColwiseParallel/RowwiseParallel on a DeviceMesh of 2 gloo processes gives the solution's outputs
    and gradients on the same inputs, and issues one allreduce forward and one backward, as Megatron's f and g."""
    full, shards = ns["mlp_case"](2, hidden=8)
    results = workers.run(ns["dtensor_mlp_worker"], 2, full, backend="gloo", timeout=120)
    mine = ns["tp_mlp_step"](*shards, ns["SimComm"](2))
    for r, (y, dx, dw1, forward, backward) in enumerate(results):
        torch.testing.assert_close(y, mine[0][r])
        torch.testing.assert_close(dx, mine[1][r])
        torch.testing.assert_close(dw1, mine[2][r])
        assert forward == {"all_reduce": 1} and backward == {"all_reduce": 1}, (forward, backward)


def _released(grade_id: str | None = None) -> str:
    """The learner's release (notebooks/), hidden tests already stripped: one cell's source, or every cell's."""
    import nbformat

    from grading.course import NOTEBOOKS

    nb = nbformat.read(NOTEBOOKS / NB / f"{NB}.ipynb", as_version=4)
    return "\n".join(c.source for c in nb.cells
                     if grade_id is None or c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def test_the_released_tests_hand_over_no_answer():
    """Exercise 1/2's routes, Exercise 5's 1F1B lists and warm-up count and Exercise 6's formula are hidden tests."""
    convert, schedule, bubble = (_released(g) for g in ("test_convert", "test_pipeline_schedule", "test_bubble_fraction"))
    assert "check_convert(" in convert and "check_schedule(" in schedule and "bubble_fraction(" in bubble
    for collective in ("all_reduce", "reduce_scatter", "all_gather", "all_to_all"):
        assert collective not in convert, collective
    for formula in ("p - s - 1", "p - s)", "m + p - 1", "3 / 7"):
        assert formula not in schedule and formula not in bubble, formula
    before_exercise_6 = _released().split("### Exercise 6")[0]
    assert "p - s - 1" not in before_exercise_6 and "p - s`" not in before_exercise_6


def test_bubble_ratio_to_ideal_time_is_p_minus_1_over_m(ns):
    """The (p-1)/m that Megatron and the Playbook quote is the same bubble over the busy time."""
    for p, m in [(1, 3), (4, 4), (4, 16), (8, 32)]:
        afab = [[("F", i) for i in range(m)] + [("B", i) for i in range(m)] for _ in range(p)]
        f = ns["simulate"](afab)[2]
        assert f / (1 - f) == pytest.approx((p - 1) / m, abs=1e-12)


def test_summary_and_planner_say_where_their_figures_hold():
    text = _released()
    assert "whatever the order" not in text and "(p-1)/m" in text and "interleaved 1F1B" in text
    assert "Data parallelism alone does not fit" not in text


@pytest.fixture(scope="module")
def planner():
    """Section 5's budget (plan_cost), its example model and node, and the solution's best_plan."""
    return notebook_namespace(NB, containing=("def plan_cost(",), grade_ids=("best_plan",))


def test_the_planner_knows_zero_and_activations(planner):
    """ZeRO shards the state over dp as notebook 06 does; activations count in what fits, and recomputation trades
    them for a second forward; with ZeRO-3 data parallelism alone fits the 7B model on one node."""
    cost, model, node = planner["plan_cost"], planner["llama7b"], planner["node"]
    per_param = {z: cost(dict(model, zero=z), node, 8, 1, 1, 32)["state"] / model["params"] for z in range(4)}
    assert per_param == pytest.approx({0: 16, 1: 4 + 12 / 8, 2: 2 + 14 / 8, 3: 16 / 8})
    ddp, zero3 = cost(model, node, 8, 1, 1, 32), cost(dict(model, zero=3), node, 8, 1, 1, 32)
    assert not ddp["fits"] and zero3["fits"] and zero3["activations"] > 0
    assert zero3["comm"] == pytest.approx(1.5 * ddp["comm"])  # one all-gather more
    kept, again = cost(model, node, 1, 2, 4, 32), cost(dict(model, recompute=True), node, 1, 2, 4, 32)
    assert again["activations"] < kept["activations"] / 8 and again["step"] > kept["step"]
    assert planner["best_plan"](dict(model, zero=3), dict(node, memory=40e9)) == (8, 1, 1)
    assert planner["best_plan"](model, dict(node, memory=40e9)) != (8, 1, 1)


def test_the_planner_runs_whole_sequences_and_counts_messages_per_micro_batch(planner):
    """16 sequences are never cut into 32 micro-batches: m is the largest count up to the asked one that divides a
    replica's sequences; a dp that does not divide the batch is refused; tensor-parallel latency is paid per
    micro-batch and layer, also without pipeline stages."""
    cost, model, node = planner["plan_cost"], planner["llama7b"], planner["node"]
    assert [cost(model, node, dp, 8 // dp, 1, 32)["microbatches"] for dp in (1, 2, 4, 8)] == [32, 32, 16, 8]
    assert cost(dict(model, batch=48), node, 1, 8, 1, 32)["microbatches"] == 24
    with pytest.raises(ValueError, match="divide"):
        cost(dict(model, batch=64), dict(node, devices=12), 3, 4, 1, 32)
    fast = dict(node, bandwidth=float("inf"))
    one, many = (cost(model, fast, 1, 2, 1, m)["comm"] for m in (1, 32))
    assert many == pytest.approx(32 * one) and one == pytest.approx(model["layers"] * 4 * 2 * node["alpha"])


def test_the_summary_names_only_the_ranks_the_cells_run():
    assert "1, 2 and 4 simulated ranks" not in _released()


@pytest.mark.parametrize("t_f, t_b", [(1.0, 2.0), (1.0, 1.0), (3.0, 1.0)])
def test_simulated_interleaved_bubble_is_megatrons_over_v(ns, t_f, t_b):
    """Chunked schedules run in simulate: the reference's bubble is (p-1)/(vm+p-1), idle/busy (p-1)/(vm), device s
    holds v p - s chunks' activations at most, and one micro-batch sends 2 (v p - 1) messages."""
    for p, v in itertools.product(range(1, 6), range(1, 5)):
        for m in (p, 2 * p, 4 * p):
            sched = ns["interleaved_schedule"](p, m, v)
            _, makespan, bubble = ns["simulate"](sched, t_f, t_b)
            assert bubble == pytest.approx((p - 1) / (v * m + p - 1), abs=1e-12), (p, m, v)
            assert bubble / (1 - bubble) == pytest.approx((p - 1) / (v * m), abs=1e-12), (p, m, v)
            assert makespan == pytest.approx((m + (p - 1) / v) * (t_f + t_b)), (p, m, v)
            assert [ns["peak_activations"](ops) for ops in sched] == [v * p - s for s in range(p)], (p, m, v)
            assert ns["messages_per_microbatch"](sched) == (2 * (v * p - 1) if p > 1 else 0), (p, v)


def test_simulate_runs_chunk_dependencies_across_devices(ns):
    """Chunk 1 of device 0 waits for chunk 0 of the last device; the backward goes the other way; 'W' waits for 'B'."""
    spans, makespan, _ = ns["simulate"]([[("F", 0, 0), ("F", 0, 1), ("B", 0, 1), ("B", 0, 0)],
                                         [("F", 0, 0), ("F", 0, 1), ("B", 0, 1), ("B", 0, 0)]], 1.0, 2.0)
    assert [s[-2:] for s in spans[0]] == [(0.0, 0.5), (1.0, 1.5), (3.0, 4.0), (5.0, 6.0)]
    assert [s[-2:] for s in spans[1]] == [(0.5, 1.0), (1.5, 2.0), (2.0, 3.0), (4.0, 5.0)]
    assert spans[0][0] == ("F", 0, 0, 0.0, 0.5) and makespan == 6.0
    with pytest.raises(ValueError, match="deadlocks"):
        ns["simulate"]([[("F", 0, 0), ("B", 0, 0), ("F", 0, 1), ("B", 0, 1)], [("F", 0, 0), ("F", 0, 1), ("B", 0, 1), ("B", 0, 0)]])
    spans, makespan, _ = ns["simulate"]([[("F", 0), ("B", 0), ("W", 0)]], 1.0, 2.0)
    assert [s[-2:] for s in spans[0]] == [(0.0, 1.0), (1.0, 2.0), (2.0, 3.0)] and makespan == 3.0
    with pytest.raises(ValueError, match="unknown operation"):
        ns["simulate"]([[("X", 0)]])


def test_zero_bubble_h1_leaves_p_minus_1_forwards_of_bubble(ns):
    """ZB-H1 as the notebook builds it (m >= p): every operation once, idle (p-1) t_f per stage, every stage holding p."""
    for p, m in ((p, m) for p, m in itertools.product(range(1, 7), range(1, 13)) if m >= p):
        zb = ns["zero_bubble_h1"](p, m)
        for ops in zb:
            assert sorted(ops) == sorted((o, i) for o in "FBW" for i in range(m)), (p, m)
        _, makespan, bubble = ns["simulate"](zb, 1.0, 2.0)
        assert makespan == pytest.approx(3 * m + p - 1), (p, m)
        assert [ns["peak_activations"](ops) for ops in zb] == [p] * p, (p, m)
        assert bubble < ns["simulate"](ns["pipeline_schedule"]("1f1b", p, m))[2] or p == 1, (p, m)


def test_timeline_draws_interleaved_with_chunk_labels(ns):
    from matplotlib.figure import Figure

    fig = Figure()
    ns["draw_pipeline"](fig, "interleaved", 2, 4, 2)
    ax = fig.axes[0]
    assert "interleaved v=2" in ax.get_title() and "bubble 11.1%" in ax.get_title()
    assert {"0a", "0b", "3b"} <= {t.get_text() for t in ax.texts}
    fig = Figure()
    ns["draw_pipeline"](fig, "interleaved", 4, 6, 2)   # 6 is no multiple of 4: said, AFAB drawn
    assert "multiple of num_stages" in fig.axes[0].get_title()


def test_the_released_interleaved_exercise_hands_over_no_warm_up():
    """Exercise 6b's markdown and visible test state the contract, not the warm-up count."""
    text = _released().split("### Exercise 6b")[1].split("Megatron's paper gives the interleaved bubble")[0]
    for formula in ("p - s - 1", "v * p - s", "(v - 1) * p", "v p - s", "vp - s", "(v-1)p", "(v - 1)p"):
        assert formula not in text, formula
    assert "check_interleaved(" in _released("test_interleaved_schedule")


def test_simulate_takes_one_time_per_stage(ns):
    """Measured stages differ: simulate takes t_f and t_b per stage (used by the real pipeline's prediction)."""
    spans, makespan, bubble = ns["simulate"]([[("F", 0), ("B", 0)], [("F", 0), ("B", 0)]], [1.0, 2.0], [3.0, 4.0])
    assert spans == [[("F", 0, 0.0, 1.0), ("B", 0, 7.0, 10.0)], [("F", 0, 1.0, 3.0), ("B", 0, 3.0, 7.0)]]
    assert makespan == 10.0 and bubble == pytest.approx(1 - 10 / 20)
    with pytest.raises(ValueError, match="one per stage"):
        ns["simulate"]([[("F", 0), ("B", 0)]] * 3, [1.0, 2.0], 1.0)


def test_simulate_adds_message_time_between_devices_and_overhead_to_every_operation(ns):
    """t_msg delays an operation that waits for another device (not one that waits on its own device: a chunk's
    dependency on the same device, W after B); t_own comes before every operation."""
    sched = [[("F", 0), ("B", 0)], [("F", 0), ("B", 0)]]
    spans, makespan, _ = ns["simulate"](sched, 1.0, 2.0, t_msg=0.5)
    assert spans == [[("F", 0, 0.0, 1.0), ("B", 0, 5.0, 7.0)], [("F", 0, 1.5, 2.5), ("B", 0, 2.5, 4.5)]]
    spans, makespan, _ = ns["simulate"](sched, 1.0, 2.0, t_msg=0.5, t_own=0.25)
    assert makespan == pytest.approx(0.25 + 1 + 0.5 + 0.25 + 1 + 0.25 + 2 + 0.5 + 0.25 + 2)
    one_device = [[("F", 0, 0), ("F", 0, 1), ("B", 0, 1), ("B", 0, 0), ("W", 0, 0)]]
    assert ns["simulate"](one_device, 1.0, 2.0, t_msg=9.0)[1] == ns["simulate"](one_device, 1.0, 2.0)[1]


def _pipeline_case(ns, p, m, rows=3, width=8):
    g = torch.Generator().manual_seed(1)
    X, Y = (torch.randn(m * rows, width, generator=g, dtype=torch.float64) for _ in range(2))
    return ns["pipeline_stages"](p, width, layers=2, dtype=torch.float64), X, Y


def test_a_real_1f1b_pipeline_gives_one_process_gradients_in_the_schedules_order(ns):
    """The solution's 1F1B on 3 gloo processes: every stage's gradients equal one process on the whole batch; each rank
    ran its list in order, one operation at a time; F i on stage s started after F i ended on s-1, B i after B i
    ended on s+1 (one system-wide clock, time.monotonic); the activations held peak as peak_activations says."""
    p, m = 3, 5
    sched = ns["pipeline_schedule"]("1f1b", p, m)
    stages, X, Y = _pipeline_case(ns, p, m)
    results = ns["pipeline_run"](sched, stages, X, Y, steps=1)
    want = ns["one_process_grads"](stages, X, Y)
    start, end = {}, {}
    for s, (steps, grads, *_) in enumerate(results):
        for got, expected in zip(grads, want[s], strict=True):
            torch.testing.assert_close(got, expected, rtol=1e-10, atol=1e-12)
        records = steps[0]
        assert [(op, i) for op, i, *_ in records] == sched[s], s
        assert all(b <= e for *_, b, e in records) and all(a[3] <= b[2] for a, b in zip(records, records[1:])), s
        assert ns["peak_activations"]([(op, i) for op, i, *_ in records]) == ns["peak_activations"](sched[s])
        for op, i, b, e in records:
            start[op, s, i], end[op, s, i] = b, e
    for i in range(m):
        for s in range(1, p):
            assert start["F", s, i] >= end["F", s - 1, i], (s, i)
        for s in range(p - 1):
            assert start["B", s, i] >= end["B", s + 1, i], (s, i)
    assert results[0][2] > 0 and results[2][2] is None   # the ping-pong's one-way time, ranks 0 and 1 only


def test_a_real_pipeline_measures_what_pipeline_timing_reports(ns):
    """Busy time, makespan and bubble from records as simulate counts them, with each stage's mean t_f and t_b."""
    records = [[("F", 0, 10.0, 11.0), ("B", 0, 14.0, 16.0)], [("F", 0, 11.5, 12.5), ("B", 0, 12.5, 13.5)]]
    busy, makespan, bubble, t_f, t_b = ns["pipeline_timing"](records)
    assert busy == [3.0, 2.0] and makespan == 6.0 and bubble == pytest.approx(1 - 5 / 12)
    assert t_f == [1.0, 1.0] and t_b == [2.0, 1.0]


def test_idle_causes_split_each_stages_idle_time_exactly(ns):
    """Waiting for the other stage, the message in transit after that, and the stage's own overhead until it starts,
    summing to the idle time (makespan minus busy) of each stage."""
    records = [[("F", 0, 0.0, 1.0), ("B", 0, 5.0, 7.0)], [("F", 0, 1.5, 2.5), ("B", 0, 2.6, 4.0)]]
    arrivals = [{("B", 0): 4.5}, {("F", 0): 1.2}]
    causes = ns["idle_causes"](records, arrivals)
    assert causes == [pytest.approx((3.0, 0.5, 0.5)), pytest.approx((4.0, 0.2, 0.4))]
    busy, makespan, *_ = ns["pipeline_timing"](records)
    assert [sum(c) for c in causes] == pytest.approx([makespan - b for b in busy])


def test_torchs_pipelining_gives_the_same_gradients_as_one_process(ns):
    """torch.distributed.pipelining's Schedule1F1B over manual PipelineStages on 2 gloo processes (CPU) sums the
    micro-batch losses' gradients as one process does on the whole batch."""
    stages, X, Y = _pipeline_case(ns, 2, 4)
    theirs = workers.run(ns["pipelining_worker"], 2, "1f1b", stages, X, Y, 4, backend="gloo", timeout=120)
    want = ns["one_process_grads"](stages, X, Y)
    for s in range(2):
        for got, expected in zip(theirs[s], want[s], strict=True):
            torch.testing.assert_close(got, expected, rtol=1e-10, atol=1e-12)
