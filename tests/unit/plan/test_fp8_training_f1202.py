"""Buyer review 2026-12-02, task F.3: a training plan picked fp8 silently (#1 8× H800 "tp4·pp2·vpp4·dp1 fp8"), where
serving plans say which precisions were searched and warn on a quantized one. Training now says where fp8 was
searched and warns on an fp8 plan that its framework's FP8 recipe must be on and convergence is the team's to check,
naming the recipe and its source (frameworks.yaml fp8_recipe / fp8_source)."""

from __future__ import annotations

import datetime as dt

import pytest
from pydantic import ValidationError

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.catalog.schema import Framework
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan

TODAY = dt.date(2026, 12, 2)
JOB = dict(model="qwen2.5-14b", task="pretrain", tokens=1e10, seq=4096, deadline_hours=168, budget_cny=200000,
           devices=("ascend-910b", "a800", "h800"))


def _plan(**kw: object):  # type: ignore[no-untyped-def]
    cat = packaged_catalog()
    return plan(cat, lookup.model(cat, "qwen2.5-14b"), make_request(**{**JOB, **kw}), TODAY)


def test_an_fp8_training_plan_warns_what_it_needs() -> None:
    r = _plan()
    p = r.plans[0]
    assert (p.device, p.precision, p.framework) == ("h800", "fp8", "megatron")
    w = next(x for x in p.warnings_i18n if x["id"] == "plan.warn.fp8_training")
    assert w["params"]["recipe"] == "Transformer Engine" and w["params"]["source"] == "megatron-core-docs"
    text = render(Message.from_json(w))
    assert "not convergence" in text, text
    assert "FP8 recipe (Transformer Engine; source megatron-core-docs)" in text, text
    assert "FP8 训练方案" in render(Message.from_json(w), "zh")


def test_the_assumptions_name_where_fp8_was_searched() -> None:
    r = _plan()
    a = next(x for x in r.assumptions_i18n if x["id"] == "plan.assume.train_precisions")
    on = a["params"]["fp8_on"]["en"]
    assert "NVIDIA H800" in on and "Megatron-LM" in on, on
    assert "A800" not in on and "910B" not in on  # no FP8 on Ampere or Atlas A2: not searched there


def test_bf16_plans_and_a_pinned_precision_say_nothing_of_fp8() -> None:
    r = _plan(precision="bf16")
    assert all(p.precision == "bf16" for p in r.plans)
    assert "plan.assume.train_precisions" not in [x["id"] for x in r.assumptions_i18n]
    assert not [x for p in r.plans for x in p.warnings_i18n if x["id"] == "plan.warn.fp8_training"]
    r = _plan(devices=("a800",), deadline_hours=None, budget_cny=None)  # Ampere: bf16 alone, no line
    assert "plan.assume.train_precisions" not in [x["id"] for x in r.assumptions_i18n]


def test_a_framework_with_fp8_names_its_recipe_and_source() -> None:
    base = dict(id="x", name="X", tasks=("full",), stacks=("cuda",), source="s")
    with pytest.raises(ValidationError, match="fp8, fp8_recipe and fp8_source"):
        Framework(**base, fp8=True)  # type: ignore[arg-type]
    Framework(**base, fp8=True, fp8_recipe="Transformer Engine", fp8_source="s")  # type: ignore[arg-type]
