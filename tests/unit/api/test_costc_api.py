"""costc task (2026-12-01): POST /api/compare with concurrent users beyond one device's capacity answers rows
(was 400 "concurrent_users: needs tpot_s")."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_api_compare_users_beyond_one_devices_capacity(client: TestClient) -> None:
    body = {"model": "qwen2.5-72b", "devices": ["h800", "910b"], "gpus": 16, "concurrent_users": 200, "tpot_s": 0.05}
    r = client.post("/api/compare", json=body)
    assert r.status_code == 200, r.text
    rows = r.json()
    rows = rows["rows"] if isinstance(rows, dict) else rows
    # more users than the 910B's cards hold: the slots bind, plan's number (`max_users`, task H 2026-12-01)
    assert any(row["served"] is None and row["layout_note_i18n"]["id"] == "cmp.serving.not_served_users"
               and row["layout_note_i18n"]["params"]["slots"] == row["max_users"] < 200 for row in rows)


def test_api_estimate_one_output_token_has_no_tpot(client: TestClient) -> None:
    body = {"model": "qwen2.5-14b", "gpu": "rtx-5090", "batch": 80, "output": 1, "precision": "int4", "engine": "vllm"}
    r = client.post("/api/estimate", json=body)
    assert r.status_code == 200, r.text
    s = r.json()["speed"]
    assert s["tpot_s"] is None and s["tpot_steady_s"] is None and s["decode_step_s"] > 0
    schema = client.get("/openapi.json").json()["components"]["schemas"]["InferenceSpeedJson"]["properties"]
    assert "decode_step_s" in schema and "one output token" in schema["tpot_s"]["description"]
