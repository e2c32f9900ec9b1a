from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")

from suanli.bench.models import ByteTokenizer, load_model, model_key, preset_names, preset_spec  # noqa: E402
from suanli.errors import InputError, NotFoundError  # noqa: E402


def test_tiny_llama_parameter_count_matches_the_llama_formula(tiny: Any) -> None:
    c = preset_spec("tiny-llama")["config"]
    v, d, n_layers, ff = c["vocab_size"], c["hidden_size"], c["num_hidden_layers"], c["intermediate_size"]
    hd = d // c["num_attention_heads"]
    kv = c["num_key_value_heads"] * hd
    # per layer: q, o (d x d); k, v (d x kv); gate, up, down (d x ff); two RMSNorm weights (d)
    per_layer = 2 * d * d + 2 * d * kv + 3 * d * ff + 2 * d
    expected = v * d + n_layers * per_layer + d + v * d  # embedding, layers, final norm, untied lm_head
    assert tiny.info.params == expected
    assert 1e6 < expected < 1e7  # "a few million"
    assert tiny.info.flop_params == expected - v * d - (2 * n_layers + 1) * d  # less embedding and norms
    assert tiny.info.weight_bytes == 4 * expected
    assert tiny.info.kv_cache_bytes_per_token == 2 * n_layers * kv * 4


def test_preset_weights_are_deterministic(tiny: Any) -> None:
    import torch

    again = load_model("tiny-llama", "fp32", "cpu")
    for (n1, p1), (n2, p2) in zip(tiny.model.named_parameters(), again.model.named_parameters(), strict=True):
        assert n1 == n2 and torch.equal(p1, p2), n1


def test_bf16_halves_weight_bytes() -> None:
    lm = load_model("tiny-llama", "bf16", "cpu")
    assert lm.info.weight_bytes == 2 * lm.info.params
    assert next(lm.model.parameters()).dtype.itemsize == 2


def test_unknown_model_and_precision() -> None:
    assert "tiny-llama" in preset_names()
    with pytest.raises(NotFoundError, match="Did you mean: tiny-llama"):
        load_model("tiny-lama")
    with pytest.raises(InputError, match="^precision:"):
        load_model("tiny-llama", "fp12")


def test_local_hf_directory_loads_with_byte_tokenizer_fallback(tiny: Any, tmp_path: Path) -> None:
    import torch

    d = tmp_path / "my-model"
    tiny.model.save_pretrained(d)
    with pytest.raises(InputError, match="has no config.json"):
        load_model(str(tmp_path))
    lm = load_model(str(d), "fp32", "cpu")
    assert lm.info.kind == "hf-dir" and not lm.info.random_weights
    assert lm.info.key == model_key(str(d)) and lm.info.key.startswith("my-model-")
    assert isinstance(lm.tokenizer, ByteTokenizer)
    assert lm.info.params == tiny.info.params
    x = torch.tensor([[1, 2, 3]])
    assert torch.allclose(lm.model(x).logits, tiny.model(x).logits)
