"""The judge's reader of the learner kernel's replies (judge side).

A reply is JSON text from the sandbox: bounded in size, items and depth before it is parsed
(``_parse_reply``), then decoded (``_decode``) into plain values only: None, bools, ints,
floats, complex, str, bytes, containers, tensors, NumPy arrays and scalars, MXNet NDArrays,
dtypes, devices, and exceptions re-raised as the nearest built-in one (with the learner's
traceback as a note). Anything else is a ``Remote`` handle. Nothing from the learner's kernel
is unpickled or run here: so an answer can lie about its values and nothing else.
"""

from __future__ import annotations

import base64
import builtins
import json
import re
from typing import Any

from .handles import Remote
from .wire import MAX_DEPTH, MAX_ITEMS, LearnerCodeError

_PLAIN_EXC = {name for name in dir(builtins)
              if isinstance(getattr(builtins, name), type)
              and issubclass(getattr(builtins, name), BaseException)}


def _decode(x: Any, depth: int = 0, given: list | None = None) -> Any:
    if depth > MAX_DEPTH:
        raise ValueError("reply nested too deeply")
    if x is None or type(x) in (bool, int, str):
        return x
    if type(x) is list:
        return [_decode(v, depth + 1, given) for v in x]
    if type(x) is not dict or type(x.get("__t")) is not str:
        raise ValueError("malformed reply from the learner's kernel")
    t = x["__t"]
    if t == "arg":  # the very tensor the judge passed in (returned, or kept in a container)
        i = x["i"]
        if type(i) is not int or not given or not 0 <= i < len(given):
            raise ValueError("malformed argument reference")
        return given[i]
    if t == "float":
        return float(_str(x["v"]))
    if t == "complex":
        return complex(float(_str(x["re"])), float(_str(x["im"])))
    if t == "bytes":
        return _raw(x)
    if t in ("tuple", "set", "frozenset"):
        items = [_decode(v, depth + 1) for v in _list(x["v"])]
        return {"tuple": tuple, "set": set, "frozenset": frozenset}[t](items)
    if t == "dict":
        return {_decode(k, depth + 1, given): _decode(v, depth + 1, given) for k, v in
                (_pair(p) for p in _list(x["v"]))}
    if t == "tensor":
        import torch
        dtype = _torch_dtype(x["dtype"])
        shape = _shape(x["shape"])
        raw = _raw(x)
        if x.get("device") == "meta" and not raw:
            out = torch.empty(shape, dtype=dtype, device="meta")
            if x.get("grad") is True and (out.is_floating_point() or out.is_complex()):
                out.requires_grad_(True)
            return out
        numel = 1
        for s in shape:
            numel *= s
        itemsize = torch.empty((), dtype=dtype).element_size()
        if len(raw) != numel * itemsize:
            raise ValueError("tensor reply of the wrong size")
        flat = torch.frombuffer(bytearray(raw), dtype=torch.uint8) if raw else \
            torch.empty(0, dtype=torch.uint8)
        out = flat.view(dtype).reshape(shape).clone()
        dev = _str(x.get("device", "cpu"))
        if dev != "cpu":
            try:
                out = out.to(torch.device(dev))
            except (RuntimeError, ValueError):
                pass
        if x.get("grad") is True and (out.is_floating_point() or out.is_complex()):
            out.requires_grad_(True)
        return out
    if t == "tdtype":
        return _torch_dtype(x["v"])
    if t == "tdevice":
        import torch
        return torch.device(_str(x["v"]))
    if t in ("ndarray", "npscalar"):
        import numpy as np
        dtype = np.dtype(_str(x["dtype"]))
        if dtype.kind in "OV":
            raise ValueError("object arrays are not plain data")
        raw = _raw(x)
        if t == "npscalar":
            if len(raw) != dtype.itemsize:
                raise ValueError("scalar reply of the wrong size")
            return np.frombuffer(raw, dtype=dtype)[0]
        shape = _shape(x["shape"])
        numel = 1
        for s in shape:
            numel *= s
        if len(raw) != numel * dtype.itemsize:
            raise ValueError("array reply of the wrong size")
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    if t == "npdtype":
        import numpy as np
        dtype = np.dtype(_str(x["v"]))
        if dtype.kind in "OV":
            raise ValueError("object dtypes are not plain data")
        return dtype
    if t in ("mxnd", "mxctx"):
        import mxnet as mx
        kind, dev = _list(x["ctx"] if t == "mxnd" else x["v"])
        ctx = mx.Context(_str(kind), int(dev))
        if t == "mxctx":
            return ctx
        arr = _decode({**x, "__t": "ndarray"}, depth + 1)
        return mx.nd.array(arr, ctx=ctx, dtype=arr.dtype)
    if t == "excvalue":
        return _exception(x["v"])
    if t == "handle":
        key = x["id"]
        if type(key) is not int:
            raise ValueError("malformed handle")
        return Remote(("h", key), _str(x.get("type", "?"))[:100], x.get("callable") is True)
    raise ValueError(f"unknown reply type {t[:40]!r}")


def _str(v) -> str:
    if type(v) is not str:
        raise ValueError("malformed reply: expected a string")
    return v


def _list(v) -> list:
    if type(v) is not list:
        raise ValueError("malformed reply: expected a list")
    return v


def _pair(v) -> list:
    v = _list(v)
    if len(v) != 2:
        raise ValueError("malformed reply: expected a pair")
    return v


def _raw(x: dict) -> bytes:
    return base64.b64decode(_str(x["b64"]), validate=True)


def _shape(v) -> list[int]:
    shape = _list(v)
    if len(shape) > 64 or any(type(s) is not int or s < 0 for s in shape):
        raise ValueError("malformed shape")
    return shape


def _torch_dtype(name):
    import torch
    dtype = getattr(torch, _str(name), None)
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"unknown dtype {name!r}")
    return dtype


def _plain_exception(exc: BaseException) -> BaseException:
    """An exception of the test's object as the nearest built-in one, message only (nothing
    of the judge's frames goes to the learner's code)."""
    cls = next((k for k in type(exc).__mro__ if getattr(builtins, k.__name__, None) is k
                and k.__name__ in _PLAIN_EXC), RuntimeError)
    try:
        return cls(str(exc)[:2000])
    except Exception:  # noqa: BLE001 (a built-in with a special constructor)
        return RuntimeError(str(exc)[:2000])


def _exception(info: dict) -> BaseException:
    names = [n for n in _list(info.get("builtin", [])) if type(n) is str and n in _PLAIN_EXC]
    msg, kind = _str(info.get("msg", "")), _str(info.get("type", "Exception"))[:200]
    cls = getattr(builtins, names[0]) if names else LearnerCodeError
    if cls in (KeyboardInterrupt, SystemExit, GeneratorExit, BaseException):
        cls = LearnerCodeError
    try:
        exc = cls(msg if cls is not LearnerCodeError else f"{kind}: {msg}")
    except Exception:  # noqa: BLE001 (a built-in with a special constructor)
        exc = LearnerCodeError(f"{kind}: {msg}")
    tb = _str(info.get("tb", ""))
    if tb:
        exc.add_note("raised in your code:\n" + tb.rstrip())
    return exc


_JSON_DEPTH = 3 * MAX_DEPTH + 2  # a dict is three JSON levels; the reply wraps it in one more
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_EMPTY_PAIR = re.compile(r"\[\]|\{\}")


def _check_size(body: str) -> None:
    """Refuse a JSON reply with more than MAX_ITEMS items or nested deeper than MAX_DEPTH
    before anything is built from it (a 40 MiB ``[[],[],...]`` would become gigabytes of
    lists). Only strings are made, by regular expressions: strings cut out, then brackets,
    braces and commas counted; depth is the number of passes that remove innermost pairs."""
    bare, strings = _STRING.subn("", body)
    items = strings + bare.count(",") + bare.count("[") + bare.count("{")
    if items > MAX_ITEMS:
        raise LearnerCodeError(f"the reply has more than {MAX_ITEMS:,} items (lists, dicts, "
                               "strings, numbers): return large data as one tensor or array")
    brackets = _NOT_BRACKET.sub("", bare)
    del bare
    for _ in range(_JSON_DEPTH):
        brackets, n = _EMPTY_PAIR.subn("", brackets)
        if not brackets or not n:
            return  # empty: depth within bounds; no pair left: malformed, json.loads says so
    raise LearnerCodeError(f"the reply is nested more than {MAX_DEPTH} levels deep: return "
                           "flatter data")


def _parse_reply(raw: Any) -> dict:
    """The judge's reading of the learner's reply (JSON text), within bounds on items and
    depth; LearnerCodeError for anything else."""
    try:
        if type(raw) is not str:
            raise ValueError
        _check_size(raw)
        body = json.loads(raw)
    except (ValueError, TypeError, MemoryError, RecursionError):
        raise LearnerCodeError("no readable reply from the learner's kernel") from None
    if type(body) is not dict:
        raise LearnerCodeError("no readable reply from the learner's kernel")
    return body
