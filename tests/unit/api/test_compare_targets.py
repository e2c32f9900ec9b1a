"""POST /api/compare takes the CLI's serving targets (requests_per_s, tpot_s, ttft_s) and answers each row's
speed evidence on its stack."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_api_compare_takes_serving_targets(client: TestClient) -> None:
    body = {"model": "qwen2.5-72b", "devices": ["h100", "a100-80g"], "gpus": 8}
    loose = client.post("/api/compare", json=body).json()
    tight = client.post("/api/compare", json={**body, "tpot_s": 0.03}).json()
    assert all(r["tpot_s"] <= 0.03 for r in tight)
    rule = [r[0]["serving_rule_i18n"]["params"]["rule"]["id"] for r in (tight, loose)]  # inside cmp.serving.lengths
    assert rule[0] != rule[1]
    assert all(r["evidence"] for r in loose)
    bad = client.post("/api/compare", json={**body, "tpot_s": -1})
    assert bad.status_code == 422


def test_an_unknown_device_is_named_by_the_request_field(client: TestClient) -> None:
    for url, body in (("/api/compare", {"model": "qwen2.5-7b", "devices": ["h100", "h1000"]}),
                      ("/api/plan", {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8, "devices": ["h1000"]})):
        r = client.post(url, json=body)
        assert r.status_code == 404 and r.json()["field"] == "devices", r.text
        assert r.json()["error"].startswith("devices: ") and "h100" in r.json()["error"]
