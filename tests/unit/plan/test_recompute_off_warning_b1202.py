"""A LLaMA-Factory plan without recompute says, in its text and --json warnings, how to switch off the gradient
checkpointing LLaMA-Factory runs by default (buyer review 2026-12-02, task B.2): the word is the framework's data
(`Framework.recompute_off`, frameworks.yaml), the one the SkyPilot export launches with (e6fc341); a framework that
checkpoints nothing unasked, or a plan with full recompute, has no such warning."""

from __future__ import annotations

import datetime as dt

import pytest

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import PlanResult, plan, recompute_off

TODAY = dt.date(2026, 12, 2)


def _plan(cat: Catalog, framework: str, recompute: str | None = None) -> PlanResult:
    req = make_request(model="qwen2.5-7b", task="lora", tokens=1e8, devices=("h800",), framework=framework,
                       recompute=recompute)
    return plan(cat, lookup.model(cat, "qwen2.5-7b"), req, TODAY)


def _warned(r: PlanResult) -> list[dict]:  # type: ignore[type-arg]
    return [w for w in r.plans[0].warnings_i18n if w.get("id") == "plan.warn.recompute_off"]


def test_llamafactory_without_recompute_says_the_setting(cat: Catalog) -> None:
    r = _plan(cat, "llama-factory")
    assert r.plans[0].recompute == "none"
    warned = _warned(r)
    assert len(warned) == 1, r.plans[0].warnings
    assert warned[0]["params"]["setting"] == "disable_gradient_checkpointing=true"
    assert "launch it with disable_gradient_checkpointing=true" in " ".join(r.plans[0].warnings)
    zh = render(Message.from_json(warned[0]), "zh")
    assert "`disable_gradient_checkpointing=true`" in zh, zh


@pytest.mark.parametrize(("framework", "recompute"), [("llama-factory", "full"), ("peft", None)])
def test_no_warning_with_full_recompute_or_another_framework(cat: Catalog, framework: str,
                                                            recompute: str | None) -> None:
    r = _plan(cat, framework, recompute)
    assert r.plans and not _warned(r), r.plans[0].warnings


def test_the_word_is_the_frameworks_data(cat: Catalog) -> None:
    fw = next(f for f in cat.frameworks if f.id == "llama-factory")
    assert recompute_off(cat, "llama-factory", "none") == fw.recompute_off == "disable_gradient_checkpointing=true"
    assert recompute_off(cat, "llama-factory", "full") is None
    assert recompute_off(cat, "peft", "none") is None
