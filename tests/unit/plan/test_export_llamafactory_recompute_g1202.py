"""A LLaMA-Factory plan exported to SkyPilot runs with the activation recompute it was planned with (buyer review G,
2026-12-02): LLaMA-Factory checkpoints gradients by default (hiyouga/LLaMA-Factory hparams/model_args.py,
disable_gradient_checkpointing default False), so a plan without recompute — timed without its extra forward —
passes disable_gradient_checkpointing=true after the config (hparams/parser.py read_args merges key=value words over
the YAML); a plan with full recompute keeps the default."""

from __future__ import annotations

import datetime as dt

import pytest
import yaml

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.plan.export import skypilot_yaml
from suanli.plan.request import make_request
from suanli.plan.search import PlanResult, plan

TODAY = dt.date(2026, 12, 2)


@pytest.fixture(scope="module")
def lora(cat: Catalog) -> PlanResult:
    req = make_request(model="qwen2.5-7b", task="lora", tokens=1e8, devices=("h800",))
    return plan(cat, lookup.model(cat, "qwen2.5-7b"), req, TODAY)


@pytest.mark.parametrize(("recompute", "off"), [("none", True), ("full", False)])
def test_llamafactory_run_sets_the_planned_recompute(cat: Catalog, lora: PlanResult, recompute: str,
                                                    off: bool) -> None:
    p = lora.plans[0].model_copy(update={"framework": "llama-factory", "recompute": recompute})
    run = yaml.safe_load(skypilot_yaml(p, lora, cat))["run"]
    assert "llamafactory-cli train $CONFIG" in run
    assert ("llamafactory-cli train $CONFIG disable_gradient_checkpointing=true" in run) is off, run
