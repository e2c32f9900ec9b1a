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
    assert tiny.info.weight_bytes == 4 * expected


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


def test_flops_and_kv_bytes_come_from_the_estimator_on_the_rebuilt_architecture(tiny: Any) -> None:
    """The bench keeps no FLOP-parameter or KV-bytes formula of its own (code review): calibration rebuilds the
    preset's architecture (`feedback.model_for_result`) and counts with `speed.matmul_params` and
    `arch.kv_cache_bytes_per_token`; on the dense tiny preset those equal what the loaded model multiplies and
    caches (every parameter less the input embedding; K and V per layer per KV head, fp32)."""
    from suanli.bench.feedback import model_for_result
    from suanli.catalog.load import packaged_catalog
    from suanli.estimate import arch
    from suanli.estimate.speed import matmul_params

    assert "flop_params" not in type(tiny.info).model_fields
    assert "kv_cache_bytes_per_token" not in type(tiny.info).model_fields
    from factories import small_result

    base = small_result(0)
    r = base.model_copy(update={"model": tiny.info})
    m = model_for_result(packaged_catalog(), r)
    emb = tiny.model.get_input_embeddings().weight
    assert matmul_params(m) == tiny.info.params - emb.numel()  # Kaplan's non-embedding N (norms in, as estimate counts)
    c = preset_spec("tiny-llama")["config"]
    hd = c["hidden_size"] // c["num_attention_heads"]
    assert arch.kv_cache_bytes_per_token(m, 4.0, "hf") == 2 * c["num_hidden_layers"] * c["num_key_value_heads"] * hd * 4
