"""labkit.judge.nocast: the method checks of notebook 04's round_to_bf16 exercise.

The source check is an allow-list: a cast to bfloat16 written any of the ways the course has
seen, and any other operation outside the list, is reported by name and line; bit-level
answers written in several styles, and naming the dtype where nothing is converted, are not.
"""

from __future__ import annotations

import linecache
import textwrap

import pytest
import torch

from labkit.judge.nocast import forbid_casts, source_casts


def define(body: str, extra: str = ""):
    """round_to_bf16(x) with this body, defined like a notebook cell (source readable)."""
    src = extra + "def round_to_bf16(x):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    name = f"<cell-{abs(hash(src))}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    ns = {"torch": torch, "__name__": "__main__"}
    exec(compile(src, name, "exec"), ns)
    return ns["round_to_bf16"]


INTEGER_ONLY = """
    bits = x.view(torch.int32)
    out = ((bits + 0x7FFF + ((bits >> 16) & 1)) & -0x10000).view(torch.float32)
    return torch.where(torch.isnan(x), x, out)
"""

CASTS = {
    "to": "return x.to(torch.bfloat16).float()",
    "method": "return x.bfloat16().float()",
    "dtype keyword": "return torch.as_tensor(x, dtype=torch.bfloat16).float()",
    "type": "return x.type(torch.bfloat16).float()",
    "named first": "dt = torch.bfloat16\nreturn x.to(dt).float()",
    "getattr at run time": "return x.to(getattr(torch, 'bfloat' + '16')).float()",
    "getattr literal": "return x.to(getattr(torch, 'bfloat16')).float()",
    "hooks off": "with torch._C.DisableTorchFunction():\n    return x.to(x.dtype).float()",
    "thread": ("import threading\nr = []\nt = threading.Thread(target=lambda: r.append(x))\n"
               "t.start(); t.join()\nreturn r[0]"),
    "from-import thread": ("from concurrent.futures import ThreadPoolExecutor as P\n"
                           "return P(1).submit(lambda: x).result()"),
    "eval": "return eval('x.to(torch.bfloat16)').float()",
    "module dict": "return x.to(vars(torch)['bfloat16']).float()",
}


@pytest.mark.parametrize("body", list(CASTS.values()), ids=list(CASTS))
def test_casts_are_reported(body):
    found = source_casts(define(body), torch.bfloat16)
    assert found, f"no finding for:\n{body}"
    assert all(f.startswith("round_to_bf16 uses `") for f in found), found


def test_integer_code_and_mere_mentions_pass():
    body = INTEGER_ONLY + """
    drop = torch.finfo(torch.float32).bits - torch.finfo(torch.bfloat16).bits
    half = torch.tensor([0x3F80], dtype=torch.int16).view(torch.bfloat16).float()
    if x.dtype == torch.bfloat16 or x.dtype in (torch.float16, torch.bfloat16):
        raise TypeError("x must be float32")
    if x.dtype != torch.float32:
        raise TypeError(f"x must be float32, not bfloat16: got {x.dtype}")
    n = getattr(x, "shape")
"""
    body = body.replace("    return torch.where", "    pass  # return torch.where", 1)
    assert source_casts(define(body), torch.bfloat16) == []


def test_a_notebook_helper_it_calls_is_read_too():
    fn = define("return helper(x)", extra="def helper(t):\n    return t.to(torch.bfloat16).float()\n\n")
    found = source_casts(fn, torch.bfloat16)
    assert any(f.startswith("helper uses `to(torch.bfloat16)` (line 2") for f in found), found


def test_global_alias_of_an_escape_is_reported():
    fn = define("with Off():\n    return x", extra="from torch._C import DisableTorchFunction as Off\n")
    assert source_casts(fn, torch.bfloat16)[0].startswith("round_to_bf16 uses `with` (line 2)")


def test_unreadable_source_is_reported():
    ns: dict = {}
    exec("def round_to_bf16(x):\n    return x\n", ns)  # no source kept
    assert "cannot be read" in source_casts(ns["round_to_bf16"], torch.bfloat16)[0]


def test_bad_arguments_say_what_to_pass():
    with pytest.raises(TypeError, match="fn must be a function"):
        source_casts("round_to_bf16", torch.bfloat16)
    with pytest.raises(TypeError, match="torch.dtype"):
        with forbid_casts("bfloat16"):
            pass


def test_forbid_casts_sees_below_disable_torch_function():
    x = torch.randn(8)
    with pytest.raises(AssertionError, match="round_to_bf16 made a torch.bfloat16 tensor"):
        with forbid_casts(torch.bfloat16, "round_to_bf16"):
            with torch._C.DisableTorchFunction():
                x.to(getattr(torch, "bfloat" + "16"))


def test_forbid_casts_lets_integer_code_and_bit_views_through():
    x = torch.randn(64)
    fn = define(INTEGER_ONLY)
    with forbid_casts(torch.bfloat16):
        got = fn(x)
        torch.tensor([0x3F80], dtype=torch.int16).view(torch.bfloat16)
    assert torch.equal(got, x.to(torch.bfloat16).float())


OUTSIDE_THE_LIST = {
    # a bfloat16 buffer made from integer bits, filled by a real cast inside copy_
    "copy_": ("buf = torch.empty(x.shape, dtype=torch.int16).view(torch.bfloat16).to(x.device)\n"
              "buf.copy_(x)\nreturn buf.float()", "view(torch.bfloat16)", 2),
    # to() with a tensor argument casts to that tensor's dtype
    "to a tensor": ("like = torch.zeros(1, dtype=torch.int32)\nreturn x.to(like)",
                    "x.to(like)", 3),
    "float arithmetic (Veltkamp's split)": ("c = x * 65537\nreturn c - (c - x)", "*", 2),
    "true division": ("bits = x.view(torch.int32)\nreturn (bits / 65536).view(torch.float32)", "/", 3),
    "a float constant": ("bits = x.view(torch.int32)\nreturn torch.where(bits > 0, x, 0.5)",
                         "0.5", 3),
    "new_tensor": ("return x.new_tensor(x)", "new_tensor", 2),
    # an integer's value converted to float rounds it (to 24 bits): not a read-back of bits
    # divmod on a float tensor is float arithmetic without an operator
    "divmod": ("whole, part = divmod(x, 1)\nreturn whole", "divmod", 2),
    "float() of integer values": ("return (x.view(torch.int32) >> 8).float()", "float", 2),
    "numpy": ("return torch.from_numpy(x.numpy())", "from_numpy", 2),
    # a float's magnitude or negation is float arithmetic too, however it is written
    "abs of a float tensor": ("mag = x.abs().view(torch.int32)\nreturn mag.view(torch.float32)", "abs", 2),
    "torch.abs": ("return torch.abs(x)", "abs", 2),
    "the builtin abs": ("return abs(x)", "abs", 2),
    "unary minus": ("y = -x\nreturn -y", "-", 2),
    "neg": ("return x.neg().neg()", "neg", 2),
}


@pytest.mark.parametrize("case", list(OUTSIDE_THE_LIST.values()), ids=list(OUTSIDE_THE_LIST))
def test_the_first_operation_outside_the_list_is_named(case):
    body, op, line = case
    found = source_casts(define(body), torch.bfloat16)
    assert found and found[0].startswith(f"round_to_bf16 uses `{op}` (line {line}"), found
    assert "which is not one of the operations a bit-level answer may use: " in found[0]


BIT_LEVEL_STYLES = {
    "torch functions": """
        bits = torch.bitwise_and(x.view(torch.int32), -1)
        lsb = torch.bitwise_and(torch.bitwise_right_shift(bits, 16), 1)
        out = torch.bitwise_and(torch.add(torch.add(bits, 0x7FFF), lsb), -65536)
        return torch.where(torch.isnan(x), x, out.view(torch.float32))
    """,
    "// and %": """
        u = x.view(torch.int32).to(torch.int64) % 2**32
        low, high = u % 65536, u // 65536
        up = (low > 32768) | ((low == 32768) & (high % 2 == 1))
        r = ((high + up.to(torch.int64)) * 65536).to(torch.int32)
        return torch.where(x != x, x, r.view(torch.float32))
    """,
    "int16 bits read back through a bfloat16 view": """
        bits = x.view(torch.int32)
        upper = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).to(torch.int16)
        return torch.where(torch.isnan(x), x, upper.view(torch.bfloat16).float())
    """,
}


@pytest.mark.parametrize("body", list(BIT_LEVEL_STYLES.values()), ids=list(BIT_LEVEL_STYLES))
def test_bit_level_styles_pass_and_are_right(body):
    fn = define(body)
    assert source_casts(fn, torch.bfloat16) == []
    x = torch.randn(4096)
    assert torch.equal(fn(x), x.to(torch.bfloat16).float())
