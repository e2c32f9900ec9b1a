"""Issue 12: sliding-window layers (Gemma-2/3, Mistral-7B-v0.1, gpt-oss, Qwen2 with use_sliding_window) cache and
read at most their window; full-attention layers the whole context — by hand from config.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from suanli.catalog.hf_config import from_hf_config
from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import accelerator, model
from suanli.catalog.schema import ModelArch
from suanli.estimate import arch, memory, speed
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload

CAT = packaged_catalog()
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "hf_configs"
GEMMA2_9B = json.loads((FIXTURES / "gemma-2-9b.json").read_text(encoding="utf-8"))


def _kv_bytes(m: ModelArch, context: int, batch: int = 1) -> float:
    """The memory kernel's KV cache for one sequence of `context` tokens (input context − 1, output 1)."""
    w = make_workload(task="inference", precision="bf16", batch=batch, input=context - 1, output=1)
    t = memory.inference_memory_terms(m, w, preallocates=False)
    return float(memory.inference_memory(t, 1, 1, 1, batch)["kv_cache"])


def _no_windows(m: ModelArch) -> ModelArch:
    return m.model_copy(update={"sliding_window": None, "layer_types": None})


def test_gemma2_config_reads_alternating_layers() -> None:
    m = from_hf_config(GEMMA2_9B, "gemma-2-9b")
    assert m.sliding_window == 4096
    assert m.layer_types is not None and len(m.layer_types) == 42
    # Gemma2Config: layer i is sliding when (i + 1) % 2, so layer 0 is local and layer 41 global
    assert m.layer_types[0] == "sliding_attention" and m.layer_types[41] == "full_attention"
    assert arch.sliding_layers(m) == 21
    preset = model(CAT, "gemma-2-9b")
    assert preset.layer_types == m.layer_types and preset.sliding_window == m.sliding_window


@pytest.mark.parametrize("context", [8192, 32768])
def test_gemma2_9b_kv_cache_by_hand(context: int) -> None:
    m = from_hf_config(GEMMA2_9B, "gemma-2-9b")
    # config.json: 2 (K, V) x 8 KV heads x head_dim 256 x 2 bytes (bf16) = 8,192 bytes per token per layer
    per_layer_token = 2 * 8 * 256 * 2
    # 21 global layers hold the whole context, 21 local layers the last 4,096 tokens
    want = per_layer_token * (21 * context + 21 * 4096)
    assert _kv_bytes(m, context) == pytest.approx(want)
    full = per_layer_token * 42 * context
    assert _kv_bytes(_no_windows(m), context) == pytest.approx(full)
    # 8K: 2.11 GB instead of 2.82 GB; 32K: 6.34 GB instead of 11.27 GB
    assert {8192: 2_113_929_216, 32768: 6_341_787_648}[context] == want


def test_gemma2_9b_decode_reads_and_prefill_flops_by_hand() -> None:
    m = from_hf_config(GEMMA2_9B, "gemma-2-9b")
    w = make_workload(task="inference", precision="bf16", batch=1, input=8192, output=2)
    t = speed.inference_speed_terms(m, w)
    ctx = 8192 + 2 / 2  # mean context over the decode steps
    assert t.decode_context == pytest.approx((21 * ctx + 21 * 4096) / 42)
    # causal prefill of 8,192 tokens: a global layer sees 4,096 keys on average, a local one
    # (4096·4097/2 + (8192 − 4096)·4096) / 8192 = 4096 − 4096·4095 / (2·8192) = 3,072.25
    keys = (21 * 4096 + 21 * (4096 - 4096 * 4095 / (2 * 8192))) / 42
    assert arch.prefill_keys_per_query(m, 8192) == pytest.approx(keys)
    assert t.prefill_attention_flops_per_token == pytest.approx(4 * 16 * 256 * keys * 42)
    # below the window nothing changes
    assert arch.prefill_keys_per_query(m, 4096) == 2048


def test_models_without_windows_are_unchanged() -> None:
    llama = model(CAT, "llama-2-7b")
    assert arch.sliding_layers(llama) == 0 and arch.cached_positions(llama, 32768) == 32768
    assert _kv_bytes(llama, 4096) == pytest.approx(arch.kv_cache_bytes_per_token(llama, 2.0) * 4096)
    assert arch.prefill_keys_per_query(llama, 4096) == 2048


def test_mistral_v01_windows_every_layer() -> None:
    m = model(CAT, "mistral-7b-v0.1")
    assert m.layer_types is None and arch.sliding_layers(m) == 32
    assert _kv_bytes(m, 16384) == pytest.approx(arch.kv_cache_bytes_per_token(m, 2.0) * 4096)


def _cfg(**kw: Any) -> dict[str, Any]:
    base = {"hidden_size": 256, "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 2,
            "intermediate_size": 512, "vocab_size": 1000, "max_position_embeddings": 4096}
    return {**base, **kw}


def test_config_variants() -> None:
    # Qwen2 with use_sliding_window: layers from max_window_layers on are windowed (Qwen2Config)
    q = from_hf_config(_cfg(model_type="qwen2", use_sliding_window=True, sliding_window=1024, max_window_layers=4), "q")
    assert q.layer_types == ("full_attention",) * 4 + ("sliding_attention",) * 2
    off = from_hf_config(_cfg(model_type="qwen2", sliding_window=1024), "q")  # use_sliding_window false
    assert off.sliding_window is None and off.layer_types is None
    # Gemma-3: 5 local : 1 global (sliding_window_pattern 6)
    g3 = from_hf_config(_cfg(model_type="gemma3_text", sliding_window=512, head_dim=64), "g3")
    assert g3.layer_types == ("sliding_attention",) * 5 + ("full_attention",)
    # gpt-oss (read with Mixtral's layout): its config.json lists layer_types, alternating 128-token windows
    oss = from_hf_config(_cfg(model_type="gpt_oss", sliding_window=128, num_local_experts=4, num_experts_per_tok=2,
                              layer_types=["sliding_attention", "full_attention"] * 3), "oss")
    assert oss.sliding_window == 128 and arch.sliding_layers(oss) == 3
    with pytest.raises(Exception, match="layer_types"):
        from_hf_config(_cfg(model_type="gemma2", sliding_window=512, layer_types=["sliding_attention"]), "bad")


def test_estimate_says_which_engines_honour_windows() -> None:
    m = model(CAT, "gemma-2-9b")
    w = make_workload(task="inference", precision="bf16", batch=1, input=7000, output=1000, engine="vllm")
    e = estimate(CAT, m, accelerator(CAT, "a100-80g"), w)
    note = next(n for n in e.memory.notes if "sliding window" in n)
    assert "21 of 42 layers" in note and "hybrid KV cache manager" in note and "GiB, not" in note


@st.composite
def _windowed(draw: st.DrawFn) -> ModelArch:
    layers = draw(st.integers(1, 48))
    kv = draw(st.sampled_from([1, 2, 4, 8]))
    kinds = tuple(draw(st.lists(st.sampled_from(["full_attention", "sliding_attention"]), min_size=layers,
                                max_size=layers)))
    return ModelArch(id="x", family="x", source="x", hidden_size=64 * 8, num_layers=layers, num_attention_heads=8,
                     num_key_value_heads=kv, intermediate_size=1024, vocab_size=1000,
                     sliding_window=draw(st.integers(1, 65536)),
                     layer_types=draw(st.one_of(st.none(), st.just(kinds))))


@settings(max_examples=60, deadline=None)
@given(m=_windowed(), context=st.integers(2, 200_000), batch=st.integers(1, 64))
def test_windows_never_add_kv_or_decode_time(m: ModelArch, context: int, batch: int) -> None:
    plain = _no_windows(m)
    assert _kv_bytes(m, context, batch) <= _kv_bytes(plain, context, batch) * (1 + 1e-12)
    w = make_workload(task="inference", precision="bf16", batch=batch, input=context - 1, output=1)
    acc = accelerator(CAT, "a100-80g")
    r, _ = speed.inference_rates(CAT, acc, w)
    one = np.float64(1)
    steps = [speed.inference_step(speed.inference_speed_terms(x, w), one, one, np.float64(batch), r)
             for x in (m, plain)]
    assert steps[0]["step_s"] <= steps[1]["step_s"] * (1 + 1e-12)
    assert steps[0]["prefill_s"] <= steps[1]["prefill_s"] * (1 + 1e-12)
