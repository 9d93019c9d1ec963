"""Checks that a function rounds by bit-level operations, not by a conversion.

For exercises that ask for bit-level code ("round to BF16 without casting to bfloat16").
A cast to BF16 gives exactly the right answer, so no test of the results can see it; what
decides is the code. Two checks:

- ``source_casts`` reads code and reports every operation outside an allow-list
  (``ALLOWED``): integer views of a float tensor (``.view(torch.int32)``) and
  ``.view(torch.float32)`` back, a view as another float format only when read back at once
  (``.view(torch.bfloat16).float()``), ``.to`` an integer dtype written out, the operators
  ``>> << & | ^ ~ + - * // %`` and the ``bitwise_*``/integer-arithmetic functions on integer
  values (not on float tensors: which values may be floats is followed from the answer's
  arguments, float views and ``.float()``), comparisons, ``torch.where``, ``isnan`` and its
  kin, layout operations (``clone``, ``contiguous``, ``reshape``...), construction
  (``zeros_like``, ``full_like``, ``tensor``...) with an integer dtype or none, Python ints,
  ``isinstance``/``raise``/``assert`` for input checks, and functions and lambdas of the
  submission made of these. A dtype may be named only in a comparison, a message,
  ``finfo``/``iinfo``, ``.view``, ``.to`` and ``dtype=``. Everything else (``copy_``, ``to``
  a tensor, ``type``, ``as_tensor``, numpy, float constants, ``/``, classes, ``with``,
  ``try``, imports other than torch, names the cells do not define...) is reported, first
  one first, with its line. In trusted grading (the function is a ``labkit.judge.handles.Remote``)
  it reads the cells as handed in (``labkit.judge.handles.learner_sources()``), never anything the
  learner's kernel says about itself, and follows everything the answer can reach:
  functions, lambdas, module-level names and every statement that rebinds or changes them;
  it also reports every statement of the submission that changes a library or a global
  switch (``torch.Tensor.x = ...``, ``torch.backends...fp32_precision = ...``, an autocast
  or dispatch mode entered at module level). In the learner's own kernel (self-study) it
  reads the live function and the notebook functions and lambdas it reaches.
- ``forbid_casts`` fails any PyTorch operator, in the calling thread, that makes a tensor
  of the dtype from a floating-point tensor of another dtype (below
  ``torch._C.DisableTorchFunction``). It runs where the code runs, so it only serves
  self-study: ``run_guarded`` uses it there and skips it in trusted grading.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import re
import symtable
import textwrap
import types
from typing import Any, Callable, Iterator

from .allowlist import (_EXEMPT_TARGETS, _PRECISION, ALLOWED, _Allow, _call_name, _dotted, _dtype_name,
                        _Flags, _Flow, _root)

__all__ = ["forbid_casts", "run_guarded", "source_casts", "submitted_casts"]

# ----------------------------------------------------------------------------------
# Trusted grading: the submitted cells, read as a whole program.
# ----------------------------------------------------------------------------------
# Magics that run the code they are given: the code is read as if written without them (any
# other magic becomes get_ipython(), which the check refuses).
_CELL_MAGIC = re.compile(r"\s*%%(time|timeit|capture|prun)\b")
_LINE_MAGIC = re.compile(r"^(\s*)%(time|timeit|prun)\s+(?:-[A-Za-z]+(?:\s*\d+)?\s+)*(.*)$")


def _without_code_magics(source: str) -> str:
    lines = source.splitlines()
    if lines and _CELL_MAGIC.match(lines[0]):
        lines = lines[1:]
    return "\n".join(m.group(1) + m.group(3) if (m := _LINE_MAGIC.match(ln)) else ln for ln in lines)


def _parse(source: str) -> ast.Module | None:
    source = _without_code_magics(source)
    try:
        from IPython.core.inputtransformer2 import TransformerManager
        return ast.parse(TransformerManager().transform_cell(source))
    except ImportError:
        try:
            return ast.parse(source)
        except SyntaxError:
            return None
    except SyntaxError:
        return None


def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements run at module level (into if/for/while/try/with, not into defs)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _module_statements(getattr(stmt, field, []) or [])
        for handler in getattr(stmt, "handlers", []) or []:
            yield from _module_statements(handler.body)
        for case in getattr(stmt, "cases", []) or []:
            yield from _module_statements(case.body)


def _stored_names(stmt: ast.stmt) -> set[str]:
    """Module-level names a statement binds (not those its nested scopes bind)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    heads: list[ast.AST] = []
    if isinstance(stmt, ast.Assign):
        heads = list(stmt.targets) + [stmt.value]
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        heads = [stmt.target] + ([stmt.value] if stmt.value else [])
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        heads = [stmt.target, stmt.iter]
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        heads = [i.optional_vars for i in stmt.items if i.optional_vars] + [
            i.context_expr for i in stmt.items]
    elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
        return {h.name for h in stmt.handlers if h.name}
    elif isinstance(stmt, ast.Delete):
        heads = list(stmt.targets)
    elif isinstance(stmt, (ast.Expr, ast.Return, ast.If, ast.While)):
        heads = [getattr(stmt, "value", None) or getattr(stmt, "test", None)]
    out = set()
    for head in heads:
        for node in ast.walk(head) if head is not None else ():
            if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                                 ast.GeneratorExp)):
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                out.add(node.id)
            elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                out.add(node.target.id)
    return out


def _global_refs(node: ast.AST) -> set[str]:
    """Module-level names a piece of code reads (in itself and every scope nested in it)."""
    src = ast.unparse(node)
    try:
        top = symtable.symtable(src, "<cell>", "exec")
    except SyntaxError:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    names: set[str] = set()

    def visit(table, is_top):
        for sym in table.get_symbols():
            if (is_top and (sym.is_referenced() or sym.is_assigned())) or (
                    not is_top and sym.is_global()):
                names.add(sym.get_name())
        for child in table.get_children():
            visit(child, False)

    visit(top, True)
    return names


# Names and attributes through which code reads or rebinds names without a statement that
# binds them (globals()["f"] = g, vars(), sys.modules["__main__"].f = g, f.__code__ = ...):
# the check reads bindings made by def, =, import, so code that uses them is refused.
_NAMESPACE_DOORS = {"globals", "vars", "locals", "get_ipython", "__builtins__", "__builtin__",
                    "breakpoint"}
_INTERNALS = {"__dict__", "__globals__", "__code__", "__closure__", "__builtins__", "__defaults__",
              "__kwdefaults__", "f_globals", "f_locals", "f_builtins", "user_ns",
              "user_global_ns", "_getframe", "currentframe"}


class _Program:
    """The submitted cells: where each module-level name is bound, changed and patched."""

    def __init__(self, sources: list[str]):
        self.cells: list[tuple[int, ast.Module]] = []
        for k, source in enumerate(sources):
            tree = _parse(source)
            if tree is not None:
                self.cells.append((k, tree))
        self.bindings: dict[str, list[tuple[int, ast.AST]]] = {}
        self.star_imports: list[tuple[int, ast.AST]] = []
        self.library: set[str] = set()        # names bound to modules or library objects
        self.sys_names = {a.asname or a.name for _, tree in self.cells for node in ast.walk(tree)
                          if isinstance(node, ast.Import) for a in node.names if a.name == "sys"}
        self.tops: list[tuple[int, ast.stmt]] = []   # every top-level statement
        for k, tree in self.cells:
            for stmt in tree.body:
                self.tops.append((k, stmt))
            for stmt in _module_statements(tree.body):
                if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
                    self.star_imports.append((k, stmt))
                    continue
                for n in _stored_names(stmt):
                    self.bindings.setdefault(n, []).append((k, stmt))
                if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    self.library |= _stored_names(stmt)
            for node in ast.walk(tree):  # functions that rebind a global
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for g in ast.walk(node):
                        if isinstance(g, ast.Global):
                            for n in g.names:
                                self.bindings.setdefault(n, []).append((k, node))
        changed = True
        while changed:  # aliases of library objects: T = torch.Tensor, f = T.to
            changed = False
            for n, binds in self.bindings.items():
                if n in self.library:
                    continue
                for _, stmt in binds:
                    value = getattr(stmt, "value", None)
                    if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and value is not None:
                        root = _root(value)
                        if isinstance(root, ast.Name) and root.id in self.library:
                            self.library.add(n)
                            changed = True
                            break

    def _top_of(self, k: int, node: ast.AST) -> ast.AST:
        """The top-level statement of cell k that holds node."""
        for stmt in dict(self.cells)[k].body:
            if any(n is node for n in ast.walk(stmt)):
                return stmt
        return node

    def changes_to(self, name: str) -> list[tuple[int, ast.AST]]:
        """Top-level statements anywhere that may change the object bound to ``name``
        without rebinding it: stores into it, method calls on it, passing it to a call."""
        found = []
        for k, tree in self.cells:
            for node in ast.walk(tree):
                hit = False
                if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(
                        node.ctx, (ast.Store, ast.Del)):
                    root = _root(node)
                    hit = isinstance(root, ast.Name) and root.id == name
                elif isinstance(node, ast.Call):
                    if isinstance(node.func, ast.Attribute):
                        root = _root(node.func.value)
                        hit = isinstance(root, ast.Name) and root.id == name
                    args = list(node.args) + [kw.value for kw in node.keywords]
                    hit = hit or any(isinstance(_root(a), ast.Name) and _root(a).id == name
                                     and not isinstance(a, ast.Call) for a in args)
                if hit:
                    top = self._top_of(k, node)
                    if (k, top) not in found:
                        found.append((k, top))
        return found

    def patches(self, name: str) -> list[str]:
        """Statements anywhere in the submission that change a library or a global switch."""
        found: list[str] = []
        for k, tree in self.cells:
            scan = _Flags(f"cell {k + 1}")
            asked = {id(c) for node in ast.walk(tree) if isinstance(node, ast.Compare)  # "x" in sys.modules
                     and all(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) for c in node.comparators}
            for node in ast.walk(tree):
                targets = []
                if isinstance(node, (ast.Assign, ast.Delete)):
                    targets = node.targets
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                    targets = [node.target]
                for t in targets:
                    for sub in ast.walk(t):
                        if not isinstance(sub, (ast.Attribute, ast.Subscript)):
                            continue
                        root = _root(sub)
                        if isinstance(sub, ast.Attribute) and sub.attr.startswith("__") and \
                                sub.attr.endswith("__"):
                            scan.flag(node, "rewrites a Python object's internals")
                        elif (isinstance(root, ast.Name) and root.id in self.library
                              and _dotted(t) not in _EXEMPT_TARGETS):
                            scan.flag(node, "changes a library for all code, the answer's "
                                            "included")
                        break
                if isinstance(node, ast.Name) and node.id in _NAMESPACE_DOORS:
                    scan.flag(node, "reaches the notebook's names in a way the check cannot read "
                                    "(it reads names bound by def, =, import)")
                elif isinstance(node, ast.Attribute) and (node.attr in _INTERNALS or (
                        node.attr == "modules" and isinstance(_root(node), ast.Name)
                        and _root(node).id in self.sys_names and id(node) not in asked)):
                    scan.flag(node, "reaches a function's or a module's names from inside, which "
                                    "the check cannot read")
                if isinstance(node, ast.Call):
                    called = _call_name(node)
                    root = _root(node.func)
                    first = _root(node.args[0]) if node.args else None
                    if called in ("setattr", "delattr") and node.args and not (
                            isinstance(first, ast.Name) and first.id == "self"):
                        scan.flag(node, "changes an object's attribute by name, which the check "
                                        "cannot read (write obj.attr = value)")
                    elif called in ("settrace", "setprofile", "__enter__") or (
                            called in _PRECISION and not called.startswith("get_") and not (
                                called == "set_float32_matmul_precision" and node.args
                                and isinstance(node.args[0], ast.Constant)
                                and node.args[0].value in ("highest", "high"))):
                        scan.flag(node, "changes how all later code runs (a global mode, "
                                        "switch or hook)")
                    elif called in ("eval", "exec", "compile", "__import__") and isinstance(
                            root, ast.Name) and root.id not in self.bindings:
                        scan.flag(node, "runs code that the check cannot read")
                if isinstance(node, (ast.Attribute, ast.Name)):
                    ident = node.attr if isinstance(node, ast.Attribute) else node.id
                    if ident in ("TorchDispatchMode", "TorchFunctionMode", "__torch_function__",
                                 "__torch_dispatch__", "library", "_python_dispatch", "ctypes",
                                 "settrace", "setprofile", "_C", "ops"):
                        scan.flag(node, "changes how PyTorch or Python runs all code")
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    parts = {p for a in node.names for p in a.name.split(".")}
                    parts |= set((getattr(node, "module", None) or "").split("."))
                    if parts & {"ctypes", "_C", "library", "_python_dispatch", "overrides",
                                "builtins", "gc", "__main__", "inspect", "IPython"} or (
                            isinstance(node, ast.ImportFrom) and node.module == "sys"):
                        scan.flag(node, "imports a way to change how all code runs")
            found += scan.found
        return found


def _reached(fname: str, prog: _Program, torch_names: set[str], flow: _Flow) -> list[str]:
    """Operations outside the allow-list in every piece of the program fname can reach."""
    found: list[str] = []
    seen: set[str] = set()
    scanned: set[tuple[int, int]] = set()
    todo = [fname]
    while todo:
        n = todo.pop(0)
        if n in seen:
            continue
        seen.add(n)
        pieces = list(prog.bindings.get(n, []))
        if n not in prog.library:
            pieces += prog.changes_to(n)
        for k, node in pieces:
            if (k, id(node)) in scanned:
                continue
            scanned.add((k, id(node)))
            if isinstance(node, ast.Import):  # only the alias that binds n
                node = ast.Import(names=[a for a in node.names
                                         if (a.asname or a.name).split(".")[0] == n],
                                  lineno=node.lineno, col_offset=node.col_offset)
            if isinstance(node, ast.FunctionDef):
                label, first, cell = node.name, node.lineno, None
            else:
                label, first, cell = n, 1, k + 1
            scan = _Allow(label, node, first, torch_names, lambda g: g in prog.bindings, cell)
            found += [f for f in scan.run(flow, n) if f not in found]
            todo += sorted(_global_refs(node) - seen)
    return found


def submitted_casts(fname: str, sources: list[str], dtype: Any) -> list[str]:
    """Operations outside the allow-list (``ALLOWED``) in the submitted cells that the
    function named ``fname`` can reach, first one first, then every statement of the
    submission that patches a library or a global switch. Empty when none (see the module
    docstring)."""
    name = _dtype_name(dtype)
    prog = _Program(list(sources))
    if fname not in prog.bindings:
        return [f"{fname}: not defined in the submitted cells (define it with def in a cell)"]
    torch_names = {a.asname or a.name for _, tree in prog.cells for node in ast.walk(tree)
                   if isinstance(node, ast.Import) for a in node.names if a.name == "torch"}
    flow = _Flow(fname)
    for _ in range(10):  # until what is known of floats stops growing
        flow.changed = False
        found = _reached(fname, prog, torch_names, flow)
        if not flow.changed:
            break
    found += [f for f in prog.patches(name) if f not in found]
    return found


# ----------------------------------------------------------------------------------
# Self-study: the live function in the learner's own kernel.
# ----------------------------------------------------------------------------------
def _live_source(obj: Any) -> str | None:
    try:
        return textwrap.dedent(inspect.getsource(obj))
    except (OSError, TypeError):
        return None


def _live_findings(obj: Any, label: str, name: str, seen: set, module: str,
                   flow: _Flow) -> list[str]:
    """Operations outside the allow-list in a live function (or lambda, bound method,
    partial) and in the notebook functions it reaches through its globals."""
    import functools

    import torch

    while isinstance(obj, (functools.partial, types.MethodType)) or hasattr(obj, "__wrapped__"):
        obj = getattr(obj, "func", None) or getattr(obj, "__func__", None) or obj.__wrapped__
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if not isinstance(obj, types.FunctionType):
        return [f"{label}: not a function defined with def or lambda in a cell (a class or "
                f"another object), which is not one of the operations a bit-level answer may "
                f"use: {ALLOWED}"]
    source = _live_source(obj)
    tree = None
    if source is not None:
        try:
            tree = ast.parse(source)
        except SyntaxError:  # a lambda cut out of the middle of a longer expression
            pass
    if tree is None:
        return [f"{label}: its source cannot be read (define it with def in a cell)"]
    env = obj.__globals__

    def plain(value: Any) -> bool:
        return (value is torch or value is None or type(value) in (int, bool, str)
                or (isinstance(value, types.FunctionType) and value.__module__ == module))

    torch_names = {k for k, v in env.items() if v is torch}
    first = tree.body[0].lineno if tree.body else 1
    found = _Allow(getattr(obj, "__name__", label).replace("<lambda>", label), tree, first,
                   torch_names, lambda g: g in env and plain(env[g])).run(flow, label)
    for ident in sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}):
        target = env.get(ident)
        if isinstance(target, types.FunctionType) and target is not obj and \
                target.__module__ == module:
            found += [f for f in _live_findings(target, ident, name, seen, module, flow)
                      if f not in found]
    return found


def source_casts(fn: Callable, dtype: Any) -> list[str]:
    """Places in fn's code (and everything it reaches) that may convert to dtype."""
    from . import handles

    if isinstance(fn, handles.Remote):  # trusted grading: read what was handed in
        return submitted_casts(fn._target[1], handles.learner_sources(), dtype)
    if not callable(fn):
        raise TypeError(f"fn must be a function, got {type(fn).__name__}")
    name = _dtype_name(dtype)
    module = getattr(fn, "__module__", None) or "__main__"
    label = getattr(fn, "__name__", "fn")
    flow = _Flow(label)
    for _ in range(10):  # until what is known of floats stops growing
        flow.changed = False
        found = _live_findings(fn, label, name, set(), module, flow)
        if not flow.changed:
            break
    return found


def run_guarded(fn: Callable, dtype: Any, *args: Any, what: str = "the function") -> Any:
    """fn(*args) under ``forbid_casts`` where fn runs in this process (self-study); a plain
    call in trusted grading, where a guard would run inside the learner's kernel and could
    only report what that kernel says about itself."""
    from . import handles

    if isinstance(fn, handles.Remote):
        return fn(*args)
    with forbid_casts(dtype, what):
        return fn(*args)


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
