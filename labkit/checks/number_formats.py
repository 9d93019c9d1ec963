"""Checks of notebook 04 (number formats): what its test cells call, so that each cell reads
as the contract.

Each check calls the learner's function and raises an AssertionError whose message is what
the learner reads. The checks run where the test cell runs: in the learner's own kernel
(Validate) the learner's function itself, in trusted grading the judge's proxy of it
(``labkit.judge``): arguments go by value, results come back as values, and what the call
did to a tensor argument comes back onto the judge's copy. Expected values are computed
here, from copies made before the call.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import torch

from labkit.checks import check_equal

# Special cases of round_to_bf16: 32-bit pattern -> what it is and what it must become.
BF16_SPECIAL = {
    0x3F808000: "1 + 2**-8, a tie: 1.0 is even, so it rounds down",
    0x3F818000: "1 + 3 * 2**-8, a tie: the lower neighbour is odd, so it rounds up",
    0xBF808000: "-(1 + 2**-8), a negative tie",
    0x3F807FFF: "just below a tie: rounds down",
    0x3F808001: "just above a tie: rounds up",
    0x7F7FFFFF: "the largest float32: overflows to inf in BF16",
    0x7F800000: "+inf",
    0xFF800000: "-inf",
    0x7FC00000: "a NaN",
    0x7F800001: "a NaN whose payload is only in the low 16 bits: must stay NaN, not become inf",
}


# ---- float32_fields and format_limits ---------------------------------------------------

def check_fields(float32_fields: Callable, x: Any, expected: tuple, why: str) -> None:
    """float32_fields(x) returns ``expected``; an OverflowError (x beyond FP32) fails with why."""
    try:
        got = float32_fields(x)
    except OverflowError as exc:
        raise AssertionError(f"float32_fields({x!r}) raised OverflowError ({exc}); storing {x!r} as "
                             f"FP32 gives inf, so expected {expected}") from None
    check_equal(got, expected, f"float32_fields({x!r}): {why}")


def returns_python_ints(float32_fields: Callable, x: Any) -> None:
    """float32_fields(x) returns three Python ints (not NumPy or tensor scalars)."""
    got = float32_fields(x)
    assert all(type(v) is int for v in got), (
        f"expected three Python ints, got {[type(v).__name__ for v in got]}")


def smallest_subnormal(dtype: torch.dtype) -> float:
    """The value of the bit pattern 0...01 read as dtype."""
    as_int = {torch.float32: torch.int32, torch.float16: torch.int16,
              torch.bfloat16: torch.int16, torch.float64: torch.int64,
              torch.float8_e5m2: torch.uint8}[dtype]
    return torch.tensor([1], dtype=as_int).view(dtype).item()


def check_limits(format_limits: Callable, dtype: torch.dtype, layout: tuple) -> None:
    """format_limits(*layout) is a dict of floats equal to torch.finfo(dtype)'s limits, and
    the smallest subnormal its pattern 0...01; no OverflowError on the way."""
    try:
        got = format_limits(*layout)
    except OverflowError as exc:
        raise AssertionError(f"format_limits{layout} raised OverflowError ({exc}): an intermediate such as "
                             f"2.0 ** {2 ** (layout[0] - 1)} is beyond float64 even though the limits "
                             "are not") from None
    assert isinstance(got, dict), f"format_limits{layout}: expected a dict, got {type(got).__name__}"
    kinds = {k: type(v).__name__ for k, v in got.items()}
    assert all(isinstance(v, float) for v in got.values()), (
        f"format_limits{layout}: expected floats, got {kinds}")
    info = torch.finfo(dtype)
    check_equal(got.get("eps"), info.eps, f"format_limits{layout}['eps'] ({dtype})")
    check_equal(got.get("max"), info.max, f"format_limits{layout}['max'] ({dtype})")
    check_equal(got.get("min_normal"), info.smallest_normal,
                f"format_limits{layout}['min_normal'] ({dtype})")
    check_equal(got.get("min_subnormal"), smallest_subnormal(dtype),
                f"format_limits{layout}['min_subnormal'] ({dtype})")


# ---- rounding: bit patterns, references, checks ------------------------------------------

def as_float32(patterns) -> torch.Tensor:
    """float32 tensor from 32-bit patterns given as unsigned ints."""
    return torch.tensor([p - (1 << 32) if p >= 1 << 31 else p for p in patterns],
                        dtype=torch.int32).view(torch.float32)


def from_bits(*patterns: int) -> torch.Tensor:
    """float32 tensor from 32-bit patterns given as unsigned ints."""
    return as_float32(patterns)


def random_patterns(gen: torch.Generator, n: int) -> torch.Tensor:
    """n float32 values of uniformly random bit patterns: every sign, exponent and mantissa,
    NaN and inf included."""
    patterns = torch.randint(-2**31, 2**31, (n,), generator=gen, dtype=torch.int64).to(torch.int32)
    return patterns.view(torch.float32)


def bf16_cast(t: torch.Tensor) -> torch.Tensor:
    """The reference of round_to_bf16: PyTorch's cast to bfloat16 and back."""
    return t.to(torch.bfloat16).float()


def reference_round(x: torch.Tensor, mantissa_bits: int) -> torch.Tensor:
    """Round float32 x to mantissa_bits with FP32's exponent range, by float64 arithmetic."""
    d = x.double()
    _, e = torch.frexp(d)                                       # |d| = f * 2**e, 0.5 <= f < 1
    quantum = torch.ldexp(torch.ones_like(d), torch.clamp(e - 1, min=-126) - mantissa_bits)
    r = torch.round(d / quantum) * quantum                      # torch.round: ties to even
    largest = (2 - 2.0 ** -mantissa_bits) * 2.0 ** 127
    r = torch.where(r.abs() > largest, torch.copysign(torch.full_like(d, math.inf), d), r)
    r = torch.where(torch.isfinite(d), torch.copysign(r, d), d)  # inf, NaN, and the sign of 0
    return r.float()


def tf32_reference(t: torch.Tensor) -> torch.Tensor:
    """The reference of round_to_tf32: ``reference_round(t, 10)``."""
    return reference_round(t, 10)


def _hex(t: torch.Tensor, i: int) -> str:
    return f"0x{int(t[i].view(torch.int32)) & 0xFFFFFFFF:08X}"


def check_bits(x: torch.Tensor, got: Any, expected: torch.Tensor, what: str) -> None:
    """``got`` is a float32 tensor of ``expected``'s shape, equal to it bit for bit (any NaN
    for a NaN); a failure names the first input of ``x`` where they differ."""
    assert isinstance(got, torch.Tensor), f"{what}: expected a tensor, got {type(got).__name__}"
    check_equal(got.dtype, torch.float32, f"{what}: dtype of the result")
    check_equal(tuple(got.shape), tuple(expected.shape), f"{what}: shape of the result")
    g, e = got.reshape(-1), expected.reshape(-1)
    same = (g.view(torch.int32) == e.view(torch.int32)) | (torch.isnan(g) & torch.isnan(e))
    if not bool(same.all()):
        i = int((~same).nonzero()[0])
        xs = x.reshape(-1)
        raise AssertionError(
            f"{what}: {int((~same).sum())} of {same.numel()} values differ; first: input "
            f"{xs[i].item()!r} ({_hex(xs, i)}): expected {e[i].item()!r} ({_hex(e, i)}), "
            f"got {g[i].item()!r} ({_hex(g, i)})")


def _unchanged(x: torch.Tensor, before: torch.Tensor, what: str) -> None:
    changed = (x.view(torch.int32) != before.view(torch.int32)).reshape(-1)
    if bool(changed.any()):
        i = int(changed.nonzero()[0])
        old, new = (int(t.reshape(-1)[i].view(torch.int32)) & 0xFFFFFFFF for t in (before, x))
        raise AssertionError(f"{what} changed its input at {int(changed.sum())} of {x.numel()} positions; "
                             f"first: 0x{old:08X} became 0x{new:08X}. Work on a new tensor "
                             "(x.view(torch.int32) shares x's memory)")


def check_untouched(fn: Callable, x: torch.Tensor, what: str) -> None:
    """fn(x) leaves every bit of x as it was (NaN payloads included)."""
    before = x.clone()
    fn(x)
    _unchanged(x, before, what)


def check_rounding(fn: Callable, x: torch.Tensor, reference: Callable, what: str) -> None:
    """fn(x) returns a new tensor equal bit for bit to reference(a copy of x made before the
    call), and leaves every bit of x as it was."""
    before = x.clone()
    expected = reference(before.clone())
    got = fn(x)
    assert got is not x, f"{what}: returned its input x itself; return a new tensor"
    check_bits(before, got, expected, what)
    _unchanged(x, before, what)


def check_low_bits_clear(fn: Callable, x: torch.Tensor, bits: int, what: str) -> None:
    """The lowest ``bits`` bits of every value fn(x) returns are zero."""
    got = fn(x).view(torch.int32)
    assert bool(((got & ((1 << bits) - 1)) == 0).all()), what


# ---- generated inputs (Hypothesis) -------------------------------------------------------

def rounding_patterns(drop: int):
    """32-bit patterns around the rounding boundaries of a format that keeps 23 - drop
    mantissa bits: every binade (subnormals, the largest finite, inf and NaN), kept bits
    even, odd, all ones, and dropped bits on both sides of half and at it (a tie)."""
    from hypothesis import strategies as st

    half, full, kept = 1 << (drop - 1), (1 << drop) - 1, (1 << (23 - drop)) - 1
    return st.builds(
        lambda s, e, k, d: (s << 31) | (e << 23) | (k << drop) | d,
        st.integers(0, 1),
        st.one_of(st.sampled_from([0, 1, 127, 254, 255]), st.integers(0, 255)),
        st.one_of(st.sampled_from([0, 1, 2, kept - 1, kept]), st.integers(0, kept)),
        st.one_of(st.sampled_from([0, 1, half - 1, half, half + 1, full]), st.integers(0, full)))


def shaped(kind: str, values) -> torch.Tensor:
    """values (32-bit patterns) in a float32 tensor of the given shape and layout: empty,
    one element, 0-d, several dimensions, transposed, strided."""
    x = as_float32(values)
    n = x.numel()
    if kind == "0-d":
        return x[:1].reshape(()) if n else x
    if kind == "2-d" and n % 2 == 0:
        return x.reshape(2, n // 2)
    if kind == "transposed" and n % 2 == 0:
        return x.reshape(2, n // 2).t()
    if kind == "strided" and n > 1:
        return as_float32(list(values) + list(values))[::2]
    if kind == "3-d" and n % 6 == 0:
        return x.reshape(-1, 3, 2).permute(2, 0, 1)
    return x


def boundary_sweep(drop: int) -> list[int]:
    """Every sign and binade (exponent field 0 to 255), kept bits 0, 1, 2, all ones but one and
    all ones, dropped bits 0, 1, just under half, half (a tie), just over half, all ones."""
    half, full, kept = 1 << (drop - 1), (1 << drop) - 1, (1 << (23 - drop)) - 1
    return [(s << 31) | (e << 23) | (k << drop) | d for s in (0, 1) for e in range(256)
            for k in (0, 1, 2, kept - 1, kept) for d in (0, 1, half - 1, half, half + 1, full)]


# ---- tf32_matmul ---------------------------------------------------------------------------

def fp32_sum_bound(a_t: torch.Tensor, b_t: torch.Tensor) -> torch.Tensor:
    """gamma_K * (|a_t| @ |b_t|): how far an FP32-accumulated a_t @ b_t may be from the exact
    one, in any order of summation (u = 2**-24, plus 2**-52 for the float64 reference's own
    rounding; gamma_K = K u / (1 - K u))."""
    k, u = a_t.shape[-1], 2.0 ** -24 + 2.0 ** -52
    return (k * u / (1 - k * u)) * (a_t.double().abs() @ b_t.double().abs())


def check_tf32_product(tf32_matmul: Callable, a: torch.Tensor, b: torch.Tensor, what: str) -> None:
    """tf32_matmul(a, b) is a float32 (M, N) tensor within the FP32 accumulation bound of the
    float64 product of a and b rounded to TF32."""
    a_t, b_t = reference_round(a, 10), reference_round(b, 10)
    got = tf32_matmul(a, b)
    assert isinstance(got, torch.Tensor), f"{what}: expected a tensor, got {type(got).__name__}"
    check_equal(got.dtype, torch.float32, f"dtype of {what}")
    check_equal(tuple(got.shape), (a.shape[0], b.shape[1]), f"shape of {what}")
    err = (got.double() - a_t.double() @ b_t.double()).abs()
    excess = err / fp32_sum_bound(a_t, b_t)
    i = int(excess.argmax())
    assert bool((err <= fp32_sum_bound(a_t, b_t)).all()), (
        f"{what}: element {divmod(i, got.shape[1])} is off by {err.reshape(-1)[i].item():.3g}, "
        f"{excess.reshape(-1)[i].item():.3g} times the FP32 accumulation bound; are both inputs "
        "rounded to TF32?")
