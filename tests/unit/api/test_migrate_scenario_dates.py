"""The API answers on the CLI's date and evidence: POST /api/migrate judges price freshness on SUANLI_TODAY as
`suanli migrate cost` does (views.dates.as_of), a scenario's plans carry the planner's evidence warnings as
`suanli plan` gives them, and POST /api/plan localizes through `i18n.localize` (one mechanism)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

MIG = {"model": "qwen2.5-7b", "from_gpu": "rtx-4090", "to_gpu": "910b", "task": "lora"}


def test_api_migrate_uses_suanli_today(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUANLI_TODAY", "2026-12-01")
    fresh = client.post("/api/migrate", json=MIG).json()
    assert fresh["derived"]["rtx-4090"]["offer"] == "autodl-rtx4090-hour-2026-08"
    monkeypatch.setenv("SUANLI_TODAY", "2028-01-01")  # every price stale: the cheapest again, and warned (as the CLI)
    later = client.post("/api/migrate", json=MIG).json()
    # the cheapest that can rent 8 cards (xinghai's ¥1.78 1-card VMs never form an 8-card job: offers.can_rent)
    assert later["derived"]["rtx-4090"]["offer"] == "autodl-rtx4090-hour-2026-08"
    assert "months old" in {u["device"]: u for u in later["offers_used"]}["rtx-4090"]["stale"]


def test_scenario_plans_carry_the_planners_evidence_warnings(client: TestClient) -> None:
    from suanli.catalog import lookup
    from suanli.catalog.load import packaged_catalog
    from suanli.catalog.offers import filter_catalog
    from suanli.plan.request import make_request
    from suanli.plan.scenarios import Scenario, run_scenario
    from suanli.plan.search import plan
    from suanli.validate.bands import packaged_error_bands

    cat = packaged_catalog()
    body = client.get("/api/scenarios/high-concurrency-inference").json()
    s = Scenario.model_validate({k: body[k] for k in ("id", "title", "source", "seed_answer", "seed_reason",
                                                       "assumption")} | {"plan": body["plan_input"]})
    bands = packaged_error_bands()
    r = run_scenario(cat, s, error_bands=bands)
    fields = dict(s.plan)
    if fields.pop("no_migration", False):
        fields["allow_migration"] = False
    req = make_request(**fields)
    direct = plan(filter_catalog(cat, "cn", ("listing",)), lookup.model(cat, req.model), req, error_bands=bands)
    assert r.planner is not None and r.planner.warnings_i18n == direct.plans[0].warnings_i18n
    # the bands' warnings, now shown (on the same device: the bands' pooled bias may reorder the plans)
    plain = plan(filter_catalog(cat, "cn", ("listing",)), lookup.model(cat, req.model), req)
    without = {p.device: p for p in plain.plans}
    assert any(len(p.warnings) > len(without[p.device].warnings) for p in direct.plans if p.device in without)
    assert body["planner_plan"]["warnings_i18n"] == r.planner.warnings_i18n


def test_plan_answer_is_localized_by_i18n_localize(client: TestClient) -> None:
    import suanli.views.plans as views_plans

    assert not hasattr(views_plans, "localized")  # one mechanism: i18n.localize
    zh = client.post("/api/plan?lang=zh", json={"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8}).json()
    p = zh["plans"][0]
    from suanli.i18n import Message, render

    # on the API's own surface (no ?surface=web): the export warning names GET /api/accelerators/{id} there, the
    # Catalog tab on the page (buyer review H, 2026-12-02)
    assert p["reason"] == render(Message.from_json(p["reason_i18n"]), "zh", "api")
    assert p["warnings"] == [render(Message.from_json(m), "zh", "api") for m in p["warnings_i18n"]]
