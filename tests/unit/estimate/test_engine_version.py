"""Issue 12: TensorRT-LLM before its GQA generation kernel (XQA, v0.7; Falcon180B-H200.md, XQA-kernel.md) decoded with
the masked MHA kernel, one thread block per (sequence, query head), each loading its KV head's cache
(decoderMaskedMultiheadAttentionTemplate.h: hi_kv = hi / qhead_per_kv): a GQA model's KV cache is read heads / kv_heads
times per step. A case states the release it ran (Workload.engine_version); the planner runs the current release."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.estimate import speed
from suanli.estimate.workload import make_workload


def _w(version: str | None, model_batch: int = 512, engine: str = "trt-llm"):
    return make_workload(task="inference", precision="fp8", batch=model_batch, input=128, output=128, engine=engine,
                         engine_version=version)


def test_release_parsing() -> None:
    assert speed.engine_release("0.5.0") == (0, 5, 0)
    assert speed.engine_release("0.7a") == (0, 7)
    assert speed.engine_release("0.6.1") < speed.engine_release("0.7") <= speed.engine_release("0.7a")


def test_catalog_row_is_sourced(cat) -> None:
    row = next(e for e in cat.engines if e.id == "trt-llm")
    assert row.gqa_decode_kernel_from == "0.7"
    assert row.gqa_decode_kernel_source == "trtllm-xqa-gqa-kernel"


@pytest.mark.parametrize("version,expected", [("0.5.0", True), ("0.6.1", True), ("0.7a", False), ("0.9.0", False),
                                              (None, False)])
def test_which_releases_read_per_query_head(cat, version, expected) -> None:
    assert speed.reads_kv_per_query_head(cat, _w(version)) is expected


def test_other_engines_ignore_the_release(cat) -> None:
    assert not speed.reads_kv_per_query_head(cat, _w("0.1.0", engine="sglang"))


@pytest.mark.parametrize("version,expected", [("0.4.2", True), ("0.4.0.post1", True), ("0.4.3", False),
                                              ("0.5.0", False), ("0.6.3", False), (None, False)])
def test_vllm_before_flash_attn_decode(cat, version, expected) -> None:
    """vLLM decoded with its own PagedAttention kernel (grid num_heads x num_seqs x partitions, kv_head_idx =
    head_idx / num_queries_per_kv) until flash_attn_with_kvcache took over decode (vllm#3648/#4907, v0.4.3)."""
    row = next(e for e in cat.engines if e.id == "vllm")
    assert row.gqa_decode_kernel_from == "0.4.3"
    assert row.gqa_decode_kernel_source == "vllm-paged-attention-gqa-decode"
    assert speed.reads_kv_per_query_head(cat, _w(version, engine="vllm")) is expected


def test_vllm_borrowers_keep_the_current_kernel(cat) -> None:
    """vllm-ascend and MindIE borrow vLLM's efficiency factors (efficiency_as), not its CUDA release history."""
    for engine in ("vllm-ascend", "mindie"):
        assert not speed.reads_kv_per_query_head(cat, _w("0.4.2", engine=engine))


def test_vllm_042_long_context_slower_only_for_gqa(cat) -> None:
    """Qwen2-7B (28 query heads over 4 KV heads) at a 30k prompt: v0.4.2 reads the cache 7 times per step, so its
    decode is slower than the current release's; prefill and a batch-1 step without context barely move."""
    acc = lookup.accelerator(cat, "a100-80g")
    m = lookup.model(cat, "qwen2-7b")
    w_old = make_workload(task="inference", precision="bf16", batch=1, input=30720, output=2048, engine="vllm",
                          engine_version="0.4.2")
    w_new = make_workload(task="inference", precision="bf16", batch=1, input=30720, output=2048, engine="vllm")
    old, new = speed.inference_speed(cat, m, acc, w_old), speed.inference_speed(cat, m, acc, w_new)
    assert old.tpot_s > 1.3 * new.tpot_s
    assert old.prefill_tokens_per_s == pytest.approx(new.prefill_tokens_per_s)


def test_kv_reads_by_hand(cat) -> None:
    """Llama-2-70B: 64 query heads over 8 KV heads -> 8 reads; Llama-2-13B (no GQA) -> 1 either way."""
    m70 = lookup.model(cat, "llama-2-70b")
    m13 = lookup.model(cat, "llama-2-13b")
    assert speed.attention_kv_reads(m70, "trt-llm", True) == pytest.approx(8.0)
    assert speed.attention_kv_reads(m70, "trt-llm", False) == 1.0
    assert speed.attention_kv_reads(m13, "trt-llm", True) == 1.0
    t = speed.inference_speed_terms(m70, _w("0.5.0"), True)
    assert t.kv_read_factor == 1.0 and t.attention_kv_reads == pytest.approx(8.0)  # no copy kernel, prefill as before


def test_old_release_is_slower_only_for_gqa(cat) -> None:
    acc = lookup.accelerator(cat, "h200")
    for model, slower in (("llama-2-70b", True), ("llama-2-13b", False)):
        m = lookup.model(cat, model)
        old = speed.inference_speed(cat, m, acc, _w("0.5.0"))
        new = speed.inference_speed(cat, m, acc, _w(None))
        assert (old.output_tokens_per_s < new.output_tokens_per_s) is slower
        assert old.prefill_tokens_per_s == pytest.approx(new.prefill_tokens_per_s)
        if not slower:
            assert old.output_tokens_per_s == pytest.approx(new.output_tokens_per_s)


def test_bad_version_rejected() -> None:
    with pytest.raises(Exception):
        _w("latest")
