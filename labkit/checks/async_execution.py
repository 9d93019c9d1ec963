"""Checks of notebook 01 (asynchronous execution): what its test cells call, so that each cell
reads as the contract.

Each check raises an AssertionError whose message is what the learner reads. The checks run
where the test cell runs: in the learner's own kernel (Validate) on the learner's functions
and classes themselves, in trusted grading in the judge, on its proxies of them
(``labkit.judge``). The engine is watched through the notebook's given code, handed to the
checks by the test cell: every op pushed is the test's own (``OpLog.op``, served by the judge
in trusted grading) and notes on the test's clock when it ran; ``wait`` calls the engine where
it runs and notes when the call returned; ``check_order`` is the hazard rule. Real
asynchronous work for ``benchmark`` is built where the learner's code runs, from library
functions only (``learner_side``).
"""

from __future__ import annotations

import time
from typing import Any, Callable


class EngineCheck:
    """DependencyEngine(num_workers) watched through the notebook's OpLog, push_all, wait and
    check_order. ``engine`` and ``log`` are the engine and the log of the last check."""

    def __init__(self, DependencyEngine: type, OpLog: type, push_all: Callable, wait: Callable,  # noqa: N803
                 check_order: Callable):
        self.Engine, self.OpLog, self.push_all, self.wait = DependencyEngine, OpLog, push_all, wait
        self.check_order = check_order
        self.log, self.engine = OpLog(), None

    def new_engine(self, num_workers: int) -> Any:
        self.engine = self.Engine(num_workers=num_workers)
        return self.engine

    def push_returns_at_once_and_waitall_waits(self) -> None:
        """push returns before the 0.3 s op it was given has ended; waitall returns after it."""
        engine, log = self.engine, self.log
        engine.push(log.op("slow", 0.3), writes=("a",))
        pushed = time.perf_counter()
        waited = self.wait(engine, "waitall")
        start, end = log.span("slow")
        assert pushed < end, (f"push must return at once, before the 0.3 s op it was given has ended; it returned "
                              f"{pushed - end:.3f} s after the op ended (did push run fn itself?)")
        assert waited >= end, f"waitall returned {end - waited:.3f} s before the 0.3 s op ended"

    def independent_ops_overlap(self) -> None:
        """Two independent 0.3 s ops on 2 workers run at the same time."""
        engine, log = self.engine, self.log
        self.push_all(engine, log, [("writes a", 0.3, (), ("a",)), ("writes b", 0.3, (), ("b",))])
        self.wait(engine, "waitall")
        (s1, e1), (s2, e2) = log.span("writes a"), log.span("writes b")
        assert max(s1, s2) < min(e1, e2), (f"two independent 0.3 s ops on 2 workers should overlap; one ran "
                                           f"{max(s1, s2) - min(e1, e2):.2f} s after the other had ended")

    def wait_for_returns_when_its_writer_ends(self) -> None:
        """wait_for('fast') returns once the 0.15 s writer of 'fast' ended, before the 0.6 s writer
        of 'slow' ends."""
        engine, log = self.engine, self.log
        self.push_all(engine, log, [("writes fast", 0.15, (), ("fast",)), ("writes slow", 0.6, (), ("slow",))])
        returned = self.wait(engine, "wait_for", "fast")
        self.wait(engine, "waitall")
        fast, slow = log.span("writes fast"), log.span("writes slow")
        assert fast[1] <= returned < slow[1], (
            f"wait_for('fast') should return once the 0.15 s writer of 'fast' ended, before the 0.6 s writer of "
            f"'slow' ends: it returned {returned - fast[1]:+.2f} s after the first and {returned - slow[1]:+.2f} s "
            f"after the second")

    def wait_for_waits_for_its_own_writer(self) -> None:
        """wait_for('slow') does not return when an op on another var, pushed after it, ends."""
        engine, log = self.engine, self.log
        self.push_all(engine, log, [("writes slow first", 0.5, (), ("slow",)),
                                    ("writes fast after", 0.1, (), ("fast",))])
        returned = self.wait(engine, "wait_for", "slow")
        ended = log.spans.get("writes slow first", [(0, float("inf"))])[0][1]
        assert returned >= ended, ("wait_for('slow') returned before the 0.5 s op that writes 'slow' ended "
                                   "(did it return when 'fast' finished?)")
        self.wait(engine, "waitall")

    def respects_hazards_and_readers_overlap(self) -> None:
        """Read-after-write, write-after-read and write-after-write on x in push order; two readers
        of x overlap."""
        engine, log = self.engine, self.log
        pushed = self.push_all(engine, log, [
            ("write x=1", 0.15, (), ("x",)), ("read x", 0.0, ("x",), ()),               # read after write
            ("slow read x", 0.15, ("x",), ()), ("write x=2", 0.0, (), ("x",)),          # write after read
            ("slow write x=3", 0.15, (), ("x",)), ("write x=4", 0.0, (), ("x",)),       # write after write
            ("reader 1 of x", 0.25, ("x",), ()), ("reader 2 of x", 0.25, ("x",), ())])   # reads do not conflict
        self.wait(engine, "waitall")
        self.check_order(log, pushed, "hazards on x")
        (s1, e1), (s2, e2) = log.span("reader 1 of x"), log.span("reader 2 of x")
        assert max(s1, s2) < min(e1, e2), \
            "two readers of x do not conflict and should overlap: they ran one after the other"

    def waits_for_the_last_writer(self, p_seconds: float, q_seconds: float) -> None:
        """An op reading p and q starts after both writers, the slower one included (a new log)."""
        engine = self.engine
        self.log = log = self.OpLog()
        pushed = self.push_all(engine, log, [("writer of p", p_seconds, (), ("p",)),
                                             ("writer of q", q_seconds, (), ("q",)),
                                             ("reader of p and q", 0.0, ("p", "q"), ("r",))])
        self.wait(engine, "waitall")
        self.check_order(log, pushed, f"writers of p ({p_seconds} s) and q ({q_seconds} s), then an op reading "
                                      f"both (it waits for the last of them, not the first)")

    @staticmethod
    def settled(engine: Any, seconds: float = 5.0) -> None:
        """Returns once the engine counts no unfinished op (its ``_unfinished``, read where it
        runs), or after ``seconds``."""
        end = time.perf_counter() + seconds
        while engine._unfinished != 0 and time.perf_counter() < end:
            time.sleep(0.01)

    def error_of(self, engine: Any, method: str, *args: Any) -> Exception | None:
        """The ValueError engine.<method>(*args) raised, or None."""
        try:
            self.wait(engine, method, *args)
        except ValueError as exc:
            return exc
        return None

    def waitall_raises_once(self) -> None:
        """A failed op's ValueError is raised by the next waitall, once; the engine goes on."""
        engine, log = self.engine, self.log
        self.push_all(engine, log, [("broken y", 0.0, (), ("y",), True)])
        error = self.error_of(engine, "waitall")
        assert error is not None and "'broken y' failed on purpose" in str(error), (
            f"waitall() should raise the ValueError of the failed op, got {error!r}")
        self.push_all(engine, log, [("fine y", 0.0, (), ("y",))])
        error = self.error_of(engine, "waitall")
        assert error is None, f"the error was raised once already; the next waitall() raised {error!r}"
        log.span("fine y")

    def wait_for_raises_once(self) -> None:
        """A failed op's ValueError is raised by the next wait_for of its var, once."""
        engine, log = self.engine, self.log
        self.push_all(engine, log, [("broken z", 0.0, (), ("z",), True)])
        self.settled(engine)   # the failed op has finished: nothing writes z, and its error is kept
        error = self.error_of(engine, "wait_for", "z")
        assert error is not None and "'broken z' failed on purpose" in str(error), (
            f"wait_for('z') should raise the ValueError of the failed op, got {error!r}")
        error = self.error_of(engine, "wait_for", "z")
        assert error is None, f"the error was raised once already; the next wait_for('z') raised {error!r}"


def benchmark_times_real_work(benchmark: Callable, have_mxnet: bool, cuda: bool) -> None:
    """benchmark(work, done) of real asynchronous work (a 768x768 MXNet product, else a CUDA one),
    built where benchmark runs, takes at least 0.3 x the work's time measured here; without
    MXNet or a GPU, says so."""
    from labkit.judge.handles import learner_side

    if have_mxnet:   # real asynchronous work where there is some: MXNet's engine, else a CUDA stream
        nd = learner_side("mxnet.ndarray")   # built where benchmark() runs
        a = nd.random.uniform(shape=(768, 768))
        work, done, what = learner_side("functools").partial(nd.dot, a, a), nd.waitall, "a 768x768 MXNet product"
    elif cuda:
        lt = learner_side("torch")
        a = lt.rand(4096, 4096, device="cuda")
        work, done, what = learner_side("functools").partial(lt.mm, a, a), lt.cuda.synchronize, "a CUDA product"
    else:
        print("Neither MXNet nor a GPU here: only the fake stream above tests the sync.")
        return
    consume, starmap = learner_side("collections").deque, learner_side("itertools").starmap

    def seconds_of(call: Any) -> float:
        """call() where benchmark() runs (its result left there), then done(), on this side's clock."""
        start = time.perf_counter()
        consume(starmap(call, [()]), 0)
        done()
        return time.perf_counter() - start
    done()
    idle = min(seconds_of(done) for _ in range(3))          # the calls' own cost, no work
    reference = min(seconds_of(work) for _ in range(3)) - idle
    t = benchmark(work, done, warmup=1, repeat=3)
    assert t >= 0.3 * reference, (f"{what} takes about {reference * 1e3:.1f} ms, "
                                  f"benchmark said {t * 1e3:.3f} ms: it timed only the queueing")


class SpeedChanging:
    """A stand-in for the notebook's ``pending_work(seconds, backend)`` whose products run at
    another speed from one call to the next, as when load starts and stops: call i queues
    ``factors[i % len(factors)]`` times the work asked for. Built where ``blocks`` runs."""

    def __init__(self, pending_work: Callable, factors: tuple) -> None:
        self.pending_work, self.factors, self.calls = pending_work, tuple(factors), 0

    def __call__(self, seconds: float = 0.15, backend: str = "torch") -> Any:
        factor = self.factors[self.calls % len(self.factors)]
        self.calls += 1
        return self.pending_work(seconds * factor, backend)
