"""POST /api/estimate and /api/plan carry the unpublished-checkpoint warning of estimate.precision's one rule (task N:
Qwen3-235B-A22B at int8 on an A100 is a checkpoint nobody uploads), in the asked language."""

from __future__ import annotations

from fastapi.testclient import TestClient

ID = "precision.unpublished_checkpoint"
REQ = {"model": "qwen3-235b-a22b", "task": "inference", "gpu": "a100-80g", "gpus": 8, "tp": 8, "precision": "int8"}


def test_api_estimate_says_it(client: TestClient) -> None:
    r = client.post("/api/estimate", json=REQ)
    assert r.status_code == 200, r.text
    body = r.json()
    assert any(isinstance(n, dict) and n.get("id") == ID for n in body["notes_i18n"])
    assert any("no published int8 checkpoint of Qwen/Qwen3-235B-A22B" in n for n in body["notes"])
    published = client.post("/api/estimate", json={**REQ, "precision": "int4"})
    assert published.status_code == 200
    assert not any(isinstance(n, dict) and n.get("id") == ID for n in published.json()["notes_i18n"])


def test_api_estimate_in_chinese(client: TestClient) -> None:
    r = client.post("/api/estimate?lang=zh", json=REQ)
    assert r.status_code == 200, r.text
    assert any("需先自行量化" in n for n in r.json()["notes"])
