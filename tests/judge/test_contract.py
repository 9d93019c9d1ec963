"""labkit.judge.contract: a learner's function against the reference on generated inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import strategies as st

from labkit.judge.contract import agrees, refuses, same

SIZES = st.integers(0, 10**6)
RATES = st.floats(1e-3, 1e4)


def reference_time(nbytes, bandwidth_gb_s, latency_us):
    if not bandwidth_gb_s > 0:
        raise ValueError(f"bandwidth_gb_s must be positive, got {bandwidth_gb_s}")
    if not nbytes >= 0:
        raise ValueError(f"nbytes must not be negative, got {nbytes}")
    return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)


INPUTS = {"nbytes": SIZES, "bandwidth_gb_s": st.one_of(RATES, st.just(0.0)),
          "latency_us": st.floats(0, 1e3)}


def test_a_correct_function_passes():
    def mine(n, bw, lat):  # other parameter names, another route to the same value
        if bw <= 0 or math.isnan(bw):
            raise ValueError("bandwidth_gb_s: needs a positive number")
        if n < 0:
            raise ValueError("nbytes < 0")
        return float(lat / 1e6 + n / bw / 1e9)

    agrees(mine, reference_time, INPUTS, rtol=1e-12, examples=[(1, 0.0, 1.0)])


def test_wrong_type_fails():
    def numpy_float(n, bw, lat):
        return np.float64(reference_time(n, bw, lat))

    with pytest.raises(AssertionError, match=r"expected a float .* got a numpy.float64"):
        agrees(numpy_float, reference_time, INPUTS, examples=[(1, 1.0, 0.0)])


def test_wrong_value_fails_and_shrinks_to_the_small_case():
    def off_by_one(n, bw, lat):
        if bw <= 0:
            raise ValueError("bandwidth_gb_s")
        return lat * 1e-6 + (n - (n > 7)) / (bw * 1e9)

    with pytest.raises(AssertionError) as info:
        agrees(off_by_one, reference_time, {"nbytes": st.integers(0, 10**9),
                                            "bandwidth_gb_s": st.just(1.0),
                                            "latency_us": st.just(0.0)}, max_examples=200)
    text = str(info.value)
    assert "reference_time(8, 1.0, 0.0)" in text or "time(8, 1.0, 0.0)" in text, text
    assert "expected 8e-09" in text and "7e-09" in text, text


def test_tolerance_is_applied():
    def rounded(n, bw, lat):
        if bw <= 0:
            raise ValueError("bandwidth_gb_s")
        return reference_time(n, bw, lat) * (1 + 1e-9)

    agrees(rounded, reference_time, INPUTS, rtol=1e-8, examples=[(1, 1.0, 0.0)])
    with pytest.raises(AssertionError, match="rtol"):
        agrees(rounded, reference_time, INPUTS, rtol=1e-12, examples=[(1, 1.0, 0.0)])


def test_wrong_error_type_fails():
    def type_error(n, bw, lat):
        if bw <= 0:
            raise TypeError("bandwidth_gb_s must be positive")
        return reference_time(n, bw, lat)

    with pytest.raises(AssertionError, match="expected ValueError .* got TypeError"):
        agrees(type_error, reference_time, INPUTS, examples=[(1, 0.0, 1.0)])


def test_returning_where_the_reference_raises_fails():
    def no_check(n, bw, lat):
        return lat * 1e-6 + n / (bw * 1e9) if bw else math.inf

    with pytest.raises(AssertionError, match=r"should raise ValueError .* but it returned inf"):
        agrees(no_check, reference_time, INPUTS, examples=[(1, 0.0, 1.0)])


def test_error_must_name_the_argument_and_only_it():
    def unnamed(n, bw, lat):
        if bw <= 0:
            raise ValueError("the link must be positive")
        return reference_time(n, bw, lat)

    def names_all(n, bw, lat):
        if bw <= 0:
            raise ValueError(f"need nbytes >= 0 and bandwidth_gb_s > 0, got {n}, {bw}")
        return reference_time(n, bw, lat)

    with pytest.raises(AssertionError, match="should name the argument bandwidth_gb_s"):
        agrees(unnamed, reference_time, INPUTS, examples=[(1, 0.0, 1.0)])
    with pytest.raises(AssertionError, match="also names nbytes"):
        agrees(names_all, reference_time, INPUTS, examples=[(1, 0.0, 1.0)])


def test_an_error_where_none_is_due_fails():
    def strict(n, bw, lat):
        if lat == 0:
            raise ValueError("latency_us must be positive")
        return reference_time(n, bw, lat)

    with pytest.raises(AssertionError, match="raised ValueError: latency_us .* expected it to "
                                             "return"):
        agrees(strict, reference_time, INPUTS, examples=[(1, 1.0, 0.0)])


def _scale_(t, factor):
    t.mul_(factor)


def test_missing_in_place_effect_fails():
    def not_in_place(t, factor):
        t = t * factor  # rebinds: the caller's tensor is untouched

    inputs = {"t": st.lists(st.integers(-5, 5), min_size=1, max_size=4).map(
        lambda v: torch.tensor(v, dtype=torch.float32)), "factor": st.integers(2, 3)}
    agrees(_scale_, _scale_, inputs)
    with pytest.raises(AssertionError, match="changed its argument t"):
        agrees(not_in_place, _scale_, inputs, examples=[(torch.ones(2), 2)])


def test_mutating_an_input_fails():
    def halves(t):
        return t.float() / 2

    def halves_in_place(t):
        return t.div_(2)

    inputs = {"t": st.just(torch.tensor([2.0, 4.0]))}
    agrees(halves, halves, inputs)
    with pytest.raises(AssertionError, match="argument t"):
        agrees(halves_in_place, halves, inputs)


def test_tensor_dtype_shape_and_grad_are_compared():
    assert same(torch.ones(2), torch.ones(2)) is None
    assert "dtype" in same(torch.ones(2, dtype=torch.float64), torch.ones(2))
    assert "shape" in same(torch.ones(1, 2), torch.ones(2))
    assert "index [1]" in same(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 3.0]))
    assert same(torch.tensor([math.nan]), torch.tensor([math.nan])) is None
    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    a.grad, b.grad = torch.ones(2), torch.zeros(2)
    assert ".grad" in same(a, b)
    assert "bfloat16" in same(torch.ones(2, dtype=torch.bfloat16), torch.ones(2, dtype=torch.float16))
    assert same(torch.ones(2, dtype=torch.bfloat16), torch.ones(2, dtype=torch.bfloat16)) is None
    assert "items" in same([1, 2], [1, 2, 3])
    assert "tuple" in same([1, 2], (1, 2))
    assert "int" in same(True, 1)


def test_state_is_compared():
    class Counter:
        def __init__(self):
            self.n = 0

    def bump(c):
        c.n += 1

    def bump_twice(c):
        c.n += 2

    inputs = {"c": st.builds(Counter)}
    agrees(bump, bump, inputs, state=lambda result, c: {"c.n": c.n})
    with pytest.raises(AssertionError, match="c.n: expected 1, got 2"):
        agrees(bump_twice, bump, inputs, state=lambda result, c: {"c.n": c.n})


def test_refuses_one_argument_at_a_time():
    valid = {"nbytes": SIZES, "bandwidth_gb_s": RATES}
    invalid = {"nbytes": st.integers(-10, -1), "bandwidth_gb_s": st.floats(max_value=0.0)}

    def good(nbytes, bandwidth_gb_s):
        if not bandwidth_gb_s > 0:
            raise ValueError("bandwidth_gb_s must be positive")
        if nbytes < 0:
            raise ValueError("nbytes must not be negative")
        return 0.0

    def names_both(nbytes, bandwidth_gb_s):
        if nbytes < 0 or not bandwidth_gb_s > 0:
            raise ValueError("need nbytes >= 0 and bandwidth_gb_s > 0")
        return 0.0

    def lets_nan_through(nbytes, bandwidth_gb_s):
        if bandwidth_gb_s <= 0:
            raise ValueError("bandwidth_gb_s must be positive")
        if nbytes < 0:
            raise ValueError("nbytes must not be negative")
        return 0.0

    refuses(good, valid, invalid)
    with pytest.raises(AssertionError, match="also names"):
        refuses(names_both, valid, invalid)
    nan_invalid = {**invalid, "bandwidth_gb_s": st.just(math.nan)}
    with pytest.raises(AssertionError, match="should raise ValueError about bandwidth_gb_s"):
        refuses(lets_nan_through, valid, nan_invalid,
                examples=[("bandwidth_gb_s", (1, math.nan))])


def test_examples_run_under_a_cap_of_generated_examples():
    calls = []

    def ref(x):
        return x

    def mine(x):
        calls.append(x)
        return x

    agrees(mine, ref, {"x": st.integers(0, 3)}, examples=[(-1,), {"x": -2}], max_examples=1)
    assert calls[:2] == [-1, -2]


def test_only_can_be_relaxed():
    def names_both(nbytes, bandwidth_gb_s):
        if nbytes < 0 or not bandwidth_gb_s > 0:
            raise ValueError("need nbytes >= 0 and bandwidth_gb_s > 0")
        return 0.0

    refuses(names_both, {"nbytes": SIZES, "bandwidth_gb_s": RATES},
            {"nbytes": st.integers(-10, -1), "bandwidth_gb_s": st.floats(max_value=0.0)},
            only=False)


def test_bitwise_counts_signs_of_zero_and_input_nan_payloads():
    def flush(t):
        return torch.where(t == 0, torch.zeros_like(t), t)  # -0.0 becomes +0.0

    def ref(t):
        return t.clone()

    inputs = {"t": st.just(torch.tensor([-0.0, 1.0]))}
    agrees(flush, ref, inputs)  # by value, -0.0 == 0.0
    with pytest.raises(AssertionError, match="0x80000000"):
        agrees(flush, ref, inputs, bitwise=True)

    def quiets_nan(t):
        t.view(torch.int32)[:] = t.view(torch.int32) | 0x00400000
        return t.clone()

    nan_in = torch.tensor([1], dtype=torch.int32).__or__(0x7F800000).view(torch.float32)
    with pytest.raises(AssertionError, match="argument t"):
        agrees(quiets_nan, ref, {"t": st.just(nan_in)}, bitwise=True)


def test_returning_the_argument_itself_is_caught():
    def same_tensor(t):
        return t

    with pytest.raises(AssertionError, match="its argument t itself"):
        agrees(same_tensor, lambda t: t.clone(), {"t": st.just(torch.ones(2))}, name="copy")


def test_only_can_list_the_arguments_an_error_must_not_name():
    def names_seconds(k, n, seconds):
        if k < 0:
            raise ValueError("k must not be negative: a chain takes no seconds")
        if n < 0:
            raise ValueError("n must not be negative")
        return 0.0

    valid = {"k": st.integers(0, 5), "n": st.integers(0, 5), "seconds": st.floats(0, 1)}
    invalid = {"k": st.integers(-5, -1), "n": st.integers(-5, -1)}
    refuses(names_seconds, valid, invalid, only=["k", "n"])
    with pytest.raises(AssertionError, match="also names seconds"):
        refuses(names_seconds, valid, invalid, examples=[("k", (-1, 0, 0.5))])


def test_inputs_drawn_together():
    @st.composite
    def cases(draw):
        dtype = draw(st.sampled_from([torch.float16, torch.bfloat16]))
        return {"value": draw(st.floats(-100, 100)), "dtype": dtype}

    def ref(value, dtype):
        return float(torch.tensor(value, dtype=dtype))

    def wrong(value, dtype):
        return float(torch.tensor(value, dtype=torch.float16))

    agrees(ref, ref, cases(), examples=[{"value": 1.0, "dtype": torch.float16}])
    with pytest.raises(AssertionError, match="bfloat16"):
        agrees(wrong, ref, cases(), examples=[{"value": 1.01, "dtype": torch.bfloat16}])


def test_arguments_arrive_in_call_order():
    """Hypothesis shuffles the keys of the dicts fixed_dictionaries draws (its issue #3906):
    both functions still get the arguments in the order of ``inputs`` (one strategy drawing
    dicts: the reference's parameters)."""
    seen = []

    def ref(z_first, a_second, m_third):
        seen.append((z_first, a_second, m_third))
        return (z_first, a_second, m_third)

    inputs = {"z_first": st.just("z"), "a_second": st.just("a"), "m_third": st.integers(0, 9)}
    agrees(ref, ref, inputs, max_examples=30)
    agrees(ref, ref, st.fixed_dictionaries(inputs), max_examples=30)
    assert seen and all(call[:2] == ("z", "a") for call in seen), seen[:5]


def test_without_shrinking_the_first_failing_case_is_reported():
    calls = []

    def off_by_one(n):
        calls.append(n)
        return n + (n > 7)

    with pytest.raises(AssertionError, match="off_by_one|identity"):
        agrees(off_by_one, _identity, {"n": st.integers(0, 10**9)}, max_examples=50,
               shrink=False, name="identity")
    assert len(calls) <= 52, f"{len(calls)} calls: a case was shrunk"


def _identity(n):
    return n


def test_an_immutable_result_equal_to_an_argument_is_not_an_in_place_effect():
    zero = 0.0

    def ref(n, alpha):  # returns the argument alpha itself when it is 0.0
        return alpha if n < 4 or alpha == 0 else alpha * n

    def mine(n, alpha):
        return float(0) if n < 4 or alpha == 0 else alpha * n

    agrees(mine, ref, {"n": st.integers(1, 9), "alpha": st.just(zero)}, examples=[(2, zero)])
