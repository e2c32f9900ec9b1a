"""POST /api/plan's precision: one, a list (bounded) or the CLI's comma text, as `suanli plan --precision`; a bad
value is refused in the one error shape naming the field (the default search leaves int4 out:
tests/unit/plan/test_precision_default_no_int4.py)."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_the_api_takes_a_list_or_text_and_refuses_a_bad_value(client: TestClient) -> None:
    base = {"model": "qwen2.5-7b", "task": "inference", "requests_per_s": 1, "top": 3}
    for given in (["bf16", "int8"], "bf16,int8"):
        r = client.post("/api/plan", json={**base, "precision": given})
        assert r.status_code == 200, r.text
        out = r.json()
        assert out["request"]["precision"] == ["bf16", "int8"]
        assert {p["precision"] for p in out["plans"]} <= {"bf16", "int8"}
    for bad in (["bf16", "in4"], ["bf16"] * 9, "fp4"):
        r = client.post("/api/plan", json={**base, "precision": bad})
        assert r.status_code == 422, r.text
        assert r.json()["field"] == "precision" and r.json()["error"].startswith("precision: "), r.text
