"""The test's view of the learner's objects (judge side, in the judge kernel).

``learner_side`` and ``owned`` are what test cells and ``labkit.checks`` call; ``Remote`` is
the handle to a name or object that lives in the learner's kernel. In the learner's own
kernel (Validate, self-study) ``_session`` is None: ``learner_side`` gives back the module
itself and ``owned`` the object, so the same test code calls the learner's functions
directly. In trusted grading ``labkit.judge.session.connect`` sets ``_session``, and every use
of a ``Remote`` is a call into the sandbox whose result comes back as plain data.

What may be trusted here: only what the judge's own session decoded (``labkit.judge.reply``).
A handle says which object the learner's kernel should use, never what that object is.
"""

from __future__ import annotations

import base64
import io
import pickle
import re
from typing import Any

_session: Any = None  # the judge's Session in trusted grading; None in the learner's kernel


def learner_side(module: str) -> Any:
    """The module ``module`` where the learner's code runs: the module itself in the learner's
    kernel; in trusted grading a handle to it inside the learner's kernel, so objects a test
    builds from its classes live there (and come back as values when read)."""
    if not _MODULE.fullmatch(module or ""):
        raise ValueError(f"not a module name: {module!r}")
    if _session is None:
        import importlib
        return importlib.import_module(module)
    return Remote(("m", module), "module", False)


def owned(obj: Any) -> Any:
    """Mark ``obj`` as the test's own: returned unchanged. In trusted grading, when it is
    passed to the learner's code (as an argument, or inside one, or in a closure), the
    learner's code gets a stand-in whose calls and attribute reads run on ``obj`` in the
    judge; the learner's kernel never holds ``obj`` or its code."""
    if _session is not None:
        _session.own(obj)
    return obj


class CallTimeout(AssertionError):
    """A call given to ``call_within`` did not return in its time."""


def call_within(seconds: float, fn: Any, *args: Any, name: str = "the call") -> Any:
    """``fn(*args)``, or ``CallTimeout`` once it has run ``seconds`` without returning. In
    trusted grading ``fn`` is the learner's, called straight from the judge under the judge's
    own time limit (the call is interrupted there): no helper of the learner's kernel stands
    between the test and what ``fn`` does. In the learner's kernel it runs on a helper thread
    (left waiting when it never returns). ``name`` says what was called, in the error."""
    what = f"{name}({', '.join(map(repr, args))})"
    if _session is None:
        import threading

        outcome: dict = {}

        def run() -> None:
            try:
                outcome["value"] = fn(*args)
            except BaseException as exc:  # noqa: BLE001 (raised again in the caller below)
                outcome["error"] = exc

        helper = threading.Thread(target=run, name="call_within", daemon=True)
        helper.start()
        helper.join(seconds)
        if helper.is_alive():
            raise CallTimeout(f"{what} did not return within {seconds} s")
        if "error" in outcome:
            raise outcome["error"]
        return outcome.get("value")
    from .wire import RemoteTimeout

    before, _session.timeout = _session.timeout, float(seconds)
    try:
        return fn(*args)
    except RemoteTimeout:
        raise CallTimeout(f"{what} did not return within {seconds} s") from None
    finally:
        _session.timeout = before


_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class Remote:
    """A name or object that lives in the learner's kernel (see the module docstring)."""

    __slots__ = ("_target", "_type", "_callable")

    def __init__(self, target: tuple, type_name: str = "", is_callable: bool = True):
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_type", type_name)
        object.__setattr__(self, "_callable", is_callable)

    def __call__(self, *args, **kwargs):
        return _session.request("call", self, (args, kwargs))

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _session.request("getattr", self, name)

    def __setattr__(self, name, value):
        _session.request("setattr", self, (name, value))

    def __getitem__(self, key):
        return _session.request("getitem", self, key)

    def __setitem__(self, key, value):
        _session.request("setitem", self, (key, value))

    def __len__(self):
        n = _session.request("len", self, None)
        if type(n) is not int:
            raise TypeError("len() of the learner's object did not return an int")
        return n

    def __iter__(self):
        items = _session.request("list", self, None)
        if type(items) is not list:
            raise TypeError("iterating the learner's object did not give a list")
        return iter(items)

    def __reduce_ex__(self, protocol):
        raise TypeError("the learner's objects live in the learner's kernel and cannot be sent "
                        "to another process from the judge: pass them to the learner's "
                        "functions, or build objects there with labkit.judge.handles.learner_side")

    def __repr__(self):
        kind, key = self._target
        what = f"'{key}'" if kind == "n" else f"object of type {self._type}"
        return f"<learner's {what}>"


def _test_code(obj: Any) -> bool:
    """A function, class or method a test cell defined, or an instance of such a class:
    sent to the learner's code by reference only (never its code)."""
    import types

    if isinstance(obj, (types.FunctionType, type)):
        return getattr(obj, "__module__", None) == "__main__"
    if isinstance(obj, types.MethodType):
        return _test_code(obj.__func__) or _test_code(obj.__self__)
    return getattr(type(obj), "__module__", None) == "__main__"


class _Dumper:
    """cloudpickle, with Remote objects sent as references to the learner's objects."""

    def __init__(self, owner: Any = None):
        import cloudpickle

        class Pickler(cloudpickle.CloudPickler):
            def persistent_id(self, obj):
                if type(obj) is Remote:
                    return obj._target
                if owner is not None and (id(obj) in owner.owned or _test_code(obj)):
                    owner.own(obj)   # the test's own code and objects stay in the judge
                    return ("j", id(obj), owner.path)
                return None

        self.Pickler = Pickler

    def dumps(self, obj) -> str:
        buf = io.BytesIO()
        self.Pickler(buf, protocol=pickle.DEFAULT_PROTOCOL).dump(obj)
        return base64.b64encode(buf.getvalue()).decode("ascii")

    def raw(self, obj) -> bytes:
        buf = io.BytesIO()
        self.Pickler(buf, protocol=pickle.DEFAULT_PROTOCOL).dump(obj)
        return buf.getvalue()


def learner_sources() -> list[str]:
    """Judge side: the code cells the learner handed in, as submitted (for checks that read
    source, such as labkit.judge.nocast.source_casts)."""
    if _session is None:
        raise RuntimeError("learner_sources() is for the judge in trusted grading")
    return list(_session.sources)
