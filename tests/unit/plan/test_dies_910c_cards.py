"""Every command counts cards where the user types cards (task die2, finishing 7642d82): a 910C card is two ranks
to the estimator and the planner (`catalog.ranks`), so `plan --gpus 8`, compare, migrate cost and scenarios' cards
of a 910C are 16 ranks billed as 8 cards; other devices are unchanged (their goldens and these rows)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.cli.main import app
from suanli.plan.compare import compare_devices, migration_cost
from suanli.plan.request import make_request
from suanli.plan.search import plan

KINDS = ("listing", "index", "reference", "contract")


def _cli(*args: str, lang: str = "en") -> str:
    out = CliRunner().invoke(app, ["--lang", lang, *args], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    return out.output


@pytest.mark.parametrize(("task", "extra"), [("full", {"tokens": 1e9}), ("inference", {"requests_per_s": 2.0,
                                                                                       "tpot_s": 0.1})])
def test_plan_gpus_8_rents_8_cards_of_16_ranks(task: str, extra: dict[str, float]) -> None:
    cat = packaged_catalog()
    req = make_request(model="qwen3-32b", task=task, gpus=8, devices=("910c",), offer_kinds=KINDS, **extra)
    r = plan(cat, lookup.model(cat, "qwen3-32b"), req)
    assert r.plans, r.why_not
    for p in r.plans:
        assert (p.cards, p.gpus, p.dies_per_card) == (8, 16, 2)


def test_plan_max_gpus_counts_cards() -> None:
    cat = packaged_catalog()
    req = make_request(model="qwen3-32b", task="full", tokens=1e9, max_gpus=8, devices=("910c",), offer_kinds=KINDS)
    r = plan(cat, lookup.model(cat, "qwen3-32b"), req)
    assert r.plans and max(p.cards or 0 for p in r.plans) == 8 and max(p.gpus for p in r.plans) == 16


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_plan_cli_gpus_8(lang: str) -> None:
    out = _cli("plan", "--model", "qwen3-32b", "--task", "full", "--tokens", "1e9", "--gpu", "910c", "--gpus", "8",
               "--offer-kinds", "all", lang=lang)
    assert ("8 (16 dies)" if lang == "en" else "8（16 个芯粒）") in out


@pytest.mark.parametrize("task", ["full", "inference"])
def test_compare_910c_row_estimates_16_ranks_and_bills_8_cards(task: str) -> None:
    cat = packaged_catalog()
    rows = compare_devices(cat, lookup.model(cat, "qwen3-32b"), ["910c", "910b"], task, 8, kinds=KINDS,
                           tokens=1e9 if task == "full" else None)
    c, b = rows
    assert c["layout"]["gpus"] == 8 and c["layout"]["ranks"] == 16 and c["layout"]["dies_per_card"] == 2
    assert c["layout"]["tp"] * c["layout"]["pp"] * c["layout"]["dp"] == 16
    assert b["layout"]["gpus"] == 8 and "ranks" not in b["layout"]  # one die a card: as it was
    if task == "full":  # 8 cards billed, as plan bills them (plan --gpu 910c --gpus 8: ¥65,000)
        assert c["cost_cny"] == pytest.approx(65000.0)
        assert c["job_cny_per_card_hour"] == pytest.approx(c["cost_cny"] / (8 * c["hours"]))


def test_migrate_cost_910c_side_runs_16_ranks() -> None:
    cat = packaged_catalog()
    out = migration_cost(cat, lookup.model(cat, "qwen3-32b"), to_gpu="910c", from_gpu="h800", task="full",
                         kinds=KINDS, gpus=8)
    lay = out["derived"]["ascend-910c"]["workload"]
    assert (lay["gpus"], lay["ranks"], lay["dies_per_card"]) == (8, 16, 2)  # 16 ranks on the 8 cards billed
    assert out["derived"]["ascend-910c"]["monthly_rent"]["gpus"] == 8  # billed in cards
    assert out["derived"]["h800"]["workload"]["gpus"] == 8 and "ranks" not in out["derived"]["h800"]["workload"]


def test_compare_cli_json_910c(tmp_path: object) -> None:
    js = json.loads(_cli("compare", "--model", "qwen3-32b", "--gpu", "910c", "--gpu", "910b", "--gpus", "8",
                         "--offer-kinds", "all", "--json"))
    rows = js if isinstance(js, list) else js["rows"]
    assert rows[0]["layout"]["ranks"] == 16 and rows[0]["layout"]["gpus"] == 8
