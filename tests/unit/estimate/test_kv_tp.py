"""Code review 2026-12-01 (issue 12): one rule for how tensor parallelism shards the KV cache, in memory and speed
alike. Serving engines split the cache by KV heads and keep at least one KV head per rank, replicated past the KV
heads (vLLM ModelConfig.get_num_kv_heads: `max(1, total_num_kv_heads // tensor_parallel_size)`; SGLang the same,
TensorRT-LLM a ceiling division); MLA's latent is one head, whole on every rank. Megatron-Core splits whole heads
and query groups and refuses any other tp (attention.py `divide(num_query_groups, world_size)`): the planner does
not estimate those layouts."""

from __future__ import annotations

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.estimate import arch, memory, speed
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.plan.request import make_request
from suanli.plan.search import _layouts, plan
from suanli.units import GiB


def test_share_per_rank_is_vectorized_and_stops_at_one_head() -> None:
    tp = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    assert arch.kv_cache_share_per_rank(4, tp).tolist() == [1.0, 0.5, 0.25, 0.25, 0.25]
    assert arch.kv_cache_share_per_rank(8, tp).tolist() == [1.0, 0.5, 0.25, 0.125, 0.125]
    assert arch.kv_cache_share_per_rank(1, tp).tolist() == [1.0] * 5  # MLA's latent / MQA: whole on every rank
    assert float(arch.kv_cache_share_per_rank(4, 8)) == 0.25  # plain numbers work too


def test_cache_heads_by_architecture(cat) -> None:  # type: ignore[no-untyped-def]
    assert arch.kv_cache_heads(lookup.model(cat, "qwen3-235b-a22b")) == 4
    v3 = lookup.model(cat, "deepseek-v3")
    assert arch.kv_cache_heads(v3, "vllm") == 1  # the latent
    assert arch.kv_cache_heads(v3, "hf") == v3.num_attention_heads  # transformers caches K and V per head


def _qwen3_235b(cat, tp: int):  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen3-235b-a22b")
    acc = lookup.accelerator(cat, "h20")
    w = make_workload(task="inference", precision="bf16", batch=64, input=8192, output=1024, gpus=8, tp=tp)
    return m, acc, w, estimate(cat, m, acc, w)


def test_review_repro_kv_per_gpu_is_the_same_at_tp4_and_tp8(cat) -> None:  # type: ignore[no-untyped-def]
    """`suanli estimate --model qwen3-235b-a22b --gpu h20 --gpus 8 --tp 4|8 --batch 64 --input 8192 --output 1024`:
    4 KV heads, so tp 8 holds one KV head per rank like tp 4 — 26.44 GiB each, not 13.22 GiB at tp 8."""
    m, _, w, e4 = _qwen3_235b(cat, 4)
    _, _, _, e8 = _qwen3_235b(cat, 8)
    kv4, kv8 = e4.memory.breakdown_bytes["kv_cache"], e8.memory.breakdown_bytes["kv_cache"]
    # by hand: 2 (K, V) x 94 layers x 1 KV head x 128 dims x 2 bytes x 9216 positions x 64 sequences
    per_head = 2 * (m.num_layers or 0) * arch.head_dim(m) * 2 * (8192 + 1024) * 64
    assert kv4 == pytest.approx(per_head, rel=1e-12)
    assert kv8 == pytest.approx(kv4, rel=1e-12)
    assert kv8 / GiB == pytest.approx(26.44, abs=0.01)


def test_tp8_past_the_kv_heads_is_not_faster_on_kv_reads(cat) -> None:  # type: ignore[no-untyped-def]
    """The decode step at tp 8 reads each rank's whole KV head: longer than the split the old kernel assumed, by the
    extra KV bytes at the decode bandwidth (the attention is memory-bound here)."""
    m, acc, w, e8 = _qwen3_235b(cat, 8)
    t = speed.inference_speed_terms(m, w)
    r, _ = speed.inference_rates(cat, acc, w)
    one, tp, b = np.float64(1), np.float64(8), np.float64(64)
    assert float(speed.kv_replication(t, tp)) == 2.0 and float(speed.kv_replication(t, np.float64(4))) == 1.0
    now = speed.inference_step(t, tp, one, b, r)
    split = speed.inference_step(t.__class__(**{**t.__dict__, "kv_cache_heads": 0}), tp, one, b, r)
    dc_kv = t.kv_bytes_per_token * t.decode_context * 64
    # transformers (the workload's engine) passes over the rank's own cache three times outside the attention: the
    # repeat_kv read and the torch.cat growth's read and write (speed.kv_append_passes)
    assert t.kv_cache_reads_outside == 3.0
    # and the replicated K/V projections of the KV head it holds (arch.kv_proj_params; the weight GEMMs are
    # memory-bound at batch 64 here)
    extra_s = (3.0 * dc_kv + t.kv_proj_bytes) * (2.0 - 1.0) / (r["bw"] * r["e_bw"]) / 8
    assert float(now["step_s"]) - float(split["step_s"]) == pytest.approx(extra_s, rel=1e-9)
    assert e8.inference is not None and e8.inference.tpot_s == pytest.approx(float(now["step_s"]), rel=1e-12)


def test_largest_batch_at_tp8_counts_the_replicated_cache(cat) -> None:  # type: ignore[no-untyped-def]
    m, acc, w, _ = _qwen3_235b(cat, 8)
    stack = lookup.stack(cat, acc.stack)
    b8 = memory.max_batch_that_fits(m, w, acc, stack, cat=cat)
    # the KV pool left after the tp-8 weights holds half the sequences a split cache would
    t = memory.inference_memory_terms(m, w, True)
    split = memory.InferenceMemoryTerms(**{**t.__dict__, "kv_cache_heads": 8})  # as if 8 KV heads split 8 ways
    kv_now = float(memory.inference_memory(t, 8.0, 1.0, 1.0, 64.0)["kv_cache"])
    kv_split = float(memory.inference_memory(split, 8.0, 1.0, 1.0, 64.0)["kv_cache"])
    assert kv_now == pytest.approx(2 * kv_split, rel=1e-12)
    assert 0 < b8 < 2 * 64 * 2  # about 75 at 9,216 positions, not ~150


def test_mla_at_tp8_holds_and_reads_the_whole_latent(cat) -> None:  # type: ignore[no-untyped-def]
    """DeepSeek-V3 at TP 8: memory keeps the whole latent cache on every rank, and decode now reads all of it (the
    kernel used to divide those reads by tp)."""
    m = lookup.model(cat, "deepseek-v3")
    acc = lookup.accelerator(cat, "h200")
    w = make_workload(task="inference", precision="fp8", batch=32, input=32768, output=1024, engine="sglang",
                      gpus=8, tp=8)
    mt = memory.inference_memory_terms(m, w, True)
    kv1 = float(memory.inference_memory(mt, 1.0, 1.0, 1.0, 32.0)["kv_cache"])
    kv8 = float(memory.inference_memory(mt, 8.0, 1.0, 1.0, 32.0)["kv_cache"])
    assert kv8 == pytest.approx(kv1, rel=1e-12)
    t = speed.inference_speed_terms(m, w)
    r, _ = speed.inference_rates(cat, acc, w)
    assert float(speed.kv_replication(t, np.float64(8))) == 8.0
    one, tp, b = np.float64(1), np.float64(8), np.float64(32)
    now = float(speed.inference_step(t, tp, one, b, r)["step_s"])
    split = float(speed.inference_step(t.__class__(**{**t.__dict__, "kv_cache_heads": 0}), tp, one, b, r)["step_s"])
    dc_kv = t.kv_bytes_per_token * t.decode_context * 32
    share = float(speed.attention_sm_share(32 * t.attention_blocks_per_sequence / 8, r["sm_count"]))
    attn_flops_s = 32 * t.decode_attention_flops_per_token / (r["peak"] * r["e_mm"]) / 8
    kv_now_s = dc_kv / share / (r["bw"] * r["e_bw"])  # the whole latent per rank
    assert kv_now_s > attn_flops_s  # memory-bound at 33k context
    assert now - split == pytest.approx(kv_now_s - max(attn_flops_s, kv_now_s / 8), rel=1e-9)


def test_planner_memory_uses_the_same_rule(cat) -> None:  # type: ignore[no-untyped-def]
    m, _, w, e8 = _qwen3_235b(cat, 8)
    t = memory.inference_memory_terms(m, w, True)
    kv = memory.inference_memory(t, np.array([1.0, 2.0, 4.0, 8.0]), 1.0, 1.0, np.full(4, 64.0))["kv_cache"]
    assert kv[2] == kv[3] == pytest.approx(e8.memory.breakdown_bytes["kv_cache"], rel=1e-12)
    assert kv[0] == pytest.approx(4 * kv[2], rel=1e-12)


# -------------------------------------------------------------------------------- training: Megatron-Core


def test_megatron_core_needs_tp_to_divide_heads_and_query_groups(cat) -> None:  # type: ignore[no-untyped-def]
    q7 = lookup.model(cat, "qwen2.5-7b")  # 28 heads, 4 KV heads
    assert arch.tp_splits_heads(q7, np.array([1.0, 2.0, 4.0, 8.0])).tolist() == [True, True, True, False]
    q15 = lookup.model(cat, "qwen2.5-1.5b")  # 12 heads, 2 KV heads
    assert arch.tp_splits_heads(q15, np.array([1.0, 2.0, 4.0])).tolist() == [True, True, False]
    fws = {f.id: f for f in cat.frameworks}
    req = make_request(model="qwen2.5-7b", task="pretrain", tokens=1e9, region="any")
    lay = _layouts(req, fws["megatron"], False, q7.num_layers or 0, q7)
    assert lay["tp"].size and 8.0 not in set(lay["tp"].tolist()) and 4.0 in set(lay["tp"].tolist())
    # torchtitan shards whole heads too (tests/unit/plan/test_layout_validity.py)
    assert 8.0 not in set(_layouts(req, fws["torchtitan"], False, q7.num_layers or 0, q7)["tp"].tolist())


def test_pinned_tp_that_splits_a_head_is_refused_with_why_not(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    req = make_request(model="qwen2.5-7b", task="pretrain", tokens=1e9, tp=8, framework="megatron",
                       region="any", offer_kinds=("listing", "index", "reference"))
    r = plan(cat, m, req)
    assert not r.plans
    why = [w for w in r.why_not if w["reason_i18n"]["id"] == "why.tp_heads"]
    assert why and "--tp 8" in why[0]["reason"] and "28" in why[0]["reason"] and "4 KV heads" in why[0]["reason"]
    ok = plan(cat, m, make_request(model="qwen2.5-7b", task="pretrain", tokens=1e9, tp=4, framework="megatron",
                                   region="any", offer_kinds=("listing", "index", "reference")))
    assert ok.plans and all(p.tp in (1, 2, 4) for p in ok.plans) and any(p.tp == 4 for p in ok.plans)


def test_a_tp_that_neither_divides_nor_is_a_multiple_of_the_kv_heads_rounds_up() -> None:
    """8 KV heads over 3 ranks: TensorRT-LLM gives each rank ceil(8/3) = 3 heads, so together they hold more than
    the cache, never less (the floor gave 2 each: 6 of 8 heads held)."""
    from suanli.estimate.arch import kv_cache_share_per_rank

    assert kv_cache_share_per_rank(8, 3) == 3 / 8
    assert kv_cache_share_per_rank(8, 4) == 2 / 8 and kv_cache_share_per_rank(8, 16) == 1 / 8
    assert list(kv_cache_share_per_rank(4, np.array([1.0, 2.0, 8.0]))) == [1.0, 0.5, 0.25]
