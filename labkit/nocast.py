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
  one first, with its line. In trusted grading (the function is a ``labkit.remote.Remote``)
  it reads the cells as handed in (``labkit.remote.learner_sources()``), never anything the
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
import symtable
import textwrap
import types
from typing import Any, Callable, Iterator

__all__ = ["ALLOWED", "forbid_casts", "run_guarded", "source_casts", "submitted_casts"]

# Switches that make PyTorch convert to a lower precision without a cast in the code.
_PRECISION = {"autocast", "amp", "fp32_precision", "set_float32_matmul_precision",
              "set_default_dtype", "set_autocast_dtype", "set_autocast_enabled",
              "set_autocast_cpu_dtype", "set_autocast_gpu_dtype", "get_autocast_dtype",
              "get_autocast_cpu_dtype", "get_autocast_gpu_dtype", "set_flush_denormal",
              "allow_bf16_reduced_precision_reduction"}
# Library switches the course's own cells flip (CUDA only; they do not touch a CPU result).
_EXEMPT_TARGETS = {"torch.backends.cuda.matmul.allow_tf32", "torch.backends.cudnn.allow_tf32"}


def _dtype_name(dtype: Any) -> str:
    name = str(dtype).rsplit(".", 1)[-1]
    if not name.isidentifier():
        raise ValueError(f"dtype must be a torch dtype such as torch.bfloat16, got {dtype!r}")
    return name


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


class _Flags:
    """Findings of the library-patch check, in one cell."""

    def __init__(self, label: str):
        self.label = label
        self.found: list[str] = []

    def flag(self, node: ast.AST, why: str) -> None:
        text = ast.unparse(node)
        if len(text) > 120:
            text = text[:117] + "..."
        line = f"{self.label}: `{text}` {why}"
        if line not in self.found:
            self.found.append(line)


# ----------------------------------------------------------------------------------
# The allow-list: the operations a bit-level answer may use. Everything else is refused,
# named with its line.
# ----------------------------------------------------------------------------------
# Integer (and bool) dtypes: what .to(...) and dtype=... may name.
_INT_DTYPES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "int",
               "long", "short", "bool"}
# Views whose result is float32 (the answer read back), needing nothing after them.
_F32_DTYPES = {"float32", "float"}
# Every torch dtype name (views of other float formats must be widened at once: .float()).
_ALL_DTYPES = _INT_DTYPES | _F32_DTYPES | {
    "bfloat16", "float16", "half", "float64", "double", "float8_e4m3fn", "float8_e5m2",
    "float8_e4m3fnuz", "float8_e5m2fnuz", "complex64", "complex128", "cfloat", "cdouble"}
# Calls, as torch.NAME(...) or tensor.NAME(...).
_CALLS = {
    # views and layout (a view converts nothing; .view of a dtype is checked below)
    "view", "view_as", "reshape", "reshape_as", "clone", "contiguous", "flatten", "unflatten",
    "squeeze", "unsqueeze", "expand", "expand_as", "broadcast_to", "permute", "transpose", "t",
    "flip", "narrow", "size", "dim", "numel", "stride", "is_contiguous",
    # integer conversions (checked below: .to names an integer dtype)
    "to", "int", "long", "short", "bool",
    # bits, integer arithmetic, comparisons, selection
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift",
    "bitwise_right_shift", "add", "sub", "subtract", "mul", "multiply", "floor_divide",
    "remainder", "neg", "abs", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
    "logical_not", "logical_xor", "where", "isnan", "isinf", "isfinite", "isposinf",
    "isneginf", "signbit", "all", "any", "maximum", "minimum",
    # construction (dtype= only an integer dtype)
    "zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like", "empty_like",
    "tensor", "arange",
    # widening read-back, only straight after .view(<a float format>)
    "float", "double",
    # naming a format's size
    "finfo", "iinfo",
}
# Attributes read without a call.
_ATTRIBUTES = {"shape", "ndim", "device", "T", "mT", "bits", "max", "min", "Tensor", "__name__",
               "dtype"} | _ALL_DTYPES
# Python builtins.
_BUILTINS = {"isinstance", "type", "len", "range", "int", "bool", "abs", "min", "max", "tuple",
             "list", "str", "repr", "print", "enumerate", "zip", "reversed", "all", "any",
             "getattr", "TypeError", "ValueError", "OverflowError",
             "NotImplementedError", "AssertionError", "RuntimeError", "Exception", "None",
             "True", "False"}
_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%",
              ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
              ast.BitXor: "^"}
_REFUSED_OPERATORS = {ast.Div: "/", ast.Pow: "**", ast.MatMult: "@"}
_STATEMENTS = (ast.FunctionDef, ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For,
               ast.While, ast.If, ast.Raise, ast.Assert, ast.Pass, ast.Break, ast.Continue,
               ast.Expr, ast.Import)
_STATEMENT_WORDS = {"AsyncFunctionDef": "async def", "ClassDef": "class", "With": "with",
                    "AsyncWith": "async with", "AsyncFor": "async for", "Try": "try",
                    "TryStar": "try", "Global": "global", "Nonlocal": "nonlocal", "Delete": "del",
                    "ImportFrom": "from ... import", "Match": "match", "Await": "await",
                    "Yield": "yield", "YieldFrom": "yield from"}

ALLOWED = ("`.view(torch.int32)` and other integer views of a float tensor, `.view(torch.float32)` "
           "back (a view as another float format only with `.float()` straight after), `.to(<an integer "
           "dtype>)`, `>> << & | ^ ~ + - * // %`, comparisons, `torch.where`, `isnan`/`isinf`/"
           "`isfinite`/`signbit`, the `bitwise_*` functions, `clone`/`contiguous`/`reshape`-like "
           "layout operations, `zeros_like`/`full_like`/`tensor`... with an integer dtype or none, "
           "Python ints, `isinstance` and `raise` for input checks, and functions of your own "
           "made of these")


def _dtype_literal(node: ast.AST, torch_names: set[str]) -> str | None:
    """``torch.<dtype>`` written out: the dtype's name."""
    if (isinstance(node, ast.Attribute) and node.attr in _ALL_DTYPES
            and isinstance(node.value, ast.Name) and node.value.id in torch_names):
        return node.attr
    return None


# Calls that do arithmetic: refused on float tensors (integer arithmetic only).
_ARITHMETIC_CALLS = {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
                     "bitwise_left_shift", "bitwise_right_shift", "add", "sub", "subtract", "mul",
                     "multiply", "floor_divide", "remainder"}
# Calls whose result is never a float tensor.
_NOT_FLOAT = {"to", "int", "long", "short", "bool", "size", "dim", "numel", "stride",
              "is_contiguous", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
              "logical_not", "logical_xor", "isnan", "isinf", "isfinite", "isposinf",
              "isneginf", "signbit", "all", "any", "finfo", "iinfo", "len", "range",
              "isinstance", "type", "str", "repr"}


class _Flow:
    """Which values may be float tensors (flow-insensitive, shared by the pieces of a
    program): the answer's arguments, `.view(torch.float32)`, `.float()`, and what is made
    from them; which functions of the submission get a float argument (by position or
    keyword, ``*`` for any) and which may return one."""

    def __init__(self, answer: str = ""):
        self.params: dict[str, set] = {answer: {"*"}} if answer else {}
        self.returns: set[str] = set()
        self.names: set[tuple[int, str]] = set()   # (scope, name)
        self.chains: dict[int, tuple[int, ...]] = {}  # node -> its scopes, innermost first
        self.changed = False

    def _scopes(self, tree: ast.AST) -> None:
        def visit(node: ast.AST, chain: tuple[int, ...]) -> None:
            self.chains[id(node)] = chain
            inner = (id(node),) + chain if isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else chain
            for child in ast.iter_child_nodes(node):
                visit(child, inner)
        visit(tree, (id(tree),))

    def _bind(self, node: ast.AST, name: str) -> None:
        self.names.add((self.chains.get(id(node), (0,))[0], name))

    def learn(self, tree: ast.AST, binds: str = "") -> None:
        """Float names of one piece, to a fixed point; calls with float arguments noted."""
        self._scopes(tree)
        funcs = [n for n in ast.walk(tree)
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
        for _ in range(20):
            before = (set(self.names), {k: set(v) for k, v in self.params.items()},
                      set(self.returns))
            for fn in funcs:
                name = getattr(fn, "name", None)
                if name is None:  # a lambda: the name it is bound to
                    parent = next((p for p in ast.walk(tree) if isinstance(p, ast.Assign)
                                   and p.value is fn), None)
                    targets = [t.id for t in parent.targets if isinstance(t, ast.Name)] \
                        if parent is not None else []
                    name = targets[0] if targets else binds
                got = self.params.get(name, set())
                a = fn.args
                for i, p in enumerate(a.posonlyargs + a.args):
                    if "*" in got or i in got or p.arg in got:
                        self._bind(p, p.arg)
                for p in a.kwonlyargs + [v for v in (a.vararg, a.kwarg) if v is not None]:
                    if "*" in got or p.arg in got:
                        self._bind(p, p.arg)
                bodies = [fn.body] if isinstance(fn, ast.Lambda) else [
                    r.value for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value]
                if any(self.is_float(b) for b in bodies):
                    self.returns.add(name)
            for node in ast.walk(tree):
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For,
                                     ast.NamedExpr, ast.comprehension)):
                    value = getattr(node, "value", None) or getattr(node, "iter", None)
                    targets = getattr(node, "targets", None) or [node.target]
                    if value is not None and self.is_float(value):
                        for t in targets:
                            for n in ast.walk(t):
                                if isinstance(n, ast.Name):
                                    self._bind(n, n.id)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    got = self.params.setdefault(node.func.id, set())
                    for i, arg in enumerate(node.args):
                        if self.is_float(arg):
                            got.add("*" if isinstance(arg, ast.Starred) else i)
                    for kw in node.keywords:
                        if self.is_float(kw.value):
                            got.add(kw.arg or "*")
            after = (self.names, self.params, self.returns)
            if after == before:
                break
            self.changed = True

    def is_float(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return any((scope, node.id) in self.names
                       for scope in self.chains.get(id(node), (0,)))
        if isinstance(node, (ast.Starred, ast.Subscript)):
            return self.is_float(node.value)
        if isinstance(node, ast.Attribute):
            return node.attr in ("T", "mT") and self.is_float(node.value)
        if isinstance(node, ast.BinOp):
            return self.is_float(node.left) or self.is_float(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.is_float(node.operand)
        if isinstance(node, ast.IfExp):
            return self.is_float(node.body) or self.is_float(node.orelse)
        if isinstance(node, (ast.Tuple, ast.List)):
            return any(self.is_float(e) for e in node.elts)
        if not isinstance(node, ast.Call):
            return False
        args = list(node.args) + [kw.value for kw in node.keywords if kw.arg != "out"]
        if isinstance(node.func, ast.Name):
            if node.func.id in _NOT_FLOAT:
                return False
            if node.func.id in _BUILTINS:
                return any(self.is_float(a) for a in args)
            return node.func.id in self.returns
        if not isinstance(node.func, ast.Attribute):
            return True
        m, receiver = node.func.attr, node.func.value
        if m in _NOT_FLOAT or any(kw.arg == "dtype" for kw in node.keywords):
            return False
        if m in ("float", "double"):
            return True
        if m == "view" and any(isinstance(a, ast.Attribute) and a.attr in _ALL_DTYPES
                               for a in node.args):
            return any(isinstance(a, ast.Attribute) and a.attr in _F32_DTYPES
                       for a in node.args)
        return self.is_float(receiver) or any(self.is_float(a) for a in args)

    def arithmetic_on_float(self, node: ast.AST) -> bool:
        if isinstance(node, ast.BinOp):
            return self.is_float(node.left) or self.is_float(node.right)
        if isinstance(node, ast.AugAssign):
            return self.is_float(node.target) or self.is_float(node.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            return self.is_float(node.func.value) or any(
                self.is_float(a) for a in list(node.args) + [k.value for k in node.keywords])
        return False


class _Allow:
    """The first operations in a piece of code that are not on the allow-list."""

    def __init__(self, label: str, tree: ast.AST, first_line: int, torch_names: set[str],
                 known: Callable[[str], bool], cell: int | None = None):
        self.label, self.tree, self.first_line, self.cell = label, tree, first_line, cell
        self.torch_names, self.known = torch_names, known
        self.parents = {c: n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
        self.found: list[tuple[int, int, str]] = []
        self.flow = _Flow()

    def refuse(self, node: ast.AST, op: str, why: str = "") -> None:
        at = node
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            at = node.func  # where the operation's name is written: a.to(...).float()
            line, col = at.end_lineno, at.end_col_offset - len(at.attr)
        else:
            line, col = getattr(at, "lineno", self.first_line), getattr(at, "col_offset", 0)
        line = line - self.first_line + 1
        self.found.append((line, col,
                           f"{self.label} uses `{op}` ({self.where(line)}{'; ' + why if why else ''}), which is not one of "
                           f"the operations a bit-level answer may use: {ALLOWED}"))

    def where(self, line: int) -> str:
        return f"line {line}" if self.cell is None else f"cell {self.cell}, line {line}"

    def _message(self, node: ast.AST) -> bool:
        """Inside an error message, a printed value or a comparison (names, converts nothing)."""
        child, parent = node, self.parents.get(node)
        while parent is not None:
            if isinstance(parent, (ast.Compare, ast.JoinedStr)):
                return True
            if isinstance(parent, ast.Raise) or (isinstance(parent, ast.Assert)
                                                 and child is parent.msg):
                return True
            if isinstance(parent, ast.Call) and child in parent.args and isinstance(
                    parent.func, (ast.Name, ast.Attribute)) and _call_name(parent) in (
                    "finfo", "iinfo", "print"):
                return True
            if isinstance(parent, (ast.stmt, ast.Call, ast.Lambda, ast.comprehension,
                                   ast.keyword)):
                return False
            child, parent = parent, self.parents.get(parent)
        return False

    def run(self, flow: _Flow | None = None, binds: str = "") -> list[str]:
        """The findings; ``flow`` carries which functions get and return floats across the
        pieces of a program, ``binds`` the module-level name this piece binds."""
        self.flow = flow or _Flow()
        self.flow.learn(self.tree, binds)
        symbols = _local_names(self.tree)
        for node in ast.walk(self.tree):
            kind = type(node).__name__
            if isinstance(node, ast.stmt) and not isinstance(node, _STATEMENTS):
                self.refuse(node, _STATEMENT_WORDS.get(kind, kind))
            elif kind in _STATEMENT_WORDS:
                self.refuse(node, _STATEMENT_WORDS[kind])
            elif isinstance(node, ast.FunctionDef) and node.decorator_list:
                self.refuse(node.decorator_list[0], "@" + ast.unparse(node.decorator_list[0]))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name != "torch":
                        self.refuse(node, f"import {alias.name}")
            elif isinstance(node, (ast.BinOp, ast.AugAssign)):
                op = type(node.op)
                if op in _REFUSED_OPERATORS and not (
                        op is ast.Pow and isinstance(node, ast.BinOp)
                        and all(isinstance(s, ast.Constant) and type(s.value) is int
                                for s in (node.left, node.right))):
                    self.refuse(node, _REFUSED_OPERATORS[op])
                elif op in _OPERATORS and self.flow.arithmetic_on_float(node):
                    self.refuse(node, _OPERATORS[op], "arithmetic on a float tensor")
            elif isinstance(node, ast.Constant) and type(node.value) in (float, complex, bytes):
                if not self._message(node):
                    self.refuse(node, repr(node.value), "a float constant")
            elif isinstance(node, ast.Call):
                self.call(node)
            elif isinstance(node, ast.Attribute):
                self.attribute(node)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id not in symbols and not self.known(node.id) and node.id not in _BUILTINS:
                    self.refuse(node, node.id, "a name no submitted cell defines in a way "
                                               "the check can read")
        self.found.sort()
        return [f for _, _, f in self.found]

    def attribute(self, node: ast.Attribute) -> None:
        parent = self.parents.get(node)
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.refuse(node, ast.unparse(node), "sets an attribute")
        elif isinstance(parent, ast.Call) and parent.func is node:
            return  # checked as a call
        elif node.attr not in _ATTRIBUTES:
            self.refuse(node, node.attr)
        elif (node.attr in _ALL_DTYPES or node.attr == "dtype") and not self._dtype_ok(node):
            self.refuse(node, ast.unparse(node), "a dtype outside a comparison, a message, "
                                                 "`.view(...)`, `.to(...)` or `dtype=`")

    def _dtype_ok(self, node: ast.AST) -> bool:
        """A dtype named where it converts nothing, or given to an operation that checks it."""
        if self._message(node):
            return True
        parent = self.parents.get(node)
        if isinstance(parent, ast.keyword) and parent.arg == "dtype":
            return True  # checked with its call
        return isinstance(parent, ast.Call) and node in parent.args and _call_name(parent) in (
            "view", "to", "finfo", "iinfo") and isinstance(parent.func, ast.Attribute)

    def call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name):
            if func.id == "getattr":
                name = node.args[1] if len(node.args) >= 2 else None
                if not (isinstance(name, ast.Constant) and name.value in _ATTRIBUTES and (
                        self._message(node) or (name.value not in _ALL_DTYPES
                                                and name.value != "dtype"))):
                    self.refuse(node, ast.unparse(node)[:60], "a name read at run time")
            return  # a local, a builtin or a name of the submission (checked as a name)
        if not isinstance(func, ast.Attribute):
            self.refuse(node, ast.unparse(func)[:60], "a call of a computed object")
            return
        m = func.attr
        if m not in _CALLS:
            self.refuse(node, m)
            return
        if m in _ARITHMETIC_CALLS and self.flow.arithmetic_on_float(node):
            self.refuse(node, m, "arithmetic on a float tensor")
        if m in ("finfo", "iinfo"):
            return
        for arg in node.args:
            dt = _dtype_literal(arg, self.torch_names)
            if dt is None and not (isinstance(arg, ast.Attribute)
                                   and (arg.attr in _ALL_DTYPES or arg.attr == "dtype")):
                continue  # not a dtype (a dtype can be given only written out)
            if m == "view" and (dt in _INT_DTYPES or dt in _F32_DTYPES):
                continue
            if m == "view" and dt is not None:
                after = self.parents.get(node)
                above = self.parents.get(after)
                if not (isinstance(after, ast.Attribute) and after.attr in ("float", "double")
                        and isinstance(above, ast.Call) and above.func is after
                        and not above.args and not above.keywords):
                    self.refuse(node, f"view(torch.{dt})", "not read back at once with "
                                                          "`.float()`")
            elif not (m == "to" and dt in _INT_DTYPES):
                self.refuse(node, f"{m}({ast.unparse(arg)[:40]})", "a dtype other than an "
                                                                   "integer dtype written out")
        for kw in node.keywords:
            if kw.arg == "dtype" and _dtype_literal(kw.value, self.torch_names) not in _INT_DTYPES:
                self.refuse(node, f"{m}(dtype={ast.unparse(kw.value)[:40]})",
                            ", a dtype other than an integer dtype written out")
        if m == "to" and (len(node.args) + len(node.keywords) != 1 or _dtype_literal(
                (node.args or [kw.value for kw in node.keywords])[0], self.torch_names) is None):
            self.refuse(node, ast.unparse(node)[:60], "`to` other than to an integer dtype")
        if m in ("float", "double") and not (
                isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Attribute)
                and func.value.func.attr == "view" and any(
                    _dtype_literal(a, self.torch_names) not in _INT_DTYPES | {None}
                    for a in func.value.args)):
            self.refuse(node, m, "a conversion other than reading a view back")


def _local_names(tree: ast.AST) -> set[str]:
    """Names local to the functions and lambdas in tree (parameters, assignments)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            out |= {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
            out |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    out.add(sub.id)
        elif isinstance(node, ast.comprehension):
            out |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    return out


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
            scan = _Flags(f"cell {k + 1}")
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
    from labkit import remote

    if isinstance(fn, remote.Remote):  # trusted grading: read what was handed in
        return submitted_casts(fn._target[1], remote.learner_sources(), dtype)
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
