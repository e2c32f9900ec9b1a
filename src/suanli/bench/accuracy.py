"""Accuracy against a reference run: perplexity of the shipped text and the largest logit difference.

A reference (normally CPU fp32) stores the perplexity over the first `window` tokens of
`perplexity.txt` and the full logit vectors at a few positions. A run on another device or precision
passes when both differences are inside the tolerance for its precision (`data/bench/tolerances.json`);
otherwise the model does not compute the same function and `require_pass` raises `AccuracyMismatch`.
"""

from __future__ import annotations

import hashlib
import json
import math
from importlib import resources
from typing import Any

import numpy as np

from suanli.bench.backends import require_torch
from suanli.bench.models import LoadedModel
from suanli.bench.results import AccuracyResult, ReferenceRun
from suanli.bench.testset import manifest, perplexity_ids
from suanli.errors import InputError, SuanliError
from suanli.i18n import Message

__all__ = [
    "AccuracyMismatch",
    "check_against",
    "evaluate",
    "make_reference",
    "require_pass",
    "tolerances",
]


class AccuracyMismatch(SuanliError):
    """The model on this device/precision does not compute the reference function within tolerance."""


def tolerances() -> dict[str, Any]:
    t: dict[str, Any] = json.loads(
        (resources.files("suanli") / "data" / "bench" / "tolerances.json").read_text(encoding="utf-8")
    )
    return t


def _sha(ids: list[int]) -> str:
    return hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()


def _positions(n_tokens: int, count: int) -> list[int]:
    return sorted({int(round(x)) for x in np.linspace(0, n_tokens - 1, count)})


def evaluate(lm: LoadedModel, ids: list[int], positions: list[int]) -> tuple[float, np.ndarray]:
    """One forward pass over `ids`: (perplexity, float32 logits at `positions`, shape (P, vocab))."""
    torch = require_torch()
    x = torch.tensor([ids], dtype=torch.long, device=lm.device)
    with torch.inference_mode():
        logits = lm.model(x, use_cache=False).logits[0].float()  # (T, vocab)
        # perplexity = exp(mean negative log-likelihood of each next token)
        nll = torch.nn.functional.cross_entropy(logits[:-1], x[0, 1:], reduction="mean")
        picked = logits[positions].cpu().numpy().astype(np.float32)
    return float(math.exp(float(nll))), picked


def make_reference(lm: LoadedModel, window: int | None = None, command: str = "") -> ReferenceRun:
    """Run the reference (the caller chooses the device; normally CPU fp32) and return it for storing."""
    torch = require_torch()
    ids = perplexity_ids(lm.tokenizer, window)
    positions = _positions(len(ids), int(manifest()["reference_positions"]))
    ppl, logits = evaluate(lm, ids, positions)
    return ReferenceRun(
        command=command,
        model_key=lm.info.key,
        device=lm.device,
        precision=lm.info.precision,
        torch_version=torch.__version__,
        token_ids_sha256=_sha(ids),
        n_tokens=len(ids),
        perplexity=ppl,
        positions=positions,
        vocab_size=int(logits.shape[1]),
        logits_f32_b64=ReferenceRun.encode_logits(logits),
    )


def check_against(lm: LoadedModel, ref: ReferenceRun) -> AccuracyResult:
    """Compare this model (its device and precision) with `ref`; `passed` says whether it is the same function."""
    if ref.model_key != lm.info.key:
        raise InputError("reference", Message("err.reference_is_for_model_not", ref_model_key=ref.model_key, key=lm.info.key))
    ids = perplexity_ids(lm.tokenizer, ref.n_tokens)
    if _sha(ids) != ref.token_ids_sha256:
        raise InputError("reference", Message("err.the_reference_was_made_on_other"))
    ppl, logits = evaluate(lm, ids, ref.positions)
    ref_logits = ref.logits()
    if logits.shape != ref_logits.shape:
        raise InputError("reference", Message("err.logit_shape_differs_from_the_reference", logits_shape=logits.shape, ref_logits_shape=ref_logits.shape))
    tol_all = tolerances()
    tol = tol_all["tolerances"].get(lm.info.precision)
    if tol is None:
        raise InputError("precision", Message("err.no_accuracy_tolerance_for", precision=lm.info.precision))
    max_abs = float(np.max(np.abs(logits - ref_logits)))
    scale = float(np.max(np.abs(ref_logits))) or 1.0
    logit_rel = max_abs / scale
    ppl_rel = abs(ppl - ref.perplexity) / ref.perplexity
    ok_logits = logit_rel <= tol["logit_rel"]
    ok_ppl = ppl_rel <= tol["perplexity_rel"]
    passed = ok_logits and ok_ppl
    if passed:
        verdict = (
            f"pass: {lm.info.precision} on {lm.device} matches the {ref.precision} reference on {ref.device} "
            f"(max logit diff {logit_rel:.2e} of scale <= {tol['logit_rel']:g}; "
            f"perplexity {ppl:.4g} vs {ref.perplexity:.4g}, {ppl_rel:.2e} <= {tol['perplexity_rel']:g})"
        )
    else:
        bad = []
        if not ok_logits:
            bad.append(f"max logit diff {max_abs:.4g} = {logit_rel:.2e} of scale > {tol['logit_rel']:g}")
        if not ok_ppl:
            bad.append(
                f"perplexity {ppl:.5g} vs reference {ref.perplexity:.5g} ({ppl_rel:.2e} > {tol['perplexity_rel']:g})"
            )
        verdict = (
            f"FAIL: {lm.info.name} in {lm.info.precision} on {lm.device} does not compute the reference function "
            f"({ref.precision} on {ref.device}, reference {ref.id}): " + "; ".join(bad)
        )
    return AccuracyResult(
        passed=passed,
        verdict=verdict,
        reference_id=ref.id,
        reference_device=ref.device,
        reference_precision=ref.precision,
        precision=lm.info.precision,
        n_tokens=ref.n_tokens,
        perplexity=ppl,
        reference_perplexity=ref.perplexity,
        perplexity_rel_diff=ppl_rel,
        max_abs_logit_diff=max_abs,
        max_logit_rel_diff=logit_rel,
        tolerance_logit_rel=float(tol["logit_rel"]),
        tolerance_perplexity_rel=float(tol["perplexity_rel"]),
        tolerance_source=str(tol_all["source"]["id"]),
    )


def require_pass(result: AccuracyResult | None) -> None:
    """Raise `AccuracyMismatch` with the verdict when the check failed."""
    if result is not None and not result.passed:
        raise AccuracyMismatch(f"accuracy: {result.verdict}")
