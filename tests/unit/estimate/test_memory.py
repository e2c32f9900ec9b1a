"""Memory estimator: the seeds' rules exactly in seed mode, and the default method's terms by hand."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.estimate.memory import estimate_memory, max_batch_that_fits, nominal_params
from suanli.estimate.params import param_count
from suanli.estimate.workload import make_workload
from suanli.errors import InputError


def test_seed_inference_7b_fp16_is_16_8_gb(cat) -> None:
    m = lookup.model(cat, "llama-2-7b")
    e = estimate_memory(m, make_workload(task="inference", precision="fp16", method="seed"))
    assert e.per_gpu_bytes == pytest.approx(16.8e9)  # seed-000 §2.1: 7B × 2 bytes × 1.2


def test_seed_full_training_7b_is_56_gb(cat) -> None:
    m = lookup.model(cat, "llama-2-7b")
    e = estimate_memory(m, make_workload(task="full", precision="fp16", method="seed"))
    assert e.per_gpu_bytes == pytest.approx(56e9)  # seed-000 §2.1: (7B + 7B + 2·7B) × 2 bytes


def test_nominal_params_from_the_name(cat) -> None:
    assert nominal_params(lookup.model(cat, "mixtral-8x7b")) == 56e9
    assert nominal_params(lookup.model(cat, "qwen2.5-0.5b")) == 0.5e9
    ds = lookup.model(cat, "deepseek-v3")
    assert nominal_params(ds) == param_count(ds).total


def test_kv_cache_gqa_by_hand(cat) -> None:
    m = lookup.model(cat, "llama-3.1-8b")  # 32 layers, 8 KV heads, head_dim 128
    w = make_workload(task="inference", precision="bf16", batch=4, input=3000, output=1096)
    kv = estimate_memory(m, w).breakdown_bytes["kv_cache"]
    assert kv == 2 * 32 * 8 * 128 * 2 * 4096 * 4


def test_kv_cache_mla_latent_vs_hf(cat) -> None:
    m = lookup.model(cat, "deepseek-v3")  # 61 layers, kv_lora_rank 512 + rope 64
    w = make_workload(task="inference", precision="bf16", batch=1, input=1024, output=1024, engine="vllm")
    kv = estimate_memory(m, w).breakdown_bytes["kv_cache"]
    assert kv == 61 * (512 + 64) * 2 * 2048
    hf = estimate_memory(m, w.model_copy(update={"engine": "hf"})).breakdown_bytes["kv_cache"]
    assert hf > 50 * kv


def test_full_training_adamw_is_16_bytes_per_param_before_activations(cat) -> None:
    m = lookup.model(cat, "qwen2.5-0.5b")
    # a short sequence: the peak is at the end of backward, with every gradient alive
    e = estimate_memory(m, make_workload(task="full", precision="bf16", seq=8))
    b = e.breakdown_bytes
    n = param_count(m).total
    assert b["weights"] + b["gradients"] + b["optimizer"] == pytest.approx(16 * n)  # ZeRO paper §3.1
    assert "peak at the end of backward" in e.notes
    long = estimate_memory(m, make_workload(task="full", precision="bf16", seq=8192, batch=4))
    assert "peak at the start of backward" in long.notes
    assert long.breakdown_bytes["gradients"] < b["gradients"]


def test_zero_stages_shard_what_they_say(cat) -> None:
    m = lookup.model(cat, "llama-2-7b")
    base = dict(task="full", precision="bf16", gpus=8)
    z = {s: estimate_memory(m, make_workload(**base, zero=s, seq=8)).breakdown_bytes for s in (0, 1, 2, 3)}
    assert z[1]["optimizer"] == pytest.approx(z[0]["optimizer"] / 8)
    assert z[2]["gradients"] == pytest.approx(z[0]["gradients"] / 8)
    assert z[3]["weights"] == pytest.approx(z[0]["weights"] / 8)
    assert z[1]["gradients"] == z[0]["gradients"]


def test_training_peak_picks_the_larger_moment() -> None:
    from suanli.estimate.memory import training_peak

    assert training_peak(10.0, 1.0, 5.0, 2.0) == (10.0, 0.0, 0.0, "end")
    assert training_peak(10.0, 1.0, 8.0, 2.0) == (1.0, 8.0, 2.0, "start")


def test_recomputation_shrinks_activations(cat) -> None:
    m = lookup.model(cat, "llama-2-7b")
    acts = {
        r: estimate_memory(m, make_workload(task="full", recompute=r, batch=2, seq=4096)).breakdown_bytes["activations"]
        for r in ("none", "selective", "full")
    }
    assert acts["full"] < acts["selective"] <= acts["none"]


def test_qlora_is_smaller_than_lora_smaller_than_full(cat) -> None:
    m = lookup.model(cat, "qwen2.5-7b")
    per = {t: estimate_memory(m, make_workload(task=t)).per_gpu_bytes for t in ("qlora", "lora", "full")}
    assert per["qlora"] < per["lora"] < per["full"]


def test_int4_weights_include_group_scales(cat) -> None:
    m = lookup.model(cat, "llama-2-7b")
    p = param_count(m)
    w = estimate_memory(m, make_workload(precision="int4")).breakdown_bytes["weights"]
    kept = p.embedding + p.lm_head
    assert w == pytest.approx((p.total - kept) * (4 + 20 / 128) / 8 + kept * 2)


@pytest.mark.parametrize("engine", ["hf", "vllm"])
def test_fits_and_max_batch(cat, engine) -> None:
    """One fits rule: the largest batch `max_batch_that_fits` reports fits, one more does not (issue 10: the
    old rules disagreed, fits=false at max_batch=5 on a 4090)."""
    m = lookup.model(cat, "llama-2-7b")
    g = lookup.accelerator(cat, "rtx-4090")
    w = make_workload(task="inference", precision="bf16", input=2048, output=2048, engine=engine)
    from suanli.catalog.lookup import stack as get_stack

    s = get_stack(cat, g.stack)
    b = max_batch_that_fits(m, w, g, s, cat=cat)
    assert b >= 1
    at_max = estimate_memory(m, w.model_copy(update={"batch": b}), g, s, cat)
    assert at_max.fits
    assert at_max.usable_bytes is not None and at_max.usable_bytes < at_max.capacity_bytes  # margin or pool
    assert not estimate_memory(m, w.model_copy(update={"batch": b + 1}), g, s, cat).fits
    full = estimate_memory(m, make_workload(task="full"), g, s)
    assert full.fits is False  # the seeds: 7B full training does not fit a 24 GB card


def test_bad_input_names_the_field() -> None:
    with pytest.raises(InputError, match="precision: 'fp64' is not one of"):
        make_workload(precision="fp64")
    with pytest.raises(InputError, match="batch"):
        make_workload(batch=0)
    with pytest.raises(InputError, match="multiple of tp"):
        make_workload(gpus=6, tp=4)


def test_expert_parallel_shards_only_routed_experts(cat) -> None:
    from suanli.estimate import arch

    moe = lookup.model(cat, "mixtral-8x7b")
    base = dict(task="full", precision="bf16", gpus=8, seq=8)
    one = estimate_memory(moe, make_workload(**base)).breakdown_bytes
    eight = estimate_memory(moe, make_workload(**base, ep=8)).breakdown_bytes
    routed = arch.routed_expert_params(moe) / param_count(moe).total
    assert 0.9 < routed < 1.0  # Mixtral: nearly all parameters are experts
    assert eight["weights"] == pytest.approx(one["weights"] * ((1 - routed) + routed / 8))
    dense = lookup.model(cat, "llama-2-7b")
    assert estimate_memory(dense, make_workload(**base, ep=8)).per_gpu_bytes == estimate_memory(
        dense, make_workload(**base)).per_gpu_bytes
    with pytest.raises(InputError, match="ep"):
        make_workload(task="full", gpus=4, ep=8)
