"""POST /api/migrate `max_gpus` (buyer review 2026-12-02, task G): plan's card limit for the sides a rate sizes,
in the request model and OpenAPI, and named as the field where it stops a side."""

from __future__ import annotations

from fastapi.testclient import TestClient

BODY = {"model": "qwen3-235b-a22b", "task": "inference", "from_gpu": "h20-141g", "to_gpu": "910b",
        "concurrent_users": 2000, "tpot_s": 0.05, "ttft_s": 2, "input": 1024, "output": 1024, "precision": "int8",
        "offer_kinds": ["listing", "index", "reference", "contract"]}


def test_max_gpus_is_a_documented_field(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    props = spec["components"]["schemas"]["MigrateBody"]["properties"]
    assert "max_gpus" in props and "max_gpus" in props["max_gpus"]["description"]


def test_the_limit_names_the_field_and_the_field_raises_it(client: TestClient) -> None:
    r = client.post("/api/migrate", json=BODY)
    assert r.status_code == 200, r.text
    bill = r.json()["derived"]["ascend-910b"]["rate_bill"]
    # 320 cards (160 until vLLM-Ascend's per-step overhead was fitted, 2026-12-02)
    assert not bill["carried"] and "raise `max_gpus` to 320" in bill["note"]
    r = client.post("/api/migrate", json={**BODY, "max_gpus": 320})
    assert r.status_code == 200, r.text
    bill = r.json()["derived"]["ascend-910b"]["rate_bill"]
    assert bill["carried"] and bill["gpus"] == 320


def test_max_gpus_without_a_rate_names_the_field(client: TestClient) -> None:
    r = client.post("/api/migrate", json={"model": "qwen2.5-7b", "task": "inference", "tpot_s": 0.05,
                                          "max_gpus": 16})
    assert r.status_code == 422 and r.json()["field"] == "max_gpus"
