"""labkit.judge.nocast on the trusted side: the judge reads the cells as handed in
(labkit.judge.handles.learner_sources) and follows everything round_to_bf16 can reach.

The check is an allow-list of the operations a bit-level answer needs. Each attack below
hides a cast to bfloat16 (a lambda-bound helper, an alias, a computed attribute name, a
class, a decorator, a module-level patch of a library or of the in-kernel guard, a bfloat16
tensor made from integer bits and filled by copy_ or named in to()) or rounds some other way
than by integer operations (float arithmetic, numpy); each must be reported. Correct answers
that merely name the dtype (an input check, a message, finfo, integer bits viewed as
bfloat16 and read straight back) must not be.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import nbformat
import pytest
import torch

from labkit.judge.nocast import source_casts, submitted_casts

ROOT = Path(__file__).resolve().parents[2]
SETUP = "import math\nimport numpy as np\nimport torch\nimport labkit\nfrom labkit.checks import check_equal\n"
HONEST = """
def round_to_bf16(x):
    bits = x.view(torch.int32)
    out = ((bits + 0x7FFF + ((bits >> 16) & 1)) & -0x10000).view(torch.float32)
    return torch.where(torch.isnan(x), x, out)
"""


def cells(*sources: str) -> list[str]:
    return [SETUP] + [textwrap.dedent(s) for s in sources]


def findings(*sources: str) -> list[str]:
    return submitted_casts("round_to_bf16", cells(*sources), torch.bfloat16)


ATTACKS = {
    "lambda-bound helper": """
        to_bf16 = lambda t: t.to(torch.bfloat16).float()
        def round_to_bf16(x):
            return to_bf16(x)
        """,
    "answer itself a lambda": "round_to_bf16 = lambda x: x.bfloat16().float()",
    "alias of Tensor.to and a dtype kept aside": """
        convert, DT = torch.Tensor.to, torch.bfloat16
        def round_to_bf16(x):
            return convert(x, DT).float()
        """,
    "computed attribute name": """
        def round_to_bf16(x):
            dt = torch.finfo(torch.bfloat16).dtype
            return getattr(x, "t" + "o")(getattr(torch, dt)).float()
        """,
    "methodcaller": """
        import operator
        def round_to_bf16(x):
            return operator.methodcaller("bfloat" + "16")(x).float()
        """,
    "class method": """
        class Rounder:
            def __call__(self, x):
                return x.type(torch.BFloat16Tensor).float()
        round_to_bf16 = Rounder()
        """,
    "method of a helper class": """
        class Helper:
            @staticmethod
            def go(t):
                return t.to(dtype=torch.bfloat16).float()
        def round_to_bf16(x):
            return Helper.go(x)
        """,
    "default argument": """
        def round_to_bf16(x, _dt=torch.bfloat16):
            return x.to(_dt).float()
        """,
    "decorator": """
        def cast_first(fn):
            return lambda x: fn(x.to(torch.bfloat16).float())
        @cast_first
        def round_to_bf16(x):
            return x.clone()
        """,
    "helper redefined in a later cell": (
        "def helper(x):\n    return x.clone()\n",
        "helper = lambda x: x.to(torch.bfloat16).float()\n"
        "def round_to_bf16(x):\n    return helper(x)\n"),
    "helper put in a list at module level": """
        HELPERS = []
        HELPERS.append(lambda t: t.to(torch.bfloat16).float())
        def round_to_bf16(x):
            return HELPERS[0](x)
        """,
    "helper planted through globals()": """
        globals()["helper"] = lambda t: t.to(torch.bfloat16).float()
        def round_to_bf16(x):
            return helper(x)
        """,
    "bfloat16 buffer from integer bits, filled by copy_": """
        def round_to_bf16(x):
            buf = torch.zeros(x.shape, dtype=torch.int16).view(torch.bfloat16)
            buf.copy_(x)
            return buf.float()
        """,
    "type named in a string": """
        def round_to_bf16(x):
            return x.type("torch.BFloat16Tensor").float()
        """,
    "autocast": """
        def round_to_bf16(x):
            with torch.autocast("cpu"):
                y = x.reshape(-1, 1) @ torch.ones(1, 1)
            return y.float().reshape(x.shape)
        """,
    "autocast entered at module level": """
        torch.autocast("cpu").__enter__()
        def round_to_bf16(x):
            return (x.reshape(-1, 1) @ torch.ones(1, 1)).float().reshape(x.shape)
        """,
    "matmul precision switched at module level": """
        torch.backends.mkldnn.matmul.fp32_precision = "bf" "16"
        def round_to_bf16(x):
            return (x.reshape(-1, 1) @ torch.ones(1, 1)).reshape(x.shape)
        """,
    "in-kernel guard patched, cast in a lambda (issue 21)": """
        import labkit.judge.nocast
        import contextlib
        labkit.judge.nocast.forbid_casts = lambda *a, **k: contextlib.nullcontext()
        _r = lambda t: t.to(torch.bfloat16).float()
        def round_to_bf16(x):
            return _r(x)
        """,
    "Tensor operator patched": """
        torch.Tensor.__and__ = lambda a, b: a.view(torch.float32).to(torch.float16)
        """ + HONEST,
    "dispatch mode entered at module level": """
        from torch.utils._python_dispatch import TorchDispatchMode
        class M(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))
        M().__enter__()
        """ + HONEST,
    "pickled dtype": """
        import pickle, base64
        DT = pickle.loads(base64.b64decode(b"gASVFgAAAAAAAACMBXRvcmNolIwIYmZsb2F0MTaUk5Qu"))
        def round_to_bf16(x):
            return x.to(DT).float()
        """,
    "thread": """
        from concurrent.futures import ThreadPoolExecutor
        def round_to_bf16(x):
            return ThreadPoolExecutor(1).submit(lambda: x.to(torch.bfloat16)).result().float()
        """,
    "code run from a string": """
        def round_to_bf16(x):
            return eval("x.to(torch." + "bfloat16).float()")
        """,
    "magic": """
        def round_to_bf16(x):
            get_ipython().run_cell("y = x.bfloat16()")
            return x
        """,
    "star import": """
        from torch import *
        def round_to_bf16(x):
            return x.to(bfloat16).float()
        """,
    "torch internals": """
        def round_to_bf16(x):
            return torch.ops.aten._to_copy(x, dtype=torch.float16).float()
        """,
    "ml_dtypes through numpy": """
        import ml_dtypes
        def round_to_bf16(x):
            return torch.from_numpy(x.numpy().astype(ml_dtypes.bfloat16).astype(np.float32))
        """,
    "bfloat16 buffer from integer bits moved by .to(device), filled by copy_ (issue 37)": """
        def round_to_bf16(x):
            buf = torch.empty(x.shape, dtype=torch.int16).view(torch.bfloat16).to(x.device)
            buf.copy_(x)
            return buf.float()
        """,
    "to() a tensor made by a bfloat16 view (issue 37)": """
        def round_to_bf16(x):
            like = torch.zeros(1, dtype=torch.int16).view(torch.bfloat16).to(x.device)
            return x.to(like).float()
        """,
    "to() an integer tensor": """
        def round_to_bf16(x):
            return x.to(torch.zeros(1, dtype=torch.int32))
        """,
    "float arithmetic in a helper (Veltkamp's split)": """
        def split(t):
            c = t * 65537
            return c - (c - t)
        def round_to_bf16(x):
            return split(x)
        """,
    "float arithmetic on a float32 read-back": """
        def round_to_bf16(x):
            y = x.view(torch.int32).view(torch.float32)
            y += 0
            return y
        """,
    "a class of one's own": """
        class Bits:
            def __init__(self, x):
                self.bits = x.view(torch.int32)
        def round_to_bf16(x):
            return Bits(x).bits.view(torch.float32)
        """,
    "struct and numpy (outside the list)": """
        import struct
        def round_to_bf16(x):
            out = []
            for v in x.reshape(-1).tolist():
                b = struct.unpack("<I", struct.pack("<f", v))[0]
                if (b & 0x7F800000) != 0x7F800000 or not (b & 0x7FFFFF):
                    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
                out.append(b)
            return torch.from_numpy(np.array(out, dtype=np.uint32).view(np.float32)).reshape(x.shape)
        """,
    "name from nowhere": """
        def round_to_bf16(x):
            return secret_helper(x)
        """,
}
# a bit-level answer the check reads, then the name the tests call rebound to a cast without a
# statement that binds it (the red team's globals() rebinding, issue 37, and its kin)
BITS = """
    def round_to_bf16(x):
        return (x.view(torch.int32) & -0x10000).view(torch.float32)
    def nearest(x):
        return x.to(torch.bfloat16).float()
    """
for how, line in {"globals()[name] =": 'globals()["round_to_bf16"] = nearest',
                  "globals().update": "globals().update(round_to_bf16=nearest)",
                  "vars()": 'vars()["round_to_bf16"] = nearest',
                  "sys.modules": 'import sys\nsys.modules["__main__"].round_to_bf16 = nearest',
                  "import __main__": "import __main__\n__main__.round_to_bf16 = nearest",
                  "setattr on the module": 'import __main__ as m\nsetattr(m, "round_to_bf16", nearest)',
                  "__code__ swapped": "round_to_bf16.__code__ = nearest.__code__",
                  "setattr __code__": 'setattr(round_to_bf16, "__code__", nearest.__code__)',
                  "get_ipython().user_ns": 'get_ipython().user_ns["round_to_bf16"] = nearest',
                  "a magic": "%run -i other.py",
                  "%time of a rebinding": "%time globals()['round_to_bf16'] = nearest",
                  "%%capture of a rebinding": "%%capture out\nvars()['round_to_bf16'] = nearest",
                  "a frame's globals": "import inspect\ninspect.currentframe().f_globals['round_to_bf16'] = nearest",
                  "__globals__": "nearest.__globals__['round_to_bf16'] = nearest"}.items():
    ATTACKS[f"answer rebound by {how} (issue 37)"] = (BITS, line)


@pytest.mark.parametrize("code", list(ATTACKS.values()), ids=list(ATTACKS))
def test_hidden_casts_are_reported(code):
    sources = code if isinstance(code, tuple) else (code,)
    found = findings(*sources)
    assert found, "no finding for:\n" + "\n".join(sources)


HONEST_WAYS = {
    "integer code": HONEST,
    "input check naming the dtype": """
        def round_to_bf16(x):
            if not isinstance(x, torch.Tensor) or x.dtype in (torch.bfloat16, torch.float16):
                raise TypeError(f"x must be float32, not {torch.bfloat16} or float16: got {x.dtype}")
            assert x.dtype == torch.float32, "bfloat16 input: convert it first"
            bits = x.view(torch.int32)
            out = ((bits + 0x7FFF + ((bits >> 16) & 1)) & -0x10000).view(torch.float32)
            return torch.where(torch.isnan(x), x, out)
        """,
    "finfo and int16 bits viewed as bfloat16, read back": """
        DROP = torch.finfo(torch.float32).bits - torch.finfo(torch.bfloat16).bits
        def _upper(bits):
            return ((bits + (1 << (DROP - 1)) - 1 + ((bits >> DROP) & 1)) >> DROP).to(torch.int16)
        def round_to_bf16(x):
            \"\"\"Round to bfloat16 by integer operations (no conversion to bfloat16).\"\"\"
            top = _upper(x.view(torch.int32))
            return torch.where(x.isnan(), x, top.view(torch.bfloat16).float())
        """,
    "helpers and lambdas": """
        MASK = -0x10000
        half_step = lambda lsb: 0x7FFF + lsb
        def rounded(bits):
            return (bits + half_step((bits >> 16) & 1)) & MASK
        def round_to_bf16(x):
            return torch.where(torch.isnan(x), x, rounded(x.view(torch.int32)).view(torch.float32))
        """,
    "a helper whose parameter is named like the answer's": """
        def plus_half(x):
            return x + 0x7FFF
        def round_to_bf16(x):
            bits = x.view(torch.int32)
            return torch.where(torch.isnan(x), x, ((plus_half(bits) + ((bits >> 16) & 1))
                                                   & -0x10000).view(torch.float32))
        """,
}


HONEST_WAYS["scratch cells that try casts and time the answer"] = (
    HONEST,
    "x = torch.randn(10)\ny = x.bfloat16().float()\n",
    "%timeit round_to_bf16(x)\n",
    "%timeit -n 3 -r 2 round_to_bf16(x)\n",
    "%%time\nz = round_to_bf16(x)\n",
    'import sys\nprint("torch" in sys.modules)\n',
    "check_equal(round_to_bf16(x), x.to(torch.bfloat16).float(), 'mine vs the cast')\n",
    "torch.set_float32_matmul_precision('high')\nprint(torch.get_float32_matmul_precision())\n",
    "import operator, functools\nsquares = functools.reduce(operator.add, [1, 2])\n",
)


@pytest.mark.parametrize("code", list(HONEST_WAYS.values()), ids=list(HONEST_WAYS))
def test_honest_answers_pass(code):
    sources = code if isinstance(code, tuple) else (code,)
    assert findings(*sources) == []


def test_the_course_notebook_as_handed_in_passes():
    """Every non-test cell of the solution notebook (demos that cast to bfloat16 included):
    round_to_bf16 reaches none of the casts and nothing patches a library."""
    nb = nbformat.read(ROOT / "solutions" / "04_number_formats" / "04_number_formats.ipynb",
                       as_version=4)
    sources = [c.source for c in nb.cells if c.cell_type == "code"
               and not c.metadata.get("nbgrader", {}).get("grade")]
    assert submitted_casts("round_to_bf16", sources, torch.bfloat16) == []
    # ...and the same notebook with a lambda-bound cast behind the answer is caught
    sources.append("_cast = lambda t: t.to(torch.bfloat16).float()\n"
                   "def round_to_bf16(x):\n    return _cast(x)\n")
    assert submitted_casts("round_to_bf16", sources, torch.bfloat16)


def test_a_missing_answer_is_reported():
    assert "not defined" in findings("x = 1")[0]


def test_findings_name_the_operation_and_its_line():
    found = findings(ATTACKS["lambda-bound helper"])
    assert found[0].startswith("to_bf16 uses `to(torch.bfloat16)` (cell 2, line 1"), found
    found = findings(ATTACKS["bfloat16 buffer from integer bits moved by .to(device), filled by "
                             "copy_ (issue 37)"])
    assert found[0].startswith("round_to_bf16 uses `view(torch.bfloat16)` (line 2; not read "
                               "back at once with `.float()`), which is not one of the "
                               "operations a bit-level answer may use: "), found


def test_remote_goes_to_the_submitted_cells(monkeypatch):
    """source_casts on a judge-side proxy reads learner_sources(), not the learner's kernel."""
    from labkit.judge import handles

    proxy = handles.Remote(("n", "round_to_bf16"))
    monkeypatch.setattr(handles, "learner_sources",
                        lambda: cells(ATTACKS["lambda-bound helper"]))
    assert source_casts(proxy, torch.bfloat16)
    monkeypatch.setattr(handles, "learner_sources", lambda: cells(HONEST))
    assert source_casts(proxy, torch.bfloat16) == []
