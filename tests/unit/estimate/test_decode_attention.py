"""Issue 12: decode attention without split-KV (transformers generate) reads the cache with one thread block per
sequence and head, so a small batch occupies only heads / SMs of the device — by hand."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.estimate import arch, speed
from suanli.estimate.workload import make_workload


def test_only_hf_leaves_the_kv_unsplit(cat) -> None:
    engines = {e.id: e for e in cat.engines}
    assert engines["hf"].split_kv is False
    assert all(e.split_kv for e in cat.engines if e.id != "hf")


def test_sm_counts_come_from_the_catalog(cat) -> None:
    assert lookup.accelerator(cat, "a100-80g").specs.sm_count.value == 108
    assert lookup.accelerator(cat, "h100-sxm").specs.sm_count.value == 132
    assert lookup.accelerator(cat, "h20").specs.sm_count.value == 78


def test_share_of_sms(cat) -> None:
    assert speed.attention_sm_share(np.float64(32), 108.0) == pytest.approx(32 / 108)
    assert speed.attention_sm_share(np.float64(32 * 8), 108.0) == 1.0  # batch 8 fills the device
    assert speed.attention_sm_share(np.float64(32), 0.0) == 1.0  # split-KV engine, or no published SM count


def _step(cat, engine: str, batch: int = 1, flash: bool = True) -> tuple[float, speed.InferenceSpeedTerms, dict]:
    m = lookup.model(cat, "glm-4-9b")
    acc = lookup.accelerator(cat, "a100-80g")
    w = make_workload(task="inference", precision="bf16", batch=batch, input=128000, output=512, engine=engine,
                      flash_attention=flash)
    t = speed.inference_speed_terms(m, w)
    r, _ = speed.inference_rates(cat, acc, w)
    k = speed.inference_step(t, np.float64(1), np.float64(1), np.float64(batch), r)
    return float(k["step_s"]), t, r


def test_glm4_128k_decode_by_hand(cat) -> None:
    step, t, r = _step(cat, "hf")
    m = lookup.model(cat, "glm-4-9b")
    g = m.num_attention_heads / arch._kv_heads(m)  # 32 query heads on 2 KV groups
    # repeat_kv's 1 + 2g, and the dynamic cache's torch.cat growth (read the old cache, write the new): 2
    assert t.kv_read_factor == pytest.approx(1 + 2 * g + 2)
    assert t.attention_kv_reads == pytest.approx(g)
    assert r["sm_count"] == 108.0
    kv = t.kv_bytes_per_token * t.decode_context
    weights = speed.weight_bytes_read(t, 1.0)
    # the repeat_kv copy (1 read + g writes) and the cache's torch.cat growth (1 read + 1 write) at the device's rate,
    # the attention's g reads at 32 of 108 SMs
    by_hand = (weights + kv * (1 + g) + 2 * kv + kv * g * 108 / 32) / (r["bw"] * r["e_bw"]) + r["overhead"]
    assert step == pytest.approx(by_hand, rel=1e-3)  # elementwise traffic and the tiny compute aside


def test_split_kv_engines_and_eager_attention_keep_the_full_rate(cat) -> None:
    hf, _, _ = _step(cat, "hf")
    _, t, r = _step(cat, "hf", flash=False)
    assert r["sm_count"] == 0.0  # eager attention: the scores are GEMMs over the keys
    _, _, rv = _step(cat, "vllm")
    assert rv["sm_count"] == 0.0
    # the same hf workload with a split-KV kernel: the attention reads lose their (108/32 - 1) extra cost
    t_hf, r_hf = _step(cat, "hf")[1:]
    split = float(speed.inference_step(t_hf, np.float64(1), np.float64(1), np.float64(1), {**r_hf, "sm_count": 0.0})["step_s"])
    kv = t_hf.kv_bytes_per_token * t_hf.decode_context
    assert hf - split == pytest.approx(kv * t_hf.attention_kv_reads * (108 / 32 - 1) / (r_hf["bw"] * r_hf["e_bw"]), rel=1e-6)


def test_batch_fills_the_sms(cat) -> None:
    one, t, r = _step(cat, "hf", batch=1)
    four, _, _ = _step(cat, "hf", batch=4)  # 128 blocks >= 108 SMs: the full rate
    kv = t.kv_bytes_per_token * t.decode_context
    g = t.attention_kv_reads
    # going from 1 to 4 sequences adds three caches' traffic at the full rate but removes the SM penalty of the first
    extra = (3 * kv * (t.kv_read_factor) - kv * g * (108 / 32 - 1)) / (r["bw"] * r["e_bw"])
    assert four - one == pytest.approx(extra, rel=0.05)


def test_a_dynamic_cache_is_copied_whole_each_step(cat) -> None:
    """transformers grows its cache by torch.cat (cache_utils DynamicLayer.update): each step reads the old cache and
    writes the new one, two passes an engine with a paged or pre-allocated cache does not make."""
    m = lookup.model(cat, "llama-2-13b")  # multi-head: no repeat_kv copies, so the growth alone
    assert speed.kv_append_passes("hf") == 2.0
    assert all(speed.kv_append_passes(e.id) == 0.0 for e in cat.engines if e.id != "hf")
    assert speed.kv_read_factor(m, "hf") == 3.0 and speed.kv_read_factor(m, "vllm") == 1.0
    acc = lookup.accelerator(cat, "a100-80g")
    w = make_workload(task="inference", precision="fp16", batch=16, input=512, output=512, engine="hf",
                      flash_attention=False)
    t = speed.inference_speed_terms(m, w)
    r, _ = speed.inference_rates(cat, acc, w)
    one = (np.float64(1), np.float64(1), np.float64(16), r)
    without = dataclasses.replace(t, kv_read_factor=1.0, kv_cache_reads_outside=0.0)
    kv = t.kv_bytes_per_token * t.decode_context * 16
    assert kv > 9e9  # 16 sequences at a mean context of 768 tokens: ~10 GB read and written again per step
    extra = speed.inference_step(t, *one)["step_s"] - speed.inference_step(without, *one)["step_s"]
    assert float(extra) == pytest.approx(2 * kv / (r["bw"] * r["e_bw"]), rel=1e-6)
