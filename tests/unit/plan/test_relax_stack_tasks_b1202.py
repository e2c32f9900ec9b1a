"""The relax tip of a training request with no plan suggests only the lighter tasks an allowed device's stack runs
(buyer review 2026-12-02, task B.3: GLM-4-9B LoRA on 4 × MTT S4000 suggested `--task qlora`, which MUSA cannot run:
no bitsandbytes, stacks.yaml qlora_4bit false), and with --gpus fixed it says to change --gpus, with the card count
in the plural rule and no request rate to meet in training."""

from __future__ import annotations

import datetime as dt

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.estimate.capability import runs_task
from suanli.plan.request import make_request
from suanli.plan.search import PlanResult, plan

TODAY = dt.date(2026, 12, 2)


def _plan(cat: Catalog, task: str, *devices: str) -> PlanResult:
    req = make_request(model="glm-4-9b", task=task, tokens=1e8, devices=devices, gpus=4)
    return plan(cat, lookup.model(cat, "glm-4-9b"), req, TODAY)


def test_musa_lora_suggests_no_qlora(cat: Catalog) -> None:
    r = _plan(cat, "lora", "mtt-s4000")
    assert not r.plans and r.relax
    assert r.relax_i18n[0]["id"] == "relax.nothing_fits_gpus_train", r.relax_i18n[0]
    assert "qlora" not in r.relax[0], r.relax[0]
    assert "exactly 4 cards among" in r.relax[0] and "change --gpus to another card count" in r.relax[0], r.relax[0]
    assert "request rate" not in r.relax[0], r.relax[0]


def test_musa_full_suggests_lora_only(cat: Catalog) -> None:
    r = _plan(cat, "full", "mtt-s4000")
    assert r.relax_i18n[0]["id"] == "relax.nothing_fits_gpus_lighter", r.relax_i18n[0]
    assert "use --task lora," in r.relax[0] and "qlora" not in r.relax[0], r.relax[0]


def test_runs_task_reads_the_stack_data(cat: Catalog) -> None:
    musa, cuda = lookup.stack(cat, "musa"), lookup.stack(cat, "cuda")
    assert not runs_task(cat.frameworks, musa, "qlora") and runs_task(cat.frameworks, musa, "lora")
    assert runs_task(cat.frameworks, cuda, "qlora")
