"""POST /api/estimate takes `engine_version` (the CLI's --engine-version, ff0ff6a): the release a run used, a bounded
release string; transformers before 4.45 keeps the whole prompt's logits, so the memory differs and nothing else
in the answer's shape does. An fp8 KV cache on a 910B is refused there as on the CLI (one FP8 check)."""

from __future__ import annotations

from fastapi.testclient import TestClient

BODY = {"model": "qwen2-7b", "gpu": "a100-80g", "task": "inference", "engine": "hf", "input": 4096}


def test_estimate_takes_engine_version(client: TestClient) -> None:
    now = client.post("/api/estimate", json=BODY)
    old = client.post("/api/estimate", json={**BODY, "engine_version": "4.38.2"})
    assert now.status_code == old.status_code == 200
    a, b = now.json(), old.json()
    assert set(a) == set(b) and b["workload"]["engine_version"] == "4.38.2"
    assert b["memory"]["breakdown_bytes"]["logits"] > a["memory"]["breakdown_bytes"]["logits"]
    for bad in ("x; rm -rf", "4." + "1" * 40):
        r = client.post("/api/estimate", json={**BODY, "engine_version": bad})
        assert r.status_code == 422 and r.json()["field"] == "engine_version"


def test_estimate_refuses_fp8_kv_cache_on_910b(client: TestClient) -> None:
    r = client.post("/api/estimate", json={"model": "qwen2.5-7b", "gpu": "910b", "task": "inference",
                                           "engine": "sglang", "kv_dtype": "fp8"})
    assert r.status_code == 422 and r.json()["error_i18n"]["id"] == "cap.kv.no_fp8"
    assert r.json()["error"].endswith("allowed: bf16, fp16")
