"""Hugging Face config.json parsing and the reverse mapping used to build equivalent transformers models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from suanli.catalog.hf_config import from_hf_config, to_hf_config
from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import model
from suanli.catalog.schema import ModelArch
from suanli.errors import InputError
from suanli.estimate.params import param_count

CAT = packaged_catalog()
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "hf_configs"
SHAPE = (
    "hidden_size", "num_layers", "num_attention_heads", "num_key_value_heads", "intermediate_size",
    "vocab_size", "tie_word_embeddings", "qkv_bias", "qk_norm", "max_context", "moe", "mla", "sliding_window",
    "layer_types",
)

# fixture file -> the catalog preset it is the config of
CASES = {
    "llama-2-7b.json": "llama-2-7b",
    "qwen2.5-7b-instruct.json": "qwen2.5-7b",
    "qwen3-30b-a3b.json": "qwen3-30b-a3b",
    "deepseek-v3.json": "deepseek-v3",
    "chatglm3-6b.json": "chatglm3-6b",
    "qwen-7b.json": "qwen-7b",
    "baichuan2-13b.json": "baichuan2-13b",
    "mixtral-8x7b.json": "mixtral-8x7b",
    "gemma-2-9b.json": "gemma-2-9b",
}


def _load(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize(("fixture", "preset"), CASES.items())
def test_parse_real_config_matches_preset(fixture: str, preset: str) -> None:
    parsed = from_hf_config(_load(fixture), fixture)
    ref = model(CAT, preset)
    for field in SHAPE:
        assert getattr(parsed, field) == getattr(ref, field), field
    assert parsed.hf_architecture == ref.hf_architecture
    assert param_count(parsed).total == param_count(ref).total
    assert param_count(parsed).active == param_count(ref).active


def test_parse_specifics() -> None:
    qwen1 = from_hf_config(_load("qwen-7b.json"), "qwen-7b")
    assert qwen1.intermediate_size == 11008  # config's 22016 counts w1 and w2
    glm = from_hf_config(_load("chatglm3-6b.json"), "chatglm3")
    assert glm.num_key_value_heads == 2 and glm.head_dim == 128 and glm.qkv_bias
    ds = from_hf_config(_load("deepseek-v3.json"), "ds")
    assert ds.moe is not None and ds.moe.router_bias and ds.moe.n_group == 8 and ds.mtp_layers == 1
    qwen25 = from_hf_config(_load("qwen2.5-7b-instruct.json"), "q")
    assert qwen25.sliding_window is None  # present in the file, but use_sliding_window is false


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda c: c.pop("hidden_size"), "hidden_size"),
        (lambda c: c.update(num_hidden_layers="32"), "num_hidden_layers"),
        (lambda c: c.update(num_key_value_heads=5), "num_key_value_heads"),
        (lambda c: c.update(vocab_size=-1), "vocab_size"),
        (lambda c: c.update(model_type="t5"), "model_type"),  # encoder-decoder: not a decoder-only causal LM
        (lambda c: c.pop("model_type"), "model_type"),
        (lambda c: c.update(tie_word_embeddings="no"), "tie_word_embeddings"),
        (lambda c: c.update(model_type="mistral", mlp_bias=True), "mlp_bias"),  # MistralMLP has no biases
    ],
)
def test_bad_fields_name_the_field(mutate: Any, field: str) -> None:
    cfg = _load("llama-2-7b.json")
    mutate(cfg)
    with pytest.raises(InputError) as e:
        from_hf_config(cfg, "bad")
    assert e.value.field == field
    assert "\n" not in str(e.value)


def test_bad_remote_code_fields() -> None:
    glm = _load("chatglm3-6b.json")
    del glm["ffn_hidden_size"]
    with pytest.raises(InputError, match="ffn_hidden_size"):
        from_hf_config(glm, "g")
    ds = _load("deepseek-v3.json")
    ds["kv_lora_rank"] = 0
    with pytest.raises(InputError, match="kv_lora_rank"):
        from_hf_config(ds, "d")
    with pytest.raises(InputError, match="config"):
        from_hf_config([], "x")  # type: ignore[arg-type]


LLMS = [m for m in CAT.models if m.kind == "llm"]


@pytest.mark.parametrize("m", LLMS, ids=lambda m: m.id)
def test_to_hf_config_round_trips(m: ModelArch) -> None:
    cfg = to_hf_config(m)
    assert cfg["model_type"] and cfg["architectures"] == [m.hf_architecture]
    back = from_hf_config(cfg, m.id)
    assert param_count(back).total == param_count(m).total
    assert param_count(back).active == param_count(m).active


def test_to_hf_config_refuses_what_the_class_cannot_express() -> None:
    llama = model(CAT, "llama-2-7b")
    with pytest.raises(InputError, match="qkv_bias"):
        to_hf_config(llama.model_copy(update={"qkv_bias": True}))  # LlamaForCausalLM would add o_proj bias too
    with pytest.raises(InputError, match="kind"):
        to_hf_config(model(CAT, "sdxl"))
    with pytest.raises(InputError, match="hf_architecture"):
        to_hf_config(llama.model_copy(update={"hf_architecture": "FooForCausalLM"}))
