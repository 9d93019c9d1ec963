"""Hidden tests by contract: the learner's function against the reference on generated inputs.

A test names the learner's function, the reference, the input space (argument name ->
Hypothesis strategy) and, where the contract promises more than a return value, the state to
compare; ``agrees`` does the rest::

    agrees(transfer_time, reference_transfer_time,
           {"nbytes": SIZES, "bandwidth_gb_s": BANDWIDTHS, "latency_us": LATENCIES},
           examples=[(0, 1, math.inf)], rtol=1e-12)

Each drawn case is deep-copied twice; the reference is called on one copy and the learner's
function on the other (positionally, in the order of ``inputs``), and everything the contract
promises is compared:

- the return value, type included: ``int`` is not a NumPy float that compares equal, a
  ``float32`` tensor is not a ``float64`` one, a tuple is not a list (values exact, or within
  ``rtol``/``atol``; NaN matches NaN);
- every argument after the call (what an in-place function did to each one);
- ``state(result, *args)``, called on each side after its call: any other state the contract
  names (an object's attributes, a counter), as a dict of name -> value;
- errors: where the reference raises, the learner's function must raise the same type, and
  its message must name the arguments the reference's message names and no other argument
  (the reference's message is the spec: ``"nbytes must not be negative"`` names ``nbytes``).

A failing case is shrunk by Hypothesis to its smallest, and the AssertionError shows the call,
what was expected and what came back. ``refuses`` checks "one argument out of range at a time:
ValueError naming it, and only it".

Both run unchanged in a learner's own kernel (Validate) and in trusted grading, where the
learner's function is a ``labkit.judge`` proxy: arguments cross by value, results come back
as plain data, and in-place changes to *tensor* arguments (also inside lists, tuples and
dicts) are mirrored onto the judge's copies. Other arguments (a list mutated in place) come
back unchanged in the judge: compare their effect through ``state`` on a returned value, or
use tensors. Settings are built per test with ``deadline=None, database=None,
report_multiple_bugs=False``, so the judge's cap, scale and seed of generated examples
(``labkit.judge.reset._limit_examples``, ``_restore_generators``) apply; explicit ``examples``
always run, whatever the cap.
"""

from __future__ import annotations

import copy
import math
import re
from typing import Any, Callable, Iterable, Mapping

__all__ = ["agrees", "refuses", "same", "show"]

_LIMIT = 300
_VALUES = (int, float, complex, str, bytes, type(None))  # immutable: identity says nothing


def show(x: Any, limit: int = _LIMIT) -> str:
    """A short repr for messages: arrays and tensors as dtype, shape and first values."""
    mod = type(x).__module__ or ""
    if mod.startswith("torch") and hasattr(x, "dtype") and hasattr(x, "shape") \
            and hasattr(x, "detach"):
        head = f"tensor({_first(x)}, dtype={x.dtype}, shape={tuple(x.shape)}"
        if x.device.type != "cpu":
            head += f", device='{x.device}'"
        text = head + ")"
    elif mod.startswith("numpy") and hasattr(x, "shape") and getattr(x, "ndim", 0):
        text = f"array({_first(x)}, dtype={x.dtype}, shape={x.shape})"
    elif mod.startswith("numpy") and hasattr(x, "dtype"):
        text = f"numpy.{type(x).__name__}({x!r})"
    elif hasattr(x, "asnumpy") and hasattr(x, "context"):
        text = f"NDArray({_first(x.asnumpy())}, dtype={x.dtype}, ctx={x.context})"
    elif type(x) in (list, tuple):
        inner = ", ".join(show(v, limit) for v in x)
        text = f"[{inner}]" if type(x) is list else f"({inner}{',' if len(x) == 1 else ''})"
    elif type(x) is dict:
        text = "{" + ", ".join(f"{k!r}: {show(v, limit)}" for k, v in x.items()) + "}"
    else:
        text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _first(x: Any, n: int = 8) -> str:
    try:
        if x.device.type == "meta":
            return "..."
        flat = x.detach().reshape(-1)[:n].cpu()
        if str(flat.dtype) in ("torch.bfloat16", "torch.float16"):
            flat = flat.float()
        values = flat.tolist()
    except AttributeError:
        values = x.reshape(-1)[:n].tolist()
    except (RuntimeError, TypeError):  # dtypes without arithmetic (quantized, packed)
        return "..."
    more = ", ..." if _numel(x) > n else ""
    return "[" + ", ".join(repr(v) for v in values) + more + "]"


def _numel(x: Any) -> int:
    return int(x.numel()) if hasattr(x, "numel") and callable(x.numel) else int(x.size)


def _kind(x: Any) -> str:
    mod = type(x).__module__ or ""
    if mod.startswith("torch") and hasattr(x, "detach") and hasattr(x, "dtype"):
        return "tensor"
    if mod.startswith("numpy") and hasattr(x, "dtype") and hasattr(x, "shape"):
        return "ndarray" if getattr(x, "ndim", 0) or type(x).__name__ == "ndarray" else "scalar"
    if mod.startswith("mxnet") and hasattr(x, "asnumpy") and hasattr(x, "context"):
        return "mxnet"
    return ""


def _type_name(x: Any) -> str:
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _float_differs(a: float, b: float, rtol: float, atol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return not (math.isnan(a) and math.isnan(b))
    if a == b:
        return False
    if math.isinf(a) or math.isinf(b):
        return True
    return not (rtol or atol) or abs(a - b) > atol + rtol * abs(b)


def _array_differs(a: Any, b: Any, rtol: float, atol: float, bits: int = 0) -> str | None:
    """Where two NumPy arrays of one dtype and shape differ (None if nowhere). ``bits``: 1,
    the signs of zeros count too; 2, every bit counts (NaN payloads too)."""
    import numpy as np

    if bits == 2 and a.dtype.kind in "fc":
        def raw(v):
            return np.ascontiguousarray(v).view(f"u{v.dtype.itemsize}")

        bad = raw(a) != raw(b)
    elif a.dtype.kind in "fc":
        a64, b64 = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64), \
            b.astype(np.complex128 if b.dtype.kind == "c" else np.float64)
        nan_a, nan_b = np.isnan(a64), np.isnan(b64)
        with np.errstate(invalid="ignore", over="ignore"):
            bad = (nan_a != nan_b) | (~nan_a & ~nan_b & (a64 != b64))
            if rtol or atol:
                finite = np.isfinite(a64) & np.isfinite(b64)
                close = np.zeros_like(bad)
                close[finite] = np.abs(a64[finite] - b64[finite]) <= atol + rtol * np.abs(b64[finite])
                bad &= ~close
        if bits and a.dtype.kind == "f":
            bad |= (a64 == 0) & (b64 == 0) & (np.signbit(a64) != np.signbit(b64))
    else:
        bad = a != b
    bad = np.asarray(bad)
    if not bad.any():
        return None
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    if bits and a.dtype.kind == "f":
        def hexa(v):
            return f" (0x{int(np.asarray(v[where]).view(f'u{v.dtype.itemsize}')):0{2 * v.dtype.itemsize}X})"

        return (f"{int(bad.sum())} of {bad.size} elements differ, first at index {list(where)}: "
                f"expected {b[where]!r}{hexa(b)}, got {a[where]!r}{hexa(a)}")
    return (f"{int(bad.sum())} of {bad.size} elements differ, first at index {list(where)}: "
            f"expected {b[where]!r}, got {a[where]!r}")


def _tensor_values(t: Any):
    """A tensor's values as a NumPy array (bit patterns for dtypes NumPy lacks)."""
    import torch

    t = t.detach().cpu().resolve_conj().resolve_neg()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view("u2").astype("u4").__lshift__(16).view("f4")
    try:
        return t.numpy()
    except TypeError:  # no NumPy dtype: compare raw bytes
        return t.contiguous().reshape(-1).view(torch.uint8).numpy()


def same(got: Any, want: Any, rtol: float = 0.0, atol: float = 0.0, where: str = "",
         bits: int = 0) -> str | None:
    """None if ``got`` matches ``want`` (exact types, dtypes, shapes, devices and values, or
    values within rtol/atol); else a sentence saying where and how they differ. Objects that
    compare only by identity match any object of their type: compare their state instead.
    ``bits=1``: floats equal bit for bit but NaN's payload (a zero's sign counts); ``bits=2``:
    every bit."""
    at = f"{where}: " if where else ""
    kind_w = _kind(want)
    if type(got) is not type(want):
        return (f"{at}expected a {_type_name(want)} {show(want)}, got a {_type_name(got)} "
                f"{show(got)}")
    if kind_w == "tensor":
        if got.dtype != want.dtype:
            return f"{at}expected dtype {want.dtype}, got {got.dtype}"
        if tuple(got.shape) != tuple(want.shape):
            return f"{at}expected shape {tuple(want.shape)}, got {tuple(got.shape)}"
        if got.device != want.device:
            return f"{at}expected a tensor on {want.device}, got one on {got.device}"
        if want.device.type == "meta":
            return None
        diff = _array_differs(_tensor_values(got), _tensor_values(want), rtol, atol, bits)
        if diff:
            return f"{at}{diff}"
        g_grad, w_grad = getattr(got, "grad", None), getattr(want, "grad", None)
        if w_grad is not None or g_grad is not None:
            return same(g_grad, w_grad, rtol, atol, f"{where}.grad" if where else ".grad", bits)
        return None
    if kind_w in ("ndarray", "scalar", "mxnet"):
        if kind_w == "mxnet" and got.context != want.context:
            return f"{at}expected an NDArray on {want.context}, got one on {got.context}"
        g, w = (got.asnumpy(), want.asnumpy()) if kind_w == "mxnet" else (got, want)
        if g.dtype != w.dtype:
            return f"{at}expected dtype {w.dtype}, got {g.dtype}"
        if g.shape != w.shape:
            return f"{at}expected shape {w.shape}, got {g.shape}"
        import numpy as np
        diff = _array_differs(np.asarray(g).reshape(np.shape(g)), np.asarray(w), rtol, atol, bits)
        return f"{at}{diff}" if diff else None
    if type(want) in (list, tuple):
        if len(got) != len(want):
            return f"{at}expected {len(want)} items, got {len(got)}: {show(got)}"
        for i, (g, w) in enumerate(zip(got, want)):
            diff = same(g, w, rtol, atol, f"{where}[{i}]", bits)
            if diff:
                return diff
        return None
    if type(want) is dict:
        if set(got) != set(want):
            return f"{at}expected keys {sorted(map(repr, want))}, got {sorted(map(repr, got))}"
        for k in want:
            diff = same(got[k], want[k], rtol, atol, f"{where}[{k!r}]", bits)
            if diff:
                return diff
        return None
    if type(want) is float:
        if _float_differs(got, want, rtol, atol) or (bits and got == want == 0 and
                                                     math.copysign(1, got) != math.copysign(1, want)):
            tol = f" (rtol={rtol}, atol={atol})" if rtol or atol else ""
            return f"{at}expected {want!r}, got {got!r}{tol}"
        return None
    if type(want) is complex:
        if _float_differs(got.real, want.real, rtol, atol) or \
                _float_differs(got.imag, want.imag, rtol, atol):
            return f"{at}expected {want!r}, got {got!r}"
        return None
    if type(want).__eq__ is object.__eq__:
        return None  # no value to compare (an object compared by identity): see ``state``
    try:
        equal = bool(got == want)
    except Exception:  # noqa: BLE001 (an object without a plain ==)
        equal = got is want
    return None if equal else f"{at}expected {show(want)}, got {show(got)}"


def _call(fn: Callable, args: list) -> tuple[Any, BaseException | None]:
    try:
        return fn(*args), None
    except AssertionError:
        raise
    except Exception as exc:  # noqa: BLE001 (an exception is part of what is compared)
        return None, exc


def _words(name: str) -> set[str]:
    """How a message may mention an argument: its name, or its first word (``latency`` for
    ``latency_us``) when that word is not short."""
    head = name.split("_")[0]
    return {name} | ({head} if len(head) >= 4 else set())


def _names(message: str, name: str) -> bool:
    """Whether ``message`` names the argument: its name as a word of its own."""
    return bool(re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message))


def _mentions(message: str, name: str) -> bool:
    """Whether ``message`` mentions the argument: a word of 4 or more letters anywhere in it
    (``bandwidths`` mentions ``bandwidth_gb_s``), a shorter one as a word of its own."""
    return any(w in message if len(w) >= 4 else
               re.search(rf"(?<![A-Za-z0-9]){re.escape(w)}(?![A-Za-z0-9])", message)
               for w in _words(name))


def _error_differs(exc: BaseException, want: BaseException, names: list[str],
                   only: bool | Iterable[str] = True) -> str | None:
    """Where the learner's exception differs from the reference's: its type, and the
    arguments its message names (those the reference's message names; with ``only``, no
    other)."""
    if not isinstance(exc, type(want)):
        return (f"expected {type(want).__name__} ({want}), got {type(exc).__name__}: {exc}")
    text, spec = str(exc), str(want)
    named = [n for n in names if _names(spec, n)]
    missing = [n for n in named if not _names(text, n)]
    if missing:
        return (f"the {type(want).__name__} should name the argument {' and '.join(missing)}, "
                f"got: {text}")
    others = [n for n in _others(names, only) if n not in named and _mentions(text, n)]
    if named and others:
        return (f"only {' and '.join(named)} is wrong here, but the "
                f"{type(want).__name__} also names {' and '.join(others)}: {text}")
    return None


def _others(names: list[str], only: bool | Iterable[str]) -> list[str]:
    """The arguments an error must not name besides the wrong one: all (``only=True``),
    none (False), or those listed."""
    if only is True:
        return list(names)
    return [] if only is False else [n for n in names if n in set(only)]


def _settings(max_examples: int, shrink: bool = True):
    from hypothesis import HealthCheck, Phase, settings

    phases = list(Phase) if shrink else [Phase.explicit, Phase.generate]
    return settings(max_examples=max_examples, deadline=None, database=None,
                    report_multiple_bugs=False, phases=phases,
                    suppress_health_check=list(HealthCheck))


def _as_dict(case: Any, names: list[str]) -> dict:
    if isinstance(case, Mapping):
        return dict(case)
    case = tuple(case)
    if len(case) != len(names):
        raise ValueError(f"an example needs {len(names)} values ({', '.join(names)}), "
                         f"got {len(case)}")
    return dict(zip(names, case))


def check_call(fn: Callable, reference: Callable, args: list, names: list[str], *,
               name: str, rtol: float = 0.0, atol: float = 0.0,
               state: Callable[..., Mapping] | None = None,
               compare: Callable[[Any, Any], str | None] | None = None,
               errors: bool = True, only: bool | Iterable[str] = True,
               bitwise: bool = False) -> None:
    """One case of ``agrees``: call both on deep copies of ``args`` and compare everything."""
    mine, theirs = copy.deepcopy(args), copy.deepcopy(args)
    call = f"{name}({', '.join(show(a, 120) for a in args)})"
    want, want_exc = _call(reference, theirs)
    got, got_exc = _call(fn, mine)
    if want_exc is not None:
        if got_exc is None:
            raise AssertionError(f"{call} should raise {type(want_exc).__name__} ({want_exc}), "
                                 f"but it returned {show(got)}")
        if errors:
            diff = _error_differs(got_exc, want_exc, names, only)
            if diff:
                raise AssertionError(f"{call}: {diff}") from got_exc
        return
    if got_exc is not None:
        raise AssertionError(f"{call} raised {type(got_exc).__name__}: {got_exc}; expected it "
                             f"to return {show(want)}") from got_exc
    diff = compare(got, want) if compare is not None else same(got, want, rtol, atol,
                                                                bits=int(bitwise))
    if diff:
        if not diff.startswith("expected"):
            diff = f"returned {show(got)}, expected {show(want)}: {diff}"
        raise AssertionError(f"{call}: {diff}")
    for n, g, w in zip(names, mine, theirs):
        # an immutable value says nothing by identity: a reference's 0.0 may be the very
        # object passed as an argument 0.0 (one constant), the learner's another 0.0
        if (got is g) != (want is w) and not isinstance(w, _VALUES):
            raise AssertionError(f"{call} returned " + (
                f"its argument {n} itself; expected a new object" if got is g else
                f"a new object; expected its argument {n} itself (changed in place)"))
        diff = same(g, w, rtol, atol, n, bits=2 * bitwise)
        if diff:
            raise AssertionError(f"{call} changed its argument {n} as it should not: after the "
                                 f"call {diff} (expected {show(w)}, found {show(g)})")
    if state is not None:
        g_state, w_state = state(got, *mine), state(want, *theirs)
        for key in w_state:
            diff = same(g_state.get(key), w_state[key], rtol, atol, key)
            if diff:
                raise AssertionError(f"after {call}: {diff}")


def _parameters(fn: Callable) -> list[str]:
    """The names of ``fn``'s parameters in call order (empty if they cannot be read)."""
    import inspect

    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def agrees(fn: Callable, reference: Callable, inputs: Mapping[str, Any] | Any, *,
           examples: Iterable = (), rtol: float = 0.0, atol: float = 0.0,
           state: Callable[..., Mapping] | None = None,
           compare: Callable[[Any, Any], str | None] | None = None,
           assume: Callable[..., bool] | None = None, errors: bool = True,
           only: bool | Iterable[str] = True, bitwise: bool = False, max_examples: int = 20,
           name: str | None = None, shrink: bool = True) -> None:
    """Check that ``fn`` keeps ``reference``'s contract on inputs drawn from ``inputs``.

    ``inputs`` maps each argument's name (in call order) to a Hypothesis strategy, or is one
    strategy that draws such a dict (for arguments drawn together: a dtype and a value of
    it); both functions are called positionally, in the order of ``inputs`` (of the
    reference's parameters for one strategy drawing dicts with their names), on deep copies
    of each drawn case. Compared: the
    result (exact type, dtype, shape, device, values: exactly, or within ``rtol``/``atol``;
    or by ``compare(got, want)``, which returns None or what differs), every argument after
    the call, ``state(result, *args)`` (a dict of name -> value) and, where the reference
    raises, the error's type and the arguments its message names (``only``: and no other
    argument, or none of those listed; ``errors=False``: the type alone). ``bitwise``: floats in results must match
    bit for bit but NaN payloads (-0.0 is not 0.0), arguments every bit. A result that is
    one of the arguments (``is``) must be so where the reference's is. ``examples`` are cases that always run (tuples in call order, or dicts);
    ``assume(*args)`` false skips a case. Raises AssertionError on the smallest failing
    case found (``shrink=False``: on the first one, where each case is costly, such as a
    model's training steps or a round trip per call)."""
    from hypothesis import assume as skip
    from hypothesis import example, given, strategies as st

    label = name or getattr(reference, "__name__", None) or "function"
    label = label.removeprefix("reference_").removeprefix("ref_")
    joint = isinstance(inputs, st.SearchStrategy)
    strategy = inputs if joint else st.fixed_dictionaries(
        {n: (s if isinstance(s, st.SearchStrategy) else st.just(s)) for n, s in inputs.items()})

    order = list(inputs) if not joint else _parameters(reference)

    def run(case):
        if not isinstance(case, Mapping):
            raise TypeError(f"the inputs strategy of {label} must draw dicts, got {case!r}")
        if set(case) == set(order):  # call order, not the dict's: Hypothesis shuffles
            case = {n: case[n] for n in order}  # fixed_dictionaries' keys (its issue #3906)
        names, args = list(case), list(case.values())
        if assume is not None:
            skip(assume(*args))
        check_call(fn, reference, args, names, name=label, rtol=rtol, atol=atol, state=state,
                   compare=compare, errors=errors, only=only, bitwise=bitwise)

    test = given(strategy)(run)
    for case in reversed(list(examples)):  # in the order given
        if not joint:
            case = _as_dict(case, list(inputs))
        elif not isinstance(case, Mapping):
            raise ValueError(f"examples of {label}: with one strategy for all inputs, give "
                             "each example as a dict")
        test = example(dict(case))(test)
    _settings(max_examples, shrink)(test)()


def refuses(fn: Callable, valid: Mapping[str, Any], invalid: Mapping[str, Any], *,
            error: type[BaseException] = ValueError, examples: Iterable = (),
            only: bool | Iterable[str] = True, max_examples: int = 20,
            name: str | None = None) -> None:
    """Check that ``fn`` raises ``error`` naming the one argument out of range (``only``: and
    no other argument; a list: none of those).

    ``valid`` maps every argument (in call order) to a strategy of values in range;
    ``invalid`` maps some of them to strategies of values out of range. Each case draws a
    valid call and puts one out-of-range value in it. ``examples`` are (argument name,
    full call as a tuple or dict) pairs that always run."""
    from hypothesis import given, strategies as st

    names = list(valid)
    label = name or getattr(fn, "__name__", None) or "function"
    wrong = sorted(invalid)

    def check(bad: str, args: dict) -> None:
        call = f"{label}({', '.join(show(args[n], 120) for n in names)})"
        try:
            got = fn(*[copy.deepcopy(args[n]) for n in names])
        except error as exc:
            text = str(exc)
            if not _names(text, bad):
                raise AssertionError(f"{call}: the {error.__name__} should name {bad}, "
                                     f"got: {text}") from None
            others = [n for n in _others(names, only) if n != bad and _mentions(text, n)]
            if others:
                raise AssertionError(f"{call}: only {bad} is wrong, but the {error.__name__} "
                                     f"also names {' and '.join(others)}: {text}") from None
        except AssertionError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise AssertionError(f"{call} should raise {error.__name__} about {bad}, got "
                                 f"{type(exc).__name__}: {exc}") from exc
        else:
            raise AssertionError(f"{call} should raise {error.__name__} about {bad}, "
                                 f"but it returned {show(got)}")

    @given(bad=st.sampled_from(wrong), data=st.data())
    def test(bad, data):
        args = {n: data.draw(s if isinstance(s, st.SearchStrategy) else st.just(s), label=n)
                for n, s in valid.items() if n != bad}
        args[bad] = data.draw(invalid[bad], label=bad)
        check(bad, args)

    for bad, case in list(examples):
        check(bad, _as_dict(case, names))
    _settings(max_examples)(test)()
