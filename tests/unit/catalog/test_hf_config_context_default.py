"""A config without a context field: the transformers config class default for that model_type where known
(FalconConfig max_position_embeddings 2048), else unknown and the note says so. Never unbounded silently."""

from __future__ import annotations

from suanli.catalog.hf_config import from_hf_config

FALCON_7B = {"model_type": "falcon", "hidden_size": 4544, "num_hidden_layers": 32, "num_attention_heads": 71,
             "vocab_size": 65024, "multi_query": True, "parallel_attn": True, "new_decoder_architecture": False,
             "bias": False, "alibi": False}


def test_falcon_without_max_position_embeddings_takes_falconconfig_default() -> None:
    m = from_hf_config(FALCON_7B, "falcon-7b")
    assert m.max_context == 2048
    assert "FalconConfig's default" in (m.note or "")
    assert from_hf_config({**FALCON_7B, "max_position_embeddings": 8192}, "f").max_context == 8192


def test_unknown_type_without_context_says_so() -> None:
    cfg = {"model_type": "myllm", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
           "intermediate_size": 512, "vocab_size": 1000}
    m = from_hf_config(cfg, "myllm")
    assert m.max_context is None
    assert "gives no context length" in (m.note or "") and "myllm" in (m.note or "")
    llama = {**cfg, "model_type": "llama"}
    m = from_hf_config(llama, "l")
    assert m.max_context is None and "gives no context length" in (m.note or "")
