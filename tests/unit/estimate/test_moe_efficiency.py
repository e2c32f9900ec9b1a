"""MoE training: the routed-token overhead beyond the expert GEMMs' FLOPs (efficiency metric moe_routed_overhead_s).

It scales with tokens x top_k x hidden per MoE layer (router, permute/unpermute, dispatch/combine), not with the expert
width; dense models pay nothing; the fitted family values are reproduced from the in-sample cases they name
(src/suanli/data/validation/published_cases_moe.yaml, labelled `fitted:`), and no held-out case is among them."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import accelerator, model
from suanli.catalog.schema import EfficiencyFactor
from suanli.estimate import speed as S
from suanli.estimate.workload import make_workload
from suanli.plan import search
from suanli.validate.report import case_workload_kwargs

CASES = Path(__file__).resolve().parents[3] / "src" / "suanli" / "data" / "validation" / "published_cases_moe.yaml"


def _zero(acc_id: str) -> tuple[EfficiencyFactor, ...]:
    return (EfficiencyFactor(id="z", metric="moe_routed_overhead_s", device=acc_id, value=0.0, source="test"),)


def _cases() -> list[dict[str, Any]]:
    return list(yaml.safe_load(CASES.read_text(encoding="utf-8"))["cases"])


def test_dense_models_pay_nothing() -> None:
    cat = packaged_catalog()
    m, acc = model(cat, "llama-2-7b"), accelerator(cat, "h100-sxm")
    w = make_workload(task="pretrain", precision="bf16", gpus=8, seq=4096)
    assert S.training_speed_terms(m, w).routed_hidden_per_token == 0
    a, b = S.training_speed(cat, m, acc, w), S.training_speed(cat, m, acc, w, _zero(acc.id))
    assert a.train_tokens_per_s == b.train_tokens_per_s
    assert [e.metric for e in a.efficiencies] == ["train_mfu"]


def test_overhead_is_tokens_x_topk_x_hidden_per_moe_layer() -> None:
    cat = packaged_catalog()
    m, acc = model(cat, "qwen3-30b-a3b"), accelerator(cat, "h100-sxm")
    w = make_workload(task="pretrain", precision="fp8", gpus=16, tp=1, pp=2, ep=8, batch=2, grad_accum=32, seq=4096)
    t = S.training_speed_terms(m, w)
    assert m.moe is not None and t.routed_hidden_per_token == m.moe.top_k * m.hidden_size
    r, _ = S.training_rates(cat, acc, w)
    assert r["moe_routed_s"] == pytest.approx(1.739e-10)
    f = np.float64
    k = S.training_step(t, f(1), f(2), f(8), f(8), np.int64(0), 0, f(2), f(32), r)
    tokens = 2 * 4096 * 32
    assert float(k["moe_s"]) == pytest.approx(tokens * t.moe_layers * t.routed_hidden_per_token * 1.739e-10 / 2)
    # the expert width does not enter: a model with wider experts pays the same per-step overhead
    wide = m.model_copy(update={"moe": m.moe.model_copy(update={"expert_intermediate_size": 4 * m.moe.expert_intermediate_size})})
    k2 = S.training_step(S.training_speed_terms(wide, w), f(1), f(2), f(8), f(8), np.int64(0), 0, f(2), f(32), r)
    assert float(k2["moe_s"]) == pytest.approx(float(k["moe_s"]))
    assert float(k2["compute_s"]) > float(k["compute_s"])
    # the planner stacks the rate, so plan and estimate run one model
    assert "moe_routed_s" in search._RATE_KEYS


def test_families_without_a_measurement_default_to_zero() -> None:
    cat = packaged_catalog()
    for dev in ("ascend-910b", "a100-80g"):
        w = make_workload(task="pretrain", precision="bf16", gpus=8, seq=4096)
        assert S.training_rates(cat, accelerator(cat, dev), w)[0]["moe_routed_s"] == 0.0


def test_fitted_values_reproduce_from_their_in_sample_cases() -> None:
    """Each family value is the geometric mean of the per-case values that close its `fitted:` cases exactly (the term
    is additive and linear in the factor), the factor at 0 otherwise."""
    cat = packaged_catalog()
    per: dict[str, list[float]] = {}
    for c in _cases():
        assert "holdout" not in c and c["fitted"], c["id"]
        m, acc = model(cat, c["model"]), accelerator(cat, c["device"])
        w = make_workload(**case_workload_kwargs(c))
        s0 = S.training_speed(cat, m, acc, w, _zero(acc.id))
        t = S.training_speed_terms(m, w)
        g, meas = c["gpus"], c["measured"]["train_tokens_per_s"]
        value = (g / meas - g / s0.train_tokens_per_s) / (t.moe_layers * t.routed_hidden_per_token)
        for f in c["fitted"]:
            per.setdefault(f, []).append(value)
    rows = {f.id: f for f in cat.efficiency}
    assert set(per) == {"moe-routed-overhead-hopper", "moe-routed-overhead-blackwell"}
    for fid, values in per.items():
        assert all(v > 0 for v in values), fid
        gm = math.exp(sum(map(math.log, values)) / len(values))
        assert rows[fid].value == pytest.approx(gm, rel=0.01), (fid, gm)
        assert rows[fid].metric == "moe_routed_overhead_s" and rows[fid].source == "eff-fit-moe"
