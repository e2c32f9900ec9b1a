"""POST /api/compare takes the CLI's serving targets (requests_per_s, tpot_s, ttft_s) and answers each row's
speed evidence on its stack."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_api_compare_takes_serving_targets(client: TestClient) -> None:
    body = {"model": "qwen2.5-72b", "devices": ["h100", "a100-80g"], "gpus": 8}
    loose = client.post("/api/compare", json=body).json()
    tight = client.post("/api/compare", json={**body, "tpot_s": 0.03}).json()
    assert all(r["tpot_s"] <= 0.03 for r in tight)
    assert tight[0]["serving_rule_i18n"]["id"] != loose[0]["serving_rule_i18n"]["id"]
    assert all(r["evidence"] for r in loose)
    bad = client.post("/api/compare", json={**body, "tpot_s": -1})
    assert bad.status_code == 422
