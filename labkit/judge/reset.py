"""The judge kernel between students (judge side).

One judge kernel serves the students of a grading process one after the other
(grading/trusted/judge.py). ``judge_snapshot`` notes its state right after it boots;
``judge_reset`` puts it back between two students: the last session closed, the namespace
emptied, the course's modules imported afresh, the working folder, environment, random
generators and torch's global settings restored. Also the seed of the hidden tests'
generated inputs for a grading run, and the test suite's caps on generated examples.
"""

from __future__ import annotations

import os
import sys
from typing import Any

_fresh: dict | None = None
# the seed of the inputs hidden tests generate (Hypothesis), the same for a whole grading run
# (make autograde sets and prints it); unset: a new one per judge kernel
SEED_ENV = "COURSE_GRADING_SEED"
# the course's test suite only, never a class's grading: at most this many generated
# examples per Hypothesis test in this judge (explicit @example cases all still run). The
# suite grades each notebook's solution with every example, and its wrong-answer variants,
# whose failures explicit examples pin, with a few.
EXAMPLES_CAP_ENV = "COURSE_TEST_MAX_EXAMPLES"
# a soak run only (make soak): this many times the generated examples each Hypothesis test
# asks for, to find generated tests that a correct answer fails on a rare draw
EXAMPLES_SCALE_ENV = "COURSE_TEST_EXAMPLES_SCALE"


def _limit_examples(cap: int | None = None, scale: int = 1) -> None:
    """Every Hypothesis settings object made from now on in this process draws ``scale``
    times the examples its test asks for, and at most ``cap``."""
    from hypothesis import settings

    base = getattr(settings.__init__, "_unlimited", settings.__init__)

    def limit(n: int) -> int:
        return min(n * scale, cap) if cap else n * scale

    def limited(self, parent=None, **kwargs):
        wanted = kwargs.get("max_examples")
        if isinstance(wanted, int):
            kwargs["max_examples"] = limit(wanted)
        base(self, parent, **kwargs)

    limited._unlimited = base
    default = settings.get_profile("default").max_examples
    settings.__init__ = limited
    settings.register_profile("course-examples", max_examples=default)
    settings.load_profile("course-examples")


def _torch_state() -> dict:
    import torch

    flags = {"cuda.matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32,
             "cudnn.allow_tf32": torch.backends.cudnn.allow_tf32,
             "cudnn.deterministic": torch.backends.cudnn.deterministic,
             "cudnn.benchmark": torch.backends.cudnn.benchmark}
    return {"dtype": torch.get_default_dtype(), "grad": torch.is_grad_enabled(),
            "threads": torch.get_num_threads(), "matmul": torch.get_float32_matmul_precision(),
            "deterministic": torch.are_deterministic_algorithms_enabled(),
            "rng": torch.random.get_rng_state(), "flags": flags}


def _set_torch_state(state: dict) -> None:
    """Put back what differs from ``state`` (setting an unchanged value can cost seconds: the
    first ``set_num_threads`` or deterministic-mode call initialises torch's back ends)."""
    import torch

    now = _torch_state()
    if now["dtype"] != state["dtype"]:
        torch.set_default_dtype(state["dtype"])
    if now["grad"] != state["grad"]:
        torch.set_grad_enabled(state["grad"])
    if now["threads"] != state["threads"]:
        torch.set_num_threads(state["threads"])
    if now["matmul"] != state["matmul"]:
        torch.set_float32_matmul_precision(state["matmul"])
    if now["deterministic"] != state["deterministic"]:
        torch.use_deterministic_algorithms(state["deterministic"])
    if not torch.equal(now["rng"], state["rng"]):
        torch.random.set_rng_state(state["rng"])
    for name, value in state["flags"].items():
        if now["flags"][name] != value:
            where, attr = name.rsplit(".", 1)
            obj = torch.backends
            for part in where.split("."):
                obj = getattr(obj, part)
            setattr(obj, attr, value)


def judge_snapshot() -> None:
    """Judge side, once, right after the judge kernel has booted: note its fresh state."""
    global _fresh
    import random

    import numpy

    try:  # hidden tests draw their inputs with it: imported now, so its generator is reset too
        import hypothesis.core  # noqa: F401
    except ImportError:
        pass
    else:
        cap, scale = (os.environ.get(name, "") for name in (EXAMPLES_CAP_ENV, EXAMPLES_SCALE_ENV))
        cap = int(cap) if cap.isdigit() and int(cap) > 0 else None
        scale = int(scale) if scale.isdigit() and int(scale) > 0 else 1
        if cap or scale > 1:
            _limit_examples(cap, scale)
    seed = os.environ.get(SEED_ENV, "")
    _fresh = {"modules": set(sys.modules), "env": dict(os.environ), "cwd": os.getcwd(),
              "random": random.getstate(), "numpy": numpy.random.get_state(),
              "torch": _torch_state(),
              "seed": int(seed) if seed.isdigit() else int.from_bytes(os.urandom(8), "big")}


def _course_module(name: str, module: Any, roots: tuple[str, ...]) -> bool:
    """A module of the course or of the judge's working folder (not of the Python
    installation): such modules are imported afresh for every student."""
    if name in ("labkit", "labkit.judge", __name__):
        return False
    path = getattr(module, "__file__", None) or ""
    return name.split(".")[0] == "labkit" or (bool(path) and not path.startswith(roots))


def _restore_generators() -> None:
    """The generators back to the judge's booted state; Hypothesis's to the grading run's seed
    (every student of a judge gets the same generated inputs, and a run can be drawn again)."""
    import random

    import numpy
    import torch

    core = sys.modules.get("hypothesis.core")
    local = getattr(core, "threadlocal", None)
    if local is not None:
        local._hypothesis_global_random = random.Random(_fresh["seed"])
    random.setstate(_fresh["random"])
    numpy.random.set_state(_fresh["numpy"])
    if not torch.equal(torch.random.get_rng_state(), _fresh["torch"]["rng"]):
        torch.random.set_rng_state(_fresh["torch"]["rng"])


def judge_reset(shell: Any) -> None:
    """Judge side, between two students: back to the state ``judge_snapshot`` noted. The
    session to the last student's kernel is closed, the namespace emptied (IPython's
    reset), every module of the course or of the working folder dropped (imported afresh
    by the next student's tests), modules loaded since boot from outside the Python
    installation dropped, and the working folder, environment, random generators and
    torch's global settings put back."""
    import sysconfig

    if _fresh is None:
        raise RuntimeError("judge_snapshot() was not called when this judge booted")
    handles = sys.modules.get("labkit.judge.handles")
    if handles is not None and handles._session is not None:
        handles._session.close()
        handles._session = None
    shell.reset(new_session=False)
    roots = tuple({os.path.realpath(p) for p in
                   (sys.prefix, sys.base_prefix, sysconfig.get_paths()["stdlib"])} |
                  {p for p in (sys.prefix, sys.base_prefix)})
    for name, module in list(sys.modules.items()):
        if _course_module(name, module, roots):
            del sys.modules[name]
            parent, _, child = name.rpartition(".")
            if parent in ("labkit", "labkit.judge") and getattr(
                    sys.modules.get(parent), child, None) is module:
                # and from the course package that is kept: else `from . import x` gives the
                # dropped module back (a library's attributes stay: torch.ops is one of them)
                delattr(sys.modules[parent], child)
    os.chdir(_fresh["cwd"])
    os.environ.clear()
    os.environ.update(_fresh["env"])
    _restore_generators()
    _set_torch_state(_fresh["torch"])
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
