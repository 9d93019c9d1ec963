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
    """Findings in a live function (the learner's own kernel: Validate, self-study)."""
    code = getattr(fn, "__code__", None)
    if code is None or code in seen:
        return []
    seen.add(code)
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return [f"{fn.__name__}: its source cannot be read (define it with def in a cell)"]
    env = getattr(fn, "__globals__", {})

    def resolve(ident: str):
        obj = env.get(ident, getattr(builtins, ident, None))
        if obj is None:
            return None
        if getattr(obj, "__name__", None) in _ESCAPES:
            return "escape"
        if _root_module(obj) in _CONCURRENCY and not isinstance(obj, (int, float, str)):
            return "concurrency"
        if (isinstance(obj, types.FunctionType) and obj is not fn
                and obj.__module__ == fn.__module__):
            return lambda: _findings(obj, name, seen)  # a notebook function it calls
        return None

    return _scan(fn.__name__, ast.parse(source), name, resolve)


def _source_findings(fname: str, sources: list[str], name: str) -> list[str]:
    """Findings in the submitted source of a function (trusted grading: the judge reads the
    cells the learner handed in, never anything the learner's kernel says about itself)."""
    defs: dict[str, ast.AST] = {}
    aliases: dict[str, str] = {}
    for source in sources:
        try:
            from IPython.core.inputtransformer2 import TransformerManager
            tree = ast.parse(TransformerManager().transform_cell(source))
        except (SyntaxError, ImportError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs[node.name] = node
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}" if isinstance(node, ast.ImportFrom) \
                        else alias.name
                    aliases[alias.asname or alias.name.split(".")[0]] = full
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        defs.pop(t.id, None)  # rebound to something that is not a def
    seen: set[str] = set()

    def visit(fn_name: str) -> list[str]:
        if fn_name in seen:
            return []
        seen.add(fn_name)
        node = defs.get(fn_name)
        if node is None:
            return [f"{fn_name}: no 'def {fn_name}' found in the submitted cells (define it "
                    "with def in a cell)"]

        def resolve(ident: str):
            target = aliases.get(ident, "")
            if target.split(".")[-1] in _ESCAPES:
                return "escape"
            if target.split(".")[0] in _CONCURRENCY:
                return "concurrency"
            if ident in defs and ident != fn_name:
                return lambda: visit(ident)
            return None

        return _scan(fn_name, ast.Module(body=[node], type_ignores=[]), name, resolve)

    return visit(fname)


def _scan(fname: str, tree: ast.AST, name: str, resolve) -> list[str]:
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: list[str] = []

    def flag(node: ast.AST, why: str) -> None:
        found.append(f"{fname}: `{ast.unparse(node)}` {why}")

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
            what = resolve(node.id)
            if what == "escape":
                flag(node, "switches off PyTorch's hooks")
            elif what == "concurrency":
                flag(node, "runs work outside the calling thread")
            elif callable(what):
                found += what()
    return found


def source_casts(fn: Callable, dtype: Any) -> list[str]:
    """Places in fn's source (and notebook functions it calls) that may convert to dtype."""
    from labkit import remote

    if isinstance(fn, remote.Remote):  # trusted grading: read what was handed in
        return _source_findings(fn._target[1], remote.learner_sources(), _dtype_name(dtype))
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
