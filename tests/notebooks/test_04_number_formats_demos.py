"""Notebook 04's demo helpers that no graded test covers: the float64 rounding behind the GPU
TF32 check (which runs only where a GPU is), stochastic rounding, and the compensated sum.

Runs the cells that define them from solutions/04_number_formats, in-process.
"""

from __future__ import annotations

import math

import matplotlib
import pytest
import torch

from tests.harness import notebook_namespace

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace("04_number_formats",
                              containing=("import labkit", "def round_mantissa", "def kahan_sum",
                                          "def stochastic_round_bf16"),
                              grade_ids=("round_to_tf32",))


def finite_normals(n: int, seed: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, generator=gen) * torch.exp(torch.randn(n, generator=gen) * 10)
    bits = x.view(torch.int32).clone()
    tie = torch.rand(n, generator=gen) < 0.5
    bits[tie] = (bits[tie] & -0x2000) | 0x1000  # exact TF32 ties
    return bits.view(torch.float32)


def test_round_mantissa_ties_to_even_is_the_course_tf32_rounding(ns):
    x = finite_normals(20000, 1)
    assert torch.equal(ns["round_mantissa"](x, 10, "even"), ns["round_to_tf32"](x))
    assert torch.equal(ns["round_mantissa"](x, 7, "even"), x.to(torch.bfloat16).float())


def test_round_mantissa_ties_away_is_cvt_rna(ns):
    x = finite_normals(20000, 2)
    rna = ((x.view(torch.int32) + 0x1000) & -0x2000).view(torch.float32)
    away = ns["round_mantissa"](x, 10, "away")
    assert torch.equal(away, rna)
    even = ns["round_mantissa"](x, 10, "even")
    ties = ((x.view(torch.int32) & 0x1FFF) == 0x1000)
    differ = away != even
    assert bool((differ <= ties).all()), "ties-away and ties-to-even may differ only on ties"
    assert int(differ.sum()) > 0.4 * int(ties.sum()), "about half the ties (the even ones) differ"


def test_stochastic_rounding_picks_a_neighbour_and_is_unbiased(ns):
    sr = ns["stochastic_round_bf16"]
    gen = torch.Generator().manual_seed(3)
    for value in (1.001, -3.14159, 1e-30, 7e30):
        x = torch.full((200_000,), value)
        out = sr(x, gen)
        down = x.view(torch.int32) & -0x10000
        up = down + 0x10000
        assert bool(((out.view(torch.int32) == down) | (out.view(torch.int32) == up)).all()), value
        lo, hi = down[0].view(torch.float32).item(), up[0].view(torch.float32).item()
        p = (abs(value) - abs(lo)) / (abs(hi) - abs(lo))
        sigma = abs(hi - lo) * math.sqrt(p * (1 - p) / x.numel())
        mean = out.double().mean().item()
        assert abs(mean - float(torch.tensor(value))) < 6 * sigma, (value, mean)


def test_kahan_sum_beats_the_naive_sum_in_bf16(ns):
    values = (torch.rand(2048, generator=torch.Generator().manual_seed(4)) * 0.02).to(torch.bfloat16)
    exact = values.double().sum().item()
    kahan = ns["kahan_sum"](values, torch.bfloat16)
    naive = ns["naive_sum"](values, torch.bfloat16)
    u = torch.finfo(torch.bfloat16).eps / 2
    assert abs(kahan - exact) <= u * exact < abs(naive - exact)
    assert ns["kahan_sum"](values, torch.float32) == pytest.approx(exact, rel=1e-6)
