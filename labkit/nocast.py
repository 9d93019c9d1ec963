"""Checks that a function does not convert tensors to a forbidden dtype.

For exercises that ask for bit-level code ("round to BF16 without casting to bfloat16").
A cast to BF16 gives exactly the right answer, so no test of the results can see it; what
decides is the code. Two checks:

- ``source_casts`` reads code and reports every place that may convert to the dtype.
  In trusted grading (the function is a ``labkit.remote.Remote``) it reads the cells as
  handed in (``labkit.remote.learner_sources()``), never anything the learner's kernel
  says about itself, and follows everything the answer can reach: functions, lambdas,
  classes and their methods, decorators, default arguments, aliases (``f = torch.Tensor.to``),
  every statement that rebinds or changes a global the answer reads, and every statement of
  the submission that changes a library or a global switch (``torch.Tensor.x = ...``,
  ``torch.backends...fp32_precision = ...``, an autocast or dispatch mode entered at module
  level). It reports: naming the dtype (or spelling it in a string) anywhere but a naming-only
  place; reaching an object by a name computed at run time (``getattr`` with a computed
  name, ``eval``, ``vars``, ``attrgetter``/``methodcaller``, ``get_ipython``); PyTorch
  internals and hooks (``torch._C``, ``torch.ops``, dispatch/function modes, autocast,
  matmul precision switches); other threads or processes; deserialised objects (pickle,
  ``torch.load``); and a name whose origin the submitted cells do not show.
  Naming-only places: ``torch.finfo(torch.bfloat16)``, a comparison
  (``x.dtype == torch.bfloat16``), a ``raise``/``assert`` message or f-string, a docstring,
  and ``.view(torch.bfloat16)`` of integer bits read straight back (``.float()``,
  ``.double()``, ``.item()``, ``.tolist()``, ``.to(...)``).
  In the learner's own kernel (self-study) it reads the live function and the notebook
  functions, lambdas and classes it reaches.
- ``forbid_casts`` fails any PyTorch operator, in the calling thread, that makes a tensor
  of the dtype from a floating-point tensor of another dtype (below
  ``torch._C.DisableTorchFunction``). It runs where the code runs, so it only serves
  self-study: ``run_guarded`` uses it there and skips it in trusted grading.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import inspect
import re
import symtable
import textwrap
import types
from typing import Any, Callable, Iterator

__all__ = ["forbid_casts", "run_guarded", "source_casts", "submitted_casts"]

# Calls in which naming the dtype converts nothing.
_NAMING_ONLY = {"finfo", "iinfo"}
# What may directly follow .view(<dtype>) (integer bits read back as another type).
_READ_BACK = {"float", "double", "item", "tolist", "to"}
# Calls whose arguments are messages.
_MESSAGES = {"print", "warn", "format", "write", "join", "debug", "info", "warning", "error"}
# Ways to reach an object by a name computed at run time, or to run code from data.
_DYNAMIC = {"getattr", "setattr", "delattr", "eval", "exec", "compile", "__import__", "vars",
            "globals", "locals", "dir", "importlib", "__dict__", "__getattribute__",
            "attrgetter", "methodcaller", "get_ipython", "run_cell", "run_line_magic",
            "run_cell_magic", "__builtins__", "builtins", "__code__", "__globals__",
            "__closure__", "__defaults__", "__kwdefaults__", "__subclasses__", "__reduce__",
            "__reduce_ex__", "__setstate__", "f_globals", "f_locals", "f_back", "load", "loads",
            "FunctionType", "CodeType", "In", "Out"}
# Modules that reach objects by computed names, run code from data, or rewrite objects.
_MODULES = {"sys", "gc", "inspect", "ctypes", "types", "pickle", "marshal", "dill", "cloudpickle",
            "copyreg", "shelve", "runpy", "code", "codeop", "importlib", "builtins", "ml_dtypes"}
# Identifiers that count only as attributes (as a local variable's name they are harmless).
_ATTRIBUTE_ONLY = {"ops", "_ops", "library", "utils", "fx", "jit", "load", "loads", "f_globals",
                   "f_locals", "f_back", "FunctionType", "CodeType", "amp", "modules"}
# Ways to switch off PyTorch's function or dispatch hooks, or to reach its internals.
_ESCAPES = {"DisableTorchFunction", "DisableTorchFunctionSubclass", "_DisableTorchDispatch",
            "_disable_current_modes", "_pop_mode", "_pop_mode_temporarily",
            "_pop_torch_function_stack", "_len_torch_function_stack", "_set_torch_function_mode",
            "_ExcludeDispatchKeyGuard", "_AutoDispatchBelowAutograd", "_C", "ops", "_ops",
            "library", "_python_dispatch", "overrides", "TorchDispatchMode",
            "TorchFunctionMode", "__torch_function__", "__torch_dispatch__", "_prims", "_refs",
            "_decomp", "jit", "fx", "_dynamo", "_inductor", "utils"}
# Switches that make PyTorch convert to a lower precision without a cast in the code.
_PRECISION = {"autocast", "amp", "fp32_precision", "set_float32_matmul_precision",
              "set_default_dtype", "set_autocast_dtype", "set_autocast_enabled",
              "set_autocast_cpu_dtype", "set_autocast_gpu_dtype", "get_autocast_dtype",
              "get_autocast_cpu_dtype", "get_autocast_gpu_dtype", "set_flush_denormal",
              "allow_bf16_reduced_precision_reduction"}
# Modules that run work outside the calling thread.
_CONCURRENCY = {"threading", "_thread", "concurrent", "multiprocessing", "subprocess", "asyncio",
                "os", "signal", "labkit"}
# Names IPython defines in a notebook's namespace that are harmless to call.
_IPYTHON_SAFE = {"display"}
# Library switches the course's own cells flip (CUDA only; they do not touch a CPU result).
_EXEMPT_TARGETS = {"torch.backends.cuda.matmul.allow_tf32", "torch.backends.cudnn.allow_tf32"}


def _dtype_name(dtype: Any) -> str:
    name = str(dtype).rsplit(".", 1)[-1]
    if not name.isidentifier():
        raise ValueError(f"dtype must be a torch dtype such as torch.bfloat16, got {dtype!r}")
    return name


def _spellings(name: str) -> tuple[re.Pattern, re.Pattern]:
    """How the dtype is written as a name (the dtype, the Tensor method, legacy tensor and
    storage types) and inside a string (``x.type("torch.BFloat16Tensor")``)."""
    legacy = {"bfloat16": "BFloat16", "float16": "Half", "float64": "Double", "float32": "Float"}
    names = [f"^{re.escape(name)}$"] + ([f"^{legacy[name]}(Tensor|Storage)$"] if name in legacy else [])
    words = [re.escape(name)] + (["bfloat"] if name == "bfloat16" else [])
    return re.compile("|".join(names)), re.compile("|".join(words), re.IGNORECASE)


def _root(node: ast.AST) -> ast.AST:
    """The innermost object of an attribute/subscript/call chain (``a`` in ``a.b[c].d()``)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call, ast.Starred)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _call_name(node: ast.Call) -> str:
    return getattr(node.func, "attr", getattr(node.func, "id", ""))


class _Scan:
    """Findings in one piece of code: places that may convert to the dtype, or that a
    reading of the source cannot follow."""

    def __init__(self, label: str, tree: ast.AST, name: str):
        self.label, self.tree, self.name = label, tree, name
        self.spelled, self.in_text = _spellings(name)
        self.parents = {c: n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
        self.found: list[str] = []

    def flag(self, node: ast.AST, why: str) -> None:
        text = ast.unparse(node)
        if len(text) > 120:
            text = text[:117] + "..."
        line = f"{self.label}: `{text}` {why}"
        if line not in self.found:
            self.found.append(line)

    def _naming_only(self, node: ast.AST) -> bool:
        """A mention of the dtype that converts nothing."""
        child, parent = node, self.parents.get(node)
        while parent is not None:
            if isinstance(parent, ast.Compare):
                return True
            if isinstance(parent, (ast.JoinedStr, ast.FormattedValue)):
                return True
            if isinstance(parent, ast.Raise) or (isinstance(parent, ast.Assert)
                                                 and child is parent.msg):
                return True
            if isinstance(parent, ast.Expr) and isinstance(child, ast.Constant):
                return True  # a docstring or a bare string
            if isinstance(parent, ast.Call) and child in parent.args:
                called = _call_name(parent)
                if called in _NAMING_ONLY or called in _MESSAGES:
                    return True
                if called == "view" and isinstance(parent.func, ast.Attribute):
                    after = self.parents.get(parent)
                    above = self.parents.get(after)
                    return (isinstance(after, ast.Attribute) and after.attr in _READ_BACK
                            and isinstance(above, ast.Call) and above.func is after)
                return False
            if isinstance(parent, (ast.stmt, ast.Call, ast.Lambda, ast.comprehension)):
                return False
            child, parent = parent, self.parents.get(parent)
        return False

    def run(self) -> list[str]:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute):
                ident = node.attr
            elif isinstance(node, ast.Name):
                ident = node.id
            elif isinstance(node, ast.alias):
                ident = node.name
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                ident = node.name
            elif isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
                text = node.value if isinstance(node.value, str) else node.value.decode("latin-1")
                if self.in_text.search(text) and not self._naming_only(node):
                    self.flag(self.parents.get(node, node), f"spells {self.name} in a string")
                continue
            else:
                continue
            self.ident(node, ident)
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.imported(node, [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            elif isinstance(node, ast.Call) and _call_name(node) == "type" and isinstance(
                    node.func, ast.Attribute) and (node.args or node.keywords):
                self.flag(node, "converts to a type named at run time (Tensor.type)")
        return self.found

    def ident(self, node: ast.AST, ident: str) -> None:
        parent = self.parents.get(node)
        where = parent if isinstance(parent, ast.Call) else node
        if isinstance(node, ast.Name) and ident in _ATTRIBUTE_ONLY:
            return
        if self.spelled.search(ident):
            if not self._naming_only(node):
                self.flag(where, f"converts to {self.name}")
        elif ident in _DYNAMIC:
            literal = (ident == "getattr" and isinstance(parent, ast.Call) and parent.func is node
                       and len(parent.args) >= 2 and isinstance(parent.args[1], ast.Constant))
            if not literal:
                self.flag(where, "reaches an object by a name computed at run time, or runs "
                                 "code that the check cannot read")
        elif ident in _ESCAPES or (ident.startswith("_") and not ident.startswith("__")
                                   and isinstance(node, ast.Attribute)
                                   and not (isinstance(node.value, ast.Name)
                                            and node.value.id in ("self", "cls"))):
            self.flag(node, "reaches PyTorch's internals or switches off its hooks")
        elif ident in _PRECISION:
            self.flag(where, "switches PyTorch to a lower precision (autocast, matmul "
                             "precision): a conversion without a cast in the code")
        elif ident in _CONCURRENCY:
            self.flag(where, "runs work outside the calling thread")

    def imported(self, node: ast.AST, modules: list[str]) -> None:
        names = modules + [a.name for a in node.names]
        parts = {p for m in names for p in m.split(".")}
        if parts & _CONCURRENCY:
            self.flag(node, "runs work outside the calling thread")
        elif parts & (_ESCAPES | _DYNAMIC | _PRECISION | _MODULES) or any(
                self.spelled.search(p) for p in parts) or any(
                p.startswith("_") and not p.startswith("__") for p in parts):
            self.flag(node, "imports PyTorch internals, the dtype, or a way to run code "
                            "the check cannot read")


# ----------------------------------------------------------------------------------
# Trusted grading: the submitted cells, read as a whole program.
# ----------------------------------------------------------------------------------
def _parse(source: str) -> ast.Module | None:
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
            scan = _Scan(f"cell {k + 1}", tree, name)
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
                if isinstance(node, ast.Call):
                    called = _call_name(node)
                    root = _root(node.func)
                    if called in ("setattr", "delattr") and node.args and isinstance(
                            _root(node.args[0]), ast.Name) and _root(node.args[0]).id in self.library:
                        scan.flag(node, "changes a library for all code, the answer's included")
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
                                "builtins", "gc"}:
                        scan.flag(node, "imports a way to change how all code runs")
            found += scan.found
        return found


def submitted_casts(fname: str, sources: list[str], dtype: Any) -> list[str]:
    """Places in the submitted cells that may convert to ``dtype`` on behalf of the function
    named ``fname``: in everything it can reach, and anywhere that patches a library or a
    global switch. Empty when none (see the module docstring)."""
    name = _dtype_name(dtype)
    prog = _Program(list(sources))
    found: list[str] = []
    if fname not in prog.bindings:
        return [f"{fname}: not defined in the submitted cells (define it with def in a cell)"]
    seen: set[str] = set()
    scanned: set[tuple[int, int]] = set()
    todo = [fname]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        binds = prog.bindings.get(n)
        if not binds:
            if n in _IPYTHON_SAFE or hasattr(builtins, n):  # the scan flags eval, getattr...
                continue
            if prog.star_imports:
                for k, stmt in prog.star_imports:
                    found += _Scan(f"cell {k + 1}", stmt, name).run() or [
                        f"cell {k + 1}: `{ast.unparse(stmt)}` may bind `{n}`, which "
                        f"{fname} uses; import names one by one"]
                continue
            found.append(f"{fname}: uses `{n}`, which no submitted cell defines in a way the "
                         "check can read (define it with def or an assignment in a cell)")
            continue
        pieces = list(binds)
        if n not in prog.library:
            pieces += prog.changes_to(n)
        for k, node in pieces:
            if (k, id(node)) in scanned:
                continue
            scanned.add((k, id(node)))
            label = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                   ast.ClassDef)) else f"cell {k + 1}"
            found += [f for f in _Scan(label, node, name).run() if f not in found]
            todo += sorted(_global_refs(node) - seen)
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


def _live_findings(obj: Any, label: str, name: str, seen: set, module: str) -> list[str]:
    """Findings in a live object (function, lambda, class, bound method, partial) and the
    notebook objects it reaches through its globals."""
    import functools

    while isinstance(obj, (functools.partial, types.MethodType)) or hasattr(obj, "__wrapped__"):
        obj = getattr(obj, "func", None) or getattr(obj, "__func__", None) or obj.__wrapped__
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if not isinstance(obj, (types.FunctionType, type)):
        obj = type(obj) if type(obj).__module__ == module else None
        if obj is None or id(obj) in seen:
            return []
        seen.add(id(obj))
    source = _live_source(obj)
    if source is None:
        return [f"{label}: its source cannot be read (define it with def in a cell)"]
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a lambda cut out of the middle of a longer expression
        return [f"{label}: its source cannot be read (define it with def in a cell)"]
    found = _Scan(getattr(obj, "__name__", label), tree, name).run()
    env = getattr(obj, "__globals__", None)
    if env is None:
        env = vars(inspect.getmodule(obj)) if inspect.getmodule(obj) else {}
        for member in vars(obj).values():
            if isinstance(member, (types.FunctionType, staticmethod, classmethod, property)):
                fn = getattr(member, "__func__", None) or getattr(member, "fget", None) or member
                env = getattr(fn, "__globals__", env)
                break
    for ident in sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}):
        target = env.get(ident)
        if target is None or target is obj:
            continue
        if getattr(target, "__name__", None) in _ESCAPES:
            found.append(f"{label}: `{ident}` switches off PyTorch's hooks")
        elif isinstance(target, types.ModuleType) and target.__name__.split(".")[0] in _CONCURRENCY:
            found.append(f"{label}: `{ident}` runs work outside the calling thread")
        elif isinstance(target, types.ModuleType) and target.__name__.split(".")[0] in _MODULES:
            found.append(f"{label}: `{ident}` reaches objects by computed names or runs code "
                         "that the check cannot read")
        elif getattr(target, "__module__", None) == module or (
                isinstance(target, (list, tuple, dict)) and ident != label):
            items = target.values() if isinstance(target, dict) else (
                target if isinstance(target, (list, tuple)) else [target])
            for item in items:
                if callable(item) and getattr(item, "__module__", None) == module:
                    found += _live_findings(item, ident, name, seen, module)
    return found


def source_casts(fn: Callable, dtype: Any) -> list[str]:
    """Places in fn's code (and everything it reaches) that may convert to dtype."""
    from labkit import remote

    if isinstance(fn, remote.Remote):  # trusted grading: read what was handed in
        return submitted_casts(fn._target[1], remote.learner_sources(), dtype)
    if not callable(fn):
        raise TypeError(f"fn must be a function, got {type(fn).__name__}")
    name = _dtype_name(dtype)
    module = getattr(fn, "__module__", None) or "__main__"
    return _live_findings(fn, getattr(fn, "__name__", "fn"), name, set(), module)


def run_guarded(fn: Callable, dtype: Any, *args: Any, what: str = "the function") -> Any:
    """fn(*args) under ``forbid_casts`` where fn runs in this process (self-study); a plain
    call in trusted grading, where a guard would run inside the learner's kernel and could
    only report what that kernel says about itself."""
    from labkit import remote

    if isinstance(fn, remote.Remote):
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
