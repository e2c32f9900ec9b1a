"""Plans that cannot run (code review + buyer review 2026-12-01): a layout is one the framework or engine accepts.

vLLM refuses a tp that does not divide the attention heads ("Total number of attention heads (28) must be divisible
by tensor parallel size (8)", ModelConfig.verify_with_parallel_config), as SGLang, TensorRT-LLM and LMDeploy do;
Megatron-Core and torchtitan give every rank whole heads and whole KV heads. One rule (estimate/tp_heads.py) for the
planner's training and serving searches and `suanli estimate`. Engines replicate the K/V projections of the KV heads
past tp = kv heads, as the cache: counted in weight memory and reads (arch.kv_proj_params)."""

from __future__ import annotations

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.estimate import arch, memory, speed
from suanli.estimate.estimate import estimate
from suanli.estimate.tp_heads import allowed_tps, tp_heads_refusal, tp_heads_runs
from suanli.estimate.workload import make_workload
from suanli.i18n import render
from suanli.plan.request import make_request
from suanli.plan.search import _layouts, plan, serving_layout

TPS = np.array([1.0, 2.0, 4.0, 8.0])


def test_one_rule_per_engine_and_framework(cat) -> None:  # type: ignore[no-untyped-def]
    q7 = lookup.model(cat, "qwen2.5-7b")  # 28 heads, 4 KV heads
    q15 = lookup.model(cat, "qwen2.5-1.5b")  # 12 heads, 2 KV heads
    for engine in ("vllm", "sglang", "trt-llm", "lmdeploy", "vllm-ascend"):
        assert tp_heads_runs(q7, TPS, engine=engine).tolist() == [True, True, True, False]
        assert allowed_tps(q15, (1, 2, 4, 8), engine=engine) == [1, 2, 4]
    # engines with no cited rule, and an engine id with none, keep every tp
    for engine in ("hf", "llama.cpp", "mindie"):
        assert tp_heads_runs(q7, TPS, engine=engine).tolist() == [True] * 4
    # training: whole heads and whole KV heads (no replication): Megatron-Core and torchtitan alike
    for fw in ("megatron", "nemo", "mindspeed", "torchtitan"):
        assert allowed_tps(q15, (1, 2, 4, 8), framework=fw) == [1, 2]
        assert allowed_tps(q7, (1, 2, 4, 8), framework=fw) == [1, 2, 4]
    assert tp_heads_runs(q7, 8.0, framework="deepspeed") is True
    # MLA: no KV heads to split, the attention heads only
    v3 = lookup.model(cat, "deepseek-v3")
    assert tp_heads_runs(v3, TPS, engine="vllm").tolist() == [True] * 4


def test_kv_heads_must_split_or_replicate_evenly_on_vllm(cat) -> None:  # type: ignore[no-untyped-def]
    # QKVParallelLinear: divide(kv, tp) below the KV heads, divide(tp, kv) past them
    m = lookup.model(cat, "qwen2.5-7b").model_copy(update={"num_attention_heads": 24, "num_key_value_heads": 6,
                                                           "head_dim": 128})
    assert tp_heads_runs(m, np.array([1.0, 2.0, 3.0, 4.0, 6.0, 12.0]), engine="vllm").tolist() == [
        True, True, True, False, True, True]
    assert bool(tp_heads_runs(m, 4.0, engine="trt-llm"))  # ceil-divides the KV heads: the attention heads only


def test_estimate_refuses_in_one_line_naming_tp_and_the_sizes_that_run(cat) -> None:  # type: ignore[no-untyped-def]
    m, acc = lookup.model(cat, "qwen2.5-7b"), lookup.accelerator(cat, "h100")
    w = make_workload(task="inference", precision="bf16", gpus=8, tp=8, engine="vllm")
    with pytest.raises(InputError) as e:
        estimate(cat, m, acc, w)
    assert e.value.field == "tp" and "\n" not in str(e.value)
    assert "28 attention heads" in str(e.value) and "tp that runs: 1, 2, 4" in str(e.value)
    assert e.value.i18n is not None and "可用的 tp：1、2、4" in render(e.value.i18n, "zh")
    # Megatron training layout (the colleague's report): refused with the planner's rule and message
    tw = make_workload(task="pretrain", precision="bf16", gpus=8, tp=8, framework="megatron", seq=2048)
    with pytest.raises(InputError) as e:
        estimate(cat, m, acc, tw)
    assert e.value.field == "tp" and "4 KV heads" in str(e.value) and "tp that runs: 1, 2, 4" in str(e.value)
    # not pinned: every framework that runs tp for the task on the stack splits heads, so refused too
    with pytest.raises(InputError):
        estimate(cat, m, acc, make_workload(task="pretrain", precision="bf16", gpus=8, tp=8, seq=2048))
    # what runs still estimates; transformers generate has no such rule
    assert estimate(cat, m, acc, make_workload(task="inference", precision="bf16", gpus=4, tp=4, engine="vllm"))
    assert estimate(cat, m, acc, make_workload(task="inference", precision="bf16", gpus=8, tp=8, engine="hf"))


def test_serving_search_never_proposes_a_tp_the_engine_refuses(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    r = plan(cat, m, make_request(model="qwen2.5-7b", task="inference", requests_per_s=5, region="any",
                                  offer_kinds=("listing", "index", "reference")))
    assert r.plans
    for p in r.plans:
        assert tp_heads_runs(m, float(p.tp), engine=p.engine), (p.device, p.engine, p.tp)
    lay, why = serving_layout(cat, m, make_request(model="qwen2.5-7b", task="inference", gpus=8, engine="vllm",
                                                   requests_per_s=5, region="any"), "h100")
    assert lay is not None and lay.tp in (1, 2, 4), (lay, why)


def test_pinned_serving_tp_is_a_why_not_row_naming_the_pin(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    req = make_request(model="qwen2.5-7b", task="inference", requests_per_s=5, tp=8, engine="vllm", region="any",
                       offer_kinds=("listing", "index", "reference"))
    r = plan(cat, m, req)
    assert not any(p.engine == "vllm" for p in r.plans)
    rows = [w for w in r.why_not if w["reason_i18n"]["id"] == "why.tp_heads_serving"]
    assert rows and "--tp 8" in rows[0]["reason"] and "tp that runs: 1, 2, 4" in rows[0]["reason"]


def test_torchtitan_training_layouts_split_whole_heads(cat) -> None:  # type: ignore[no-untyped-def]
    q7 = lookup.model(cat, "qwen2.5-7b")
    fws = {f.id: f for f in cat.frameworks}
    req = make_request(model="qwen2.5-7b", task="pretrain", tokens=1e9, region="any")
    tps = set(_layouts(req, fws["torchtitan"], False, q7.num_layers or 0, q7)["tp"].tolist())
    assert tps and 8.0 not in tps and 4.0 in tps
    assert tp_heads_refusal(q7, 8, framework="torchtitan", runner="torchtitan") is not None


def test_replicated_kv_projections_are_counted_in_weights(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-1.5b")  # 2 KV heads: tp 4 holds each KV head's K/V projections on two ranks
    w = make_workload(task="inference", precision="bf16", gpus=4, tp=4, engine="vllm")
    t = memory.inference_memory_terms(m, w, False)
    h, d, layers = m.hidden_size or 0, arch.head_dim(m), m.num_layers or 0
    kv_proj = layers * 2 * 2 * d * (h + 1)  # K and V, 2 KV heads, weights + biases (qkv_bias)
    assert m.qkv_bias and arch.kv_proj_params(m) == kv_proj
    split = t.weights_bytes / 4
    for tp, extra_share in ((1.0, 0.0), (2.0, 0.0), (4.0, 0.5 - 0.25)):
        got = float(memory.inference_memory(t, tp, 1.0, 1.0, 1.0)["weights"])
        assert got == pytest.approx(t.weights_bytes / tp + kv_proj * 2.0 * extra_share)
    # per layer at tp 4: +1.7 % over the split count (the colleague's figure)
    per_layer = (float(memory.inference_memory(t, 4.0, 1.0, 1.0, 1.0)["weights"]) - split) / split
    assert 0.01 < per_layer < 0.025
    # speed reads them too: one formula, (kv_rep − 1) × their bytes, zero where tp ≤ the KV heads
    st = speed.inference_speed_terms(m, w)
    assert st.kv_proj_bytes == kv_proj * 2.0
    assert float(speed.replicated_weight_bytes(st, speed.kv_replication(st, 2.0))) == 0.0
    assert float(speed.replicated_weight_bytes(st, speed.kv_replication(st, 4.0))) == pytest.approx(kv_proj * 2.0)
    # MLA: not counted (its compressed KV projection is not split by heads)
    assert arch.kv_proj_params(lookup.model(cat, "deepseek-v3")) == 0.0


def test_a_pinned_tp_no_engine_accepts_is_the_pin_to_drop(cat) -> None:  # type: ignore[no-untyped-def]
    """Qwen2.5-7B at --tp 8: every device is ruled out, most by the pin (the others lack a serving engine whatever the
    pin), so the relax line names the pin, not "nothing fits in memory"."""
    m = lookup.model(cat, "qwen2.5-7b")
    r = plan(cat, m, make_request(model=m.id, task="inference", requests_per_s=5, tp=8))
    assert not r.plans
    assert [x["id"] for x in r.relax_i18n] == ["relax.drop_pin"] and "--tp 8" in r.relax[0]
