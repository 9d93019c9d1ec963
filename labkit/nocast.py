"""Checks that a function does not convert tensors to a forbidden dtype.

For exercises that ask for bit-level code ("round to BF16 without casting to bfloat16").
Inside the learner's own process no check is airtight: any Python can switch off a hook
or hide a cast in a thread. Two checks cover what can be checked:

- ``source_casts`` reads the function's source (and that of notebook functions it calls)
  and reports every place that converts to the dtype, or that builds a dtype at run
  time, switches off PyTorch's hooks, or runs work in another thread or process;
  merely naming the dtype where nothing is converted (``torch.finfo(torch.bfloat16)``,
  ``.view(torch.bfloat16)`` of integer bits, an error message) is fine.
- ``forbid_casts`` fails any PyTorch operator, in the calling thread, that makes a tensor
  of the dtype from a floating-point tensor of another dtype. It works at the dispatcher,
  below ``torch._C.DisableTorchFunction``.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import inspect
import textwrap
import types
from typing import Any, Callable, Iterator

__all__ = ["forbid_casts", "source_casts"]

# Calls in which naming the dtype converts nothing.
_NAMING_ONLY = {"finfo", "iinfo", "view"}
# Ways to reach an object by a name computed at run time.
_DYNAMIC = {"getattr", "eval", "exec", "compile", "__import__", "vars", "globals", "locals",
            "importlib", "__dict__", "__getattribute__"}
# Ways to switch off PyTorch's function or dispatch hooks.
_ESCAPES = {"DisableTorchFunction", "DisableTorchFunctionSubclass", "_DisableTorchDispatch",
            "_disable_current_modes", "_pop_mode", "_pop_mode_temporarily",
            "_pop_torch_function_stack", "_len_torch_function_stack", "_set_torch_function_mode",
            "_ExcludeDispatchKeyGuard", "_AutoDispatchBelowAutograd"}
# Modules that run work outside the calling thread.
_CONCURRENCY = {"threading", "_thread", "concurrent", "multiprocessing", "subprocess", "asyncio",
                "os"}


def _dtype_name(dtype: Any) -> str:
    name = str(dtype).rsplit(".", 1)[-1]
    if not name.isidentifier():
        raise ValueError(f"dtype must be a torch dtype such as torch.bfloat16, got {dtype!r}")
    return name


def _root_module(obj: Any) -> str:
    if isinstance(obj, types.ModuleType):
        return obj.__name__.split(".")[0]
    return (getattr(obj, "__module__", None) or "").split(".")[0]


def _call_name(node: ast.Call) -> str:
    return getattr(node.func, "attr", getattr(node.func, "id", ""))


def _findings(fn: Callable, name: str, seen: set) -> list[str]:
    code = getattr(fn, "__code__", None)
    if code is None or code in seen:
        return []
    seen.add(code)
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return [f"{fn.__name__}: its source cannot be read (define it with def in a cell)"]
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    env = getattr(fn, "__globals__", {})
    found: list[str] = []

    def flag(node: ast.AST, why: str) -> None:
        found.append(f"{fn.__name__}: `{ast.unparse(node)}` {why}")

    for node in ast.walk(tree):
        ident = node.attr if isinstance(node, ast.Attribute) else (
            node.id if isinstance(node, ast.Name) else None)
        if ident == name:
            parent = parents.get(node)
            naming_only = (isinstance(parent, ast.Call) and node in parent.args
                           and _call_name(parent) in _NAMING_ONLY)
            if not naming_only:
                flag(parent if isinstance(parent, ast.Call) else node, f"converts to {name}")
        elif ident in _DYNAMIC:
            parent = parents.get(node)
            literal = (ident == "getattr" and isinstance(parent, ast.Call) and len(parent.args) >= 2
                       and isinstance(parent.args[1], ast.Constant) and parent.args[1].value != name)
            if not literal:
                flag(parent if isinstance(parent, ast.Call) else node,
                     "reaches an object by a name computed at run time")
        elif ident in _ESCAPES:
            flag(node, "switches off PyTorch's hooks")
        elif ident in _CONCURRENCY:
            flag(node, "runs work outside the calling thread")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            modules += [alias.name for alias in node.names]
            if any(m.split(".")[0] in _CONCURRENCY for m in modules):
                flag(node, "runs work outside the calling thread")
            elif any(m.split(".")[-1] in _ESCAPES | {name} for m in modules):
                flag(node, "switches off PyTorch's hooks or imports the dtype")
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id != name:
            obj = env.get(node.id, getattr(builtins, node.id, None))
            if obj is None:
                continue
            if getattr(obj, "__name__", None) in _ESCAPES:
                flag(node, "switches off PyTorch's hooks")
            elif _root_module(obj) in _CONCURRENCY and not isinstance(obj, (int, float, str)):
                flag(node, "runs work outside the calling thread")
            elif (isinstance(obj, types.FunctionType) and obj is not fn
                  and obj.__module__ == fn.__module__):
                found += _findings(obj, name, seen)  # a notebook function it calls
    return found


def source_casts(fn: Callable, dtype: Any) -> list[str]:
    """Places in fn's source (and notebook functions it calls) that may convert to dtype."""
    if not callable(fn):
        raise TypeError(f"fn must be a function, got {type(fn).__name__}")
    return _findings(inspect.unwrap(fn), _dtype_name(dtype), set())


@contextlib.contextmanager
def forbid_casts(dtype: Any, what: str = "the function") -> Iterator[None]:
    """Raise AssertionError when an operator in this thread makes a dtype tensor from another float."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"dtype must be a torch.dtype such as torch.bfloat16, got {dtype!r}")

    def tensors(tree: Any) -> list:
        flat = torch.utils._pytree.tree_leaves(tree)
        return [t for t in flat if isinstance(t, torch.Tensor)]

    class Forbid(TorchDispatchMode):
        def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            inputs = tensors((args, kwargs or {}))
            if (any(t.dtype == dtype for t in tensors(out))
                    and (not inputs or any(t.is_floating_point() and t.dtype != dtype
                                           for t in inputs))):
                raise AssertionError(
                    f"{what} made a {dtype} tensor with {func}; work on the integer bits "
                    f"instead (reading integer bits with .view({dtype}) is fine)")
            return out

    with Forbid():
        yield
