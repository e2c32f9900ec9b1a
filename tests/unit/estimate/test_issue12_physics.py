"""Issue 12, third pass: the legacy tuple cache of 2023 remote code, the fp32 loss peak, llama.cpp's FP16-accumulate
roof and the score traffic of attention without a fused kernel — each term by hand."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.estimate import arch
from suanli.estimate.memory import estimate_memory
from suanli.estimate.speed import (
    LLAMACPP_SCORE_BYTES_PER_ELEMENT,
    SCORE_BYTES_PER_ELEMENT,
    inference_rates,
    inference_speed,
    inference_speed_terms,
)
from suanli.estimate.workload import make_workload


def test_legacy_tuple_cache_holds_the_previous_step(cat) -> None:
    m = lookup.model(cat, "qwen-7b")
    kw = dict(task="inference", precision="bf16", input=1, output=8192, engine="hf")
    new = estimate_memory(m, make_workload(**kw))
    old = estimate_memory(m, make_workload(**kw, legacy_kv_cache=True))
    per_token = arch.kv_cache_bytes_per_token(m, 2.0, "hf")
    assert "kv_cache_previous_step" not in new.breakdown_bytes
    # the previous step's cache, context − 1 positions, is alive beside the new one at the last decode step, when the
    # prefill transients are gone: the peak holds the larger of the two
    extra = per_token * 8192 - new.breakdown_bytes["activations"]
    assert old.breakdown_bytes["kv_cache_previous_step"] == pytest.approx(extra)
    assert old.per_gpu_bytes - new.per_gpu_bytes == pytest.approx(extra)


def test_legacy_cache_does_not_apply_without_decoding(cat) -> None:
    m = lookup.model(cat, "qwen-7b")
    kw = dict(task="inference", precision="bf16", input=2048, output=1, engine="hf")
    assert estimate_memory(m, make_workload(**kw, legacy_kv_cache=True)).per_gpu_bytes == pytest.approx(
        estimate_memory(m, make_workload(**kw)).per_gpu_bytes)


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_unchunked_loss_peaks_at_12_bytes_per_vocab_entry(cat, precision: str) -> None:
    m = lookup.model(cat, "qwen2.5-0.5b")
    w = make_workload(task="lora", precision=precision, batch=1, seq=1024, recompute="full")
    logits = estimate_memory(m, w).breakdown_bytes["logits"]
    assert logits == pytest.approx(1024 * (m.vocab_size or 0) * 12.0)


def test_llama_cpp_fp16_runs_on_the_fp16_accumulate_roof(cat) -> None:
    w = make_workload(task="inference", precision="fp16", input=512, output=1, engine="llama.cpp")
    r4090, _ = inference_rates(cat, lookup.accelerator(cat, "rtx-4090"), w)
    a100, _ = inference_rates(cat, lookup.accelerator(cat, "a100-80g-pcie"), w)
    assert r4090["peak"] == pytest.approx(330.3e12)  # fp16_acc16_dense_tflops, not the 165 TFLOPS fp32-accumulate rate
    assert a100["peak"] == pytest.approx(312e12)  # the same rate either way on the A100
    vllm, _ = inference_rates(cat, lookup.accelerator(cat, "rtx-4090"), w.model_copy(update={"engine": "vllm"}))
    assert vllm["peak"] == pytest.approx(165.15e12)


def test_attention_without_flash_moves_its_scores(cat) -> None:
    m = lookup.model(cat, "llama-2-7b")
    acc = lookup.accelerator(cat, "a100-80g")
    kw = dict(task="inference", precision="fp16", input=8192, output=1, engine="llama.cpp")
    fused = inference_speed(cat, m, acc, make_workload(**kw))
    eager = inference_speed(cat, m, acc, make_workload(**kw, flash_attention=False))
    rates, _ = inference_rates(cat, acc, make_workload(**kw))
    scores = (m.num_layers or 0) * (m.num_attention_heads or 0) * 8192 * (8192 / 2) * LLAMACPP_SCORE_BYTES_PER_ELEMENT
    assert eager.ttft_s - fused.ttft_s == pytest.approx(scores / (rates["bw"] * rates["e_stream"]))


def test_llama_cpp_scores_move_24_bytes_per_element_other_engines_16(cat) -> None:
    """llama.cpp's non-flash KQ/KQV run as batched F16 cuBLAS GEMMs with F32 graph tensors around them
    (ggml_cuda_mul_mat_batched_cublas): F16 write + to_fp32, F32 soft-max, to_fp16 + F16 read = 24 bytes per score
    element; transformers' eager path keeps the 16 of SCORE_BYTES_PER_ELEMENT; flash attention moves none."""
    m = lookup.model(cat, "llama-2-7b")
    per_token_element = (m.num_layers or 0) * (m.num_attention_heads or 0) * (2048 / 2)
    for engine, per_element in (("llama.cpp", 24.0), ("hf", 16.0), ("vllm", 16.0)):
        w = make_workload(task="inference", precision="fp16", input=2048, output=1, engine=engine, flash_attention=False)
        assert inference_speed_terms(m, w).prefill_score_bytes_per_token == pytest.approx(per_token_element * per_element)
        fused = w.model_copy(update={"flash_attention": True})
        assert inference_speed_terms(m, fused).prefill_score_bytes_per_token == 0.0
        assert inference_speed_terms(m, fused).decode_score_bytes_per_token == 0.0
    assert (LLAMACPP_SCORE_BYTES_PER_ELEMENT, SCORE_BYTES_PER_ELEMENT) == (24.0, 16.0)
