"""Buyer review 2026-12-01: `suanli scenarios` said what migration the seeds' total includes but not the planner's
(research-xinchuang: ¥5,000 of the planner's ¥5,037 is migration, its rent ¥37). The explanation now says both
sides in one clause (`scn.migration`), and the planner's alone where the seeds have no plan; CLI, API, en and zh."""

from __future__ import annotations

from pathlib import Path

from cli_run import run_cli
from one_card_h20 import one_card_h20  # tests/one_card_h20.py: the catalog before the H20 listing

from suanli.api.routers.catalog import _scenarios
from suanli.i18n import Message, render
from suanli.plan.scenarios import run_scenario


def _run(cat, sid: str):  # type: ignore[no-untyped-def]
    s = next(x for x in _scenarios() if x.id == sid)
    return run_scenario(cat, s)


def _yuan(text: str) -> float:
    return float(text.lstrip("¥").replace(",", ""))


def test_research_xinchuang_says_the_planners_migration_too(cat) -> None:  # type: ignore[no-untyped-def]
    r = _run(cat, "research-xinchuang")
    assert r.planner is not None and r.seed_best is not None and r.planner.migration_cost_cny > 0
    m = r.explanation_i18n["params"]["migration"]
    assert m["id"] == "scn.migration"
    assert _yuan(m["params"]["cny"]) == round(r.planner.migration_cost_cny)
    assert _yuan(m["params"]["seed_cny"]) == round(r.seed_best.migration_cost_cny)
    # most of the planner's total is migration: the sentence says so beside its total
    assert r.planner.migration_cost_cny > r.planner.cost_cny
    en = r.explanation
    assert f"{m['params']['cny']} of the planner's" in en and f"{m['params']['seed_cny']} of the seeds'" in en
    zh = render(Message.from_json(r.explanation_i18n), "zh")
    assert f"规划器 {m['params']['cny']}" in zh and f"参考文章推荐 {m['params']['seed_cny']}" in zh


def test_a_side_without_migration_says_none(cat) -> None:  # type: ignore[no-untyped-def]
    r = _run(cat, "full-7-13b")
    assert r.planner is not None and r.seed_best is not None
    assert r.planner.migration_cost_cny == 0 < r.seed_best.migration_cost_cny
    assert "¥0 of the planner's" in r.explanation


def test_no_migration_on_either_side_adds_nothing(cat) -> None:  # type: ignore[no-untyped-def]
    r = _run(cat, "lora-7-13b")
    assert r.planner is not None and r.seed_best is not None
    assert r.planner.migration_cost_cny == 0 == r.seed_best.migration_cost_cny
    assert r.explanation_i18n["params"]["migration"] == "" and "migration" not in r.explanation


def test_the_seeds_without_a_plan_still_get_the_planners_migration(cat) -> None:  # type: ignore[no-untyped-def]
    # the seeds' H20 had no plan until AutoDL's H20 listing (offers-7.yaml): run on the catalog before it
    r = _run(one_card_h20(cat), "high-concurrency-inference")
    assert r.planner is not None and r.seed_best is None
    assert r.explanation_i18n["id"] == "scn.seeds_no_plan"
    if r.planner.migration_cost_cny > 0:
        m = r.explanation_i18n["params"]["migration"]
        assert m["id"] == "scn.migration_planner" and _yuan(m["params"]["cny"]) == round(r.planner.migration_cost_cny)
        assert f"with {m['params']['cny']} of migration" in r.explanation
    else:
        assert r.explanation_i18n["params"]["migration"] == ""


def test_cli_and_api_print_both_sides(monkeypatch, capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from suanli.api.app import create_app

    code, out, _ = run_cli(["scenarios", "--id", "research-xinchuang"], monkeypatch, capsys, tmp_path)
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("research-xinchuang:"))
    assert "of the planner's" in line and "of the seeds'" in line
    r = TestClient(create_app()).get("/api/scenarios/research-xinchuang?lang=zh")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["explanation_i18n"]["params"]["migration"]["id"] == "scn.migration"
    assert "总价中的迁移费用：规划器 ¥" in body["explanation"] and "参考文章推荐 ¥" in body["explanation"]
