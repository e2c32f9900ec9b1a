"""Code review 2026-12-01 (fix A, 1): `steady_tpot_s` charged a one-token request the whole batch's prefill as its
"TPOT" (step + prefill ÷ 1: qwen2.5-7b on an H100 at batch 64, --input 2048 --output 1 gave tpot_steady_s 3.06 s
beside a 12 ms decode step), and a --tpot target then forced every serving plan to batch 1. With output ≤ 1 there
is no second token, so no inter-token gap: TPOT is NaN (undefined, vLLM's benchmark_serving counts TPOT for 2+
output tokens only) and a TPOT target does not apply (`tpot_within`)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.estimate.estimate import estimate
from suanli.estimate.speed import steady_tpot_s, tpot_within
from suanli.estimate.workload import make_workload

_times = st.floats(min_value=1e-6, max_value=100.0, allow_nan=False)


@given(step=_times, prefill=_times, output=st.integers(min_value=-3, max_value=1))
def test_one_output_token_has_no_tpot_and_meets_any_target(step: float, prefill: float, output: int) -> None:
    assert math.isnan(steady_tpot_s(step, prefill, output))
    assert bool(tpot_within(steady_tpot_s(step, prefill, output), 1e-9, output))
    arr = steady_tpot_s(np.array([step, step]), np.array([prefill, prefill]), output)
    assert arr.shape == (2,) and np.isnan(arr).all()
    assert tpot_within(arr, 1e-9, output).all()


@given(step=_times, prefill=_times, output=st.integers(min_value=2, max_value=100_000))
def test_two_or_more_tokens_keep_the_formula(step: float, prefill: float, output: int) -> None:
    tpot = steady_tpot_s(step, prefill, output)
    assert tpot == step + prefill / output  # Sarathi-Serve's interleaved prefill, as before
    assert bool(tpot_within(tpot, tpot, output)) and not bool(tpot_within(tpot, tpot * 0.999, output))
    assert not bool(tpot_within(math.nan, 1.0, output))  # a configuration without speeds still fails


def test_estimate_quotes_no_steady_tpot_for_one_output_token(cat: Catalog) -> None:
    m, acc = lookup.model(cat, "qwen2.5-7b"), lookup.accelerator(cat, "h100-sxm")
    one = estimate(cat, m, acc, make_workload(task="inference", input=2048, output=1, batch=64)).inference
    two = estimate(cat, m, acc, make_workload(task="inference", input=2048, output=2, batch=64)).inference
    assert one is not None and two is not None
    assert math.isnan(one.tpot_steady_s)  # was 3.06 s: the 64 prompts' prefill charged to the one token
    assert math.isclose(two.tpot_steady_s, two.tpot_s + two.ttft_s / 2, rel_tol=1e-9)  # step + prefill ÷ output
