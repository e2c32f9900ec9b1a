"""Issue 12, sixth pass: decode on the H20. transformers' fine-grained FP8Linear pays a host cost on every linear call
(two Triton launches and a synchronize), so hf fp8 decode costs a per-call overhead times the linear layers a token
passes through; other engines and precisions pay none. The H20's bandwidth stays the datasheet's 4.0 TB/s."""

from __future__ import annotations

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.estimate import speed
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload


def _rates(cat, engine: str, precision: str) -> tuple[speed.InferenceSpeedTerms, dict, list]:
    m = lookup.model(cat, "qwen3-8b")
    acc = lookup.accelerator(cat, "h20")
    w = make_workload(task="inference", precision=precision, input=1, output=2048, engine=engine)
    r, effs = speed.inference_rates(cat, acc, w)
    return speed.inference_speed_terms(m, w), r, effs


def test_linear_calls_per_token(cat) -> None:
    dense = lookup.model(cat, "qwen3-8b")
    assert speed.linear_calls_per_layer(dense) == 7.0  # q, k, v, o, gate, up, down
    t, _, _ = _rates(cat, "hf", "fp8")
    assert t.linear_calls == 36 * 7
    moe = next(m for m in cat.models if m.moe is not None and m.moe.num_shared_experts == 0 and m.num_layers)
    assert speed.linear_calls_per_layer(moe) == 4.0 + 3.0 * moe.moe.top_k


def test_only_hf_fp8_pays_per_call(cat) -> None:
    _, r, effs = _rates(cat, "hf", "fp8")
    assert r["linear_call_s"] > 0
    assert "linear-call-hf-fp8" in {e.factor_id for e in effs}
    for engine, precision in (("hf", "bf16"), ("hf", "int4"), ("sglang", "fp8"), ("vllm", "fp8")):
        _, r, effs = _rates(cat, engine, precision)
        assert r["linear_call_s"] == 0.0
        assert all(e.metric != "linear_call_overhead_s" for e in effs)  # a zero factor is not listed


def test_step_adds_calls_times_cost_by_hand(cat) -> None:
    t, r, _ = _rates(cat, "hf", "fp8")
    one = np.float64(1)
    with_calls = float(speed.inference_step(t, one, one, one, r)["step_s"])
    without = float(speed.inference_step(t, one, one, one, {**r, "linear_call_s": 0.0})["step_s"])
    assert with_calls - without == pytest.approx(36 * 7 * r["linear_call_s"])


def test_estimate_and_kernel_agree(cat) -> None:
    m = lookup.model(cat, "qwen3-8b")
    acc = lookup.accelerator(cat, "h20")
    w = make_workload(task="inference", precision="fp8", input=1, output=2048, engine="hf")
    s = speed.inference_speed(cat, m, acc, w)
    t, r, _ = _rates(cat, "hf", "fp8")
    k = speed.inference_step(t, np.float64(1), np.float64(1), np.float64(1), r)
    assert s.tpot_s == pytest.approx(float(k["step_s"]))
    # hf fp8 is slower than hf bf16 on the same card although it reads half the weight bytes (the Qwen3 page: 15.5 vs
    # 45.3 tokens/s for Qwen3-8B on one H20)
    bf16 = speed.inference_speed(cat, m, acc, make_workload(task="inference", precision="bf16", input=1, output=2048,
                                                             engine="hf"))
    assert s.output_tokens_per_s < bf16.output_tokens_per_s
    e = estimate(cat, m, acc, w).inference
    assert e is not None and e.tpot_s == pytest.approx(s.tpot_s)


def test_h20_bandwidth_stays_the_datasheet(cat) -> None:
    acc = lookup.accelerator(cat, "h20")
    assert acc.specs.memory_bandwidth_gb_per_s.value == 4000
    assert any("rustinfer-h20-bench" in n for n in acc.notes)
