"""POST /api/compare takes `tokens_per_s_per_user` with POST /api/plan's meaning (buyer review 2026-12-03: it was
refused as an unknown field): the TPOT target is 1 / it (`plan.request.user_speed_tpot`, the one rule), so the rows
are those of the same `tpot_s`; beside a different `tpot_s`, or on a training compare, one line names the field."""

from __future__ import annotations

from fastapi.testclient import TestClient

BASE = {"model": "qwen3-32b", "devices": ["h20", "h800"], "gpus": 8, "concurrent_users": 100}


def test_compare_takes_the_user_speed_as_plan_does(client: TestClient) -> None:
    by_speed = client.post("/api/compare", json={**BASE, "tokens_per_s_per_user": 20})
    by_tpot = client.post("/api/compare", json={**BASE, "tpot_s": 0.05})
    assert by_speed.status_code == 200, by_speed.text
    assert by_speed.json() == by_tpot.json()
    assert client.post("/api/compare", json={**BASE, "tokens_per_s_per_user": 20, "tpot_s": 0.05}).status_code == 200


def test_compare_refuses_a_second_tpot_or_a_training_compare_naming_the_field(client: TestClient) -> None:
    r = client.post("/api/compare", json={**BASE, "tokens_per_s_per_user": 20, "tpot_s": 0.04})
    assert r.status_code == 422 and r.json()["field"] == "tokens_per_s_per_user"
    assert r.json()["error"] == ("tokens_per_s_per_user: give it or `tpot_s`, not both (TPOT = 1 / tokens per second "
                                 "per user)")
    zh = client.post("/api/compare?lang=zh", json={**BASE, "tokens_per_s_per_user": 20, "tpot_s": 0.04}).json()
    assert "只能给出其一" in zh["error"]
    t = client.post("/api/compare", json={"model": "qwen3-32b", "devices": ["h20", "h800"], "task": "lora",
                                          "tokens": 1e8, "tokens_per_s_per_user": 20})
    assert t.status_code == 422 and t.json()["field"] == "tokens_per_s_per_user"
