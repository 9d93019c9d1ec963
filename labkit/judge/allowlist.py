"""The operations a bit-level answer may use, and the reading of code against them (judge side).

``labkit.judge.nocast`` reads an answer's code (the cells as handed in, in trusted grading)
and asks this module, statement by statement, whether each operation is on the allow-list
(``ALLOWED``): integer views of float tensors and back, the integer and bitwise operators
on integer values (which values may be floats is followed through the code, ``_Flow``),
comparisons, ``torch.where``, layout and construction with an integer dtype. Everything
else is refused and named with its line (``_Allow``). It reads source text only: nothing here
runs or imports the learner's code, so nothing the learner's kernel does can change a
finding.
"""

from __future__ import annotations

import ast
from typing import Any, Callable

__all__ = ["ALLOWED"]

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
                     "multiply", "floor_divide", "remainder", "neg", "abs"}
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
            elif (isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Invert))
                  and self.flow.is_float(node.operand)):
                self.refuse(node, "-" if isinstance(node.op, ast.USub) else "~",
                            "arithmetic on a float tensor")
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
            elif func.id == "abs" and any(self.flow.is_float(a) for a in node.args):
                self.refuse(node, "abs", "arithmetic on a float tensor")
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
