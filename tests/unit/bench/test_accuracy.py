from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")

from suanli.bench.accuracy import AccuracyMismatch, check_against, make_reference, require_pass  # noqa: E402
from suanli.bench.models import load_model  # noqa: E402
from suanli.bench.results import ResultStore  # noqa: E402
from suanli.errors import InputError  # noqa: E402


def _packaged() -> Any:
    ref = ResultStore().reference("tiny-llama", where="packaged")
    assert ref is not None, "suanli/data/bench/references/tiny-llama.json is missing"
    return ref


def _perturb(lm: Any, rel: float, seed: int = 1) -> None:
    """Add noise of `rel` x the weight's std to every MLP down-projection."""
    import torch

    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for layer in lm.model.model.layers:
            w = layer.mlp.down_proj.weight
            w.add_((torch.randn(w.shape, generator=g) * float(w.float().std()) * rel).to(w.dtype))


def test_fp32_cpu_passes_against_the_stored_reference(tiny: Any) -> None:
    ref = _packaged()
    r = check_against(tiny, ref)
    assert r.passed, r.verdict
    assert r.max_logit_rel_diff <= 1e-4  # same device, same precision: rounding-level differences only
    assert r.perplexity == pytest.approx(ref.perplexity, rel=1e-5)
    require_pass(r)  # does not raise


def test_stored_reference_is_what_the_preset_builds_today(tiny: Any) -> None:
    """Guards the deterministic initialisation: a changed preset or init rule must come with a new reference."""
    fresh = make_reference(tiny)
    ref = _packaged()
    assert fresh.token_ids_sha256 == ref.token_ids_sha256
    assert fresh.positions == ref.positions
    np.testing.assert_allclose(fresh.logits(), ref.logits(), rtol=0, atol=1e-4)


def test_bf16_and_fp16_pass_inside_their_tolerances() -> None:
    ref = _packaged()
    for p in ("bf16", "fp16"):
        r = check_against(load_model("tiny-llama", p, "cpu"), ref)
        assert r.passed, r.verdict
        assert r.max_logit_rel_diff > 0  # lower precision really ran


def test_perturbed_weights_fail_with_a_clear_verdict(tiny: Any) -> None:
    _perturb(tiny, rel=0.05)
    r = check_against(tiny, _packaged())
    assert not r.passed
    assert r.verdict.startswith("FAIL: tiny-llama in fp32 on cpu does not compute the reference function")
    assert "max logit diff" in r.verdict
    with pytest.raises(AccuracyMismatch, match="^accuracy: FAIL"):
        require_pass(r)


def test_perturbed_weights_fail_in_bf16_too() -> None:
    lm = load_model("tiny-llama", "bf16", "cpu")
    _perturb(lm, rel=0.5)
    r = check_against(lm, _packaged())
    assert not r.passed, r.verdict
    assert r.max_logit_rel_diff > r.tolerance_logit_rel


def test_reference_for_another_model_is_refused(tiny: Any) -> None:
    ref = _packaged().model_copy(update={"model_key": "other-model"})
    with pytest.raises(InputError, match="^reference: reference is for model 'other-model'"):
        check_against(tiny, ref)


def test_reference_on_other_tokens_is_refused(tiny: Any) -> None:
    ref = _packaged().model_copy(update={"token_ids_sha256": "0" * 64})
    with pytest.raises(InputError, match="other token ids"):
        check_against(tiny, ref)
