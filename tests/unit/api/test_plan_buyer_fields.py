"""POST /api/plan takes what a buyer asks (review 2026-12-01): TTFT/TPOT targets, the serving period, frameworks,
precision, stacks already run, and concurrent users (the derived rate said in the answer); bounded, and refused
in the one error shape with the field named. GET /api/frameworks lists the framework choices."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

BASE = {"model": "qwen2.5-7b", "task": "inference", "top": 2}


def test_frameworks_endpoint(client: TestClient) -> None:
    rows = {f["id"]: f for f in client.get("/api/frameworks").json()}
    assert rows["vllm"]["engine"] == "vllm" and rows["vllm"]["tasks"] == ["inference"]
    assert rows["llama-factory"]["engine"] is None and "lora" in rows["llama-factory"]["tasks"]
    assert "/api/frameworks" in client.get("/openapi.json").json()["paths"]


def test_concurrent_users_and_the_buyer_fields(client: TestClient) -> None:
    body = {**BASE, "concurrent_users": 50, "tpot_s": 1 / 30, "ttft_s": 0.5, "days": 7, "framework": "vllm",
            "precision": "bf16", "already_on": ["cann"]}
    r = client.post("/api/plan", json=body)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["request"]["concurrent_users"] == 50
    assert out["request"]["requests_per_s"] == pytest.approx(50 / (0.5 + 256 / 30))  # Little's law
    assert out["request"]["days"] == 7 and out["request"]["already_on"] == ["cann"]
    assert "5.535 requests/s" in out["assumptions"][0] and out["assumptions_i18n"][0]["id"] == "plan.assume.users_rate"
    assert out["plans"] and {p["framework"] for p in out["plans"]} == {"vllm"}
    assert {p["precision"] for p in out["plans"]} == {"bf16"}
    zh = client.post("/api/plan?lang=zh", json=body).json()
    assert "利特尔定律" in zh["assumptions"][0]


@pytest.mark.parametrize(("extra", "field"), [
    ({"concurrent_users": 50}, "concurrent_users"),  # no TPOT target
    ({"concurrent_users": 50, "tpot_s": 0.03, "requests_per_s": 2}, "concurrent_users"),
    ({"concurrent_users": 0, "tpot_s": 0.03}, "concurrent_users"),
    ({"concurrent_users": 10**8, "tpot_s": 0.03}, "concurrent_users"),
    ({"requests_per_s": 1, "tpot_s": 1e5}, "tpot_s"),
    ({"requests_per_s": 1, "ttft_s": -1}, "ttft_s"),
    ({"requests_per_s": 1, "days": 1e9}, "days"),
    ({"requests_per_s": 1, "framework": "x" * 300}, "framework"),
    ({"requests_per_s": 1, "framework": "no-such-framework"}, "framework"),
    ({"requests_per_s": 1, "already_on": ["cann"] * 17}, "already_on"),
    ({"requests_per_s": 1, "already_on": ["x" * 300]}, "already_on.0"),
    ({"requests_per_s": 1, "precision": "fp4"}, "precision"),
])
def test_bad_fields_one_error_shape(client: TestClient, extra: dict[str, object], field: str) -> None:
    r = client.post("/api/plan", json={**BASE, **extra})
    assert r.status_code == 422, r.text
    err = r.json()
    assert set(err) >= {"error", "field", "errors"} and err["field"] == field, err
    assert err["error"].startswith(f"{field}: ")
