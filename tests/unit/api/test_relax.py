"""A budget-plus-deadline request that no plan meets, and that neither constraint alone can be relaxed into,
answers 422 with hints for both in the request's language, naming the request's JSON fields (`budget_cny`), and the
page's form fields for the page (`?surface=web`) (issue 13)."""

from __future__ import annotations

from fastapi.testclient import TestClient

BODY = {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8, "budget_cny": 1, "deadline_hours": 0.1}


def test_budget_and_deadline_refusal_carries_relax_hints(client: TestClient) -> None:
    zh = client.post("/api/plan?lang=zh", json=BODY)
    assert zh.status_code == 422
    body = zh.json()
    assert [m["id"] for m in body["relax_i18n"]] == ["relax.budget_alone", "relax.deadline_alone"]
    assert "`budget_cny`" in body["relax"][0] and "`deadline_hours`" in body["relax"][1]
    assert "--budget" not in " ".join(body["relax"]) and "预算" in body["error"]
    en = client.post("/api/plan", json=BODY, headers={"Accept-Language": "en-US"}).json()
    assert "`budget_cny`" in en["relax"][0] and en["relax_i18n"] == body["relax_i18n"]
    page = client.post("/api/plan?lang=zh&surface=web", json=BODY).json()
    assert "“预算（元）”" in page["relax"][0] and "“截止时间（小时）”" in page["relax"][1]
    page_en = client.post("/api/plan?lang=en&surface=web", json=BODY).json()
    assert "“Budget (¥)”" in page_en["relax"][0] and "`" not in " ".join(page_en["relax"])
    need = en["relax_i18n"][0]["params"]["need"]
    # the hint is a real lower bound: with that budget and no deadline, a plan exists at that cost
    ok = client.post("/api/plan", json={**BODY, "budget_cny": need * 1.001, "deadline_hours": None}).json()
    assert ok["plans"] and min(p["total_cost_cny"] for p in ok["plans"]) <= need * 1.001


def test_one_relaxable_constraint_answers_with_plans_empty_and_hints(client: TestClient) -> None:
    r = client.post("/api/plan?lang=zh", json={**BODY, "deadline_hours": 1000})
    assert r.status_code == 200 and r.json()["plans"] == []
    assert "`budget_cny`" in r.json()["relax"][0]
