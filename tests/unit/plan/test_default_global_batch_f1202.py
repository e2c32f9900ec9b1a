"""Buyer review 2026-12-02, task F.1: `suanli estimate --model qwen3-32b --task qlora --gpu rtx-4090` said plan finds no
plan at another card count while `suanli plan … --gpu rtx-4090` finds 2 cards: the hint searched at the estimate's
global batch (one sequence a step: no data-parallel layout exists). The hint, plan, compare and migrate share one
default global batch, `plan.request.DEFAULT_GLOBAL_BATCH`, the one `suanli plan` steps without --global-batch."""

from __future__ import annotations

import inspect
import re

from typer.testing import CliRunner

from suanli.api.schemas import CompareBody
from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.cli.main import app
from suanli.plan import compare
from suanli.plan.request import DEFAULT_GLOBAL_BATCH, PlanRequest, make_request
from suanli.plan.search import fewest_training_cards


def test_one_default_for_plan_compare_and_the_api() -> None:
    assert PlanRequest.model_fields["global_batch"].default == DEFAULT_GLOBAL_BATCH
    assert CompareBody.model_fields["global_batch"].default == DEFAULT_GLOBAL_BATCH
    assert inspect.signature(compare.compare_devices).parameters["global_batch"].default == DEFAULT_GLOBAL_BATCH


def test_the_fewest_cards_at_plans_default_batch_are_what_plan_finds() -> None:
    cat = packaged_catalog()
    m = lookup.model(cat, "qwen3-32b")
    req = make_request(model="qwen3-32b", task="qlora", tokens=1e7)  # plan's request, default global batch
    assert req.global_batch == DEFAULT_GLOBAL_BATCH
    assert fewest_training_cards(cat, m, req, "rtx-4090") == 2  # `suanli plan … --gpu rtx-4090`: 2× RTX 4090
    # one sequence a step (the estimate's own batch × dp × accumulation) has no data-parallel layout at all
    one = make_request(model="qwen3-32b", task="qlora", tokens=1e7, global_batch=1)
    assert fewest_training_cards(cat, m, one, "rtx-4090") is None


def test_the_estimate_hint_names_the_cards_plan_finds() -> None:
    """The buyer's case end to end: the hint and `suanli plan … --gpu rtx-4090` agree on 2 cards."""
    r = CliRunner().invoke(app, ["estimate", "--model", "qwen3-32b", "--task", "qlora", "--gpu", "rtx-4090"],
                           env={"COLUMNS": "400"})
    assert r.exit_code == 0, r.output
    assert re.search(r"hint: .*`?suanli plan`? finds a plan on 2 cards \(--gpus 2\)", r.output), r.output
