"""Buyer's review 2026-12-01 (third pass), item 7: without a fused attention kernel the score matrix is
heads x queries x keys; vLLM prefills in chunks of max_num_batched_tokens (2048 for its API server, vllm-project/vllm
vllm/engine/arg_utils.py), so a 128k prompt holds chunk x context scores, not context²; transformers generate does
not chunk. The kernel (memory.inference_memory) is the one plan and estimate use."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.estimate.memory import estimate_memory, prefill_chunk_tokens
from suanli.estimate.workload import make_workload


def test_engine_rows_carry_the_chunk_with_its_source(cat) -> None:
    assert prefill_chunk_tokens(cat, "vllm") == 2048
    row = next(e for e in cat.engines if e.id == "vllm")
    assert row.prefill_chunk_tokens is not None and row.prefill_chunk_tokens.chosen.source == "vllm-chunked-prefill-default"
    assert prefill_chunk_tokens(cat, "hf") is None


@pytest.mark.parametrize("engine", ["vllm", "hf"])
def test_score_memory_is_chunk_by_context_for_chunking_engines(cat, engine: str) -> None:
    m, acc = lookup.model(cat, "llama-3.1-8b"), lookup.accelerator(cat, "mtt-s4000")
    w = make_workload(task="inference", input=128000, output=512, batch=1, engine=engine, flash_attention=False)
    act = estimate_memory(m, w, acc, cat=cat).breakdown_bytes["activations"]
    heads, bf16 = m.num_attention_heads or 0, 2
    if engine == "vllm":
        scores = heads * 2048 * 128000 * bf16
        assert scores < act < scores * 1.1
    else:
        assert act > heads * 128000**2 * bf16
