"""Buyer review C (2026-12-02) fixes as POST /api/estimate and /api/plan answer them, as the CLI does
(tests/unit/cli/test_cli_defects_l1202.py): a dense model's `ep` is said as such before the layout checks; an
`engine` beside a training task is refused naming it; `tokens` stays a JSON number (the CLI's 50M / 5亿 are the
CLI's and workload files' forms, the API's schema is unchanged)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "expert parallelism (2) needs an MoE model; Qwen/Qwen2.5-32B-Instruct is dense"),
    ("zh", "专家并行（2）需要 MoE 模型；Qwen/Qwen2.5-32B-Instruct 是稠密模型"),
])
def test_estimate_ep_on_a_dense_model(client: TestClient, lang: str, said: str) -> None:
    r = client.post(f"/api/estimate?lang={lang}", json={"model": "qwen2.5-32b", "gpu": "rtx-4090", "task": "lora",
                                                         "ep": 2})
    assert r.status_code == 422, r.text
    assert said in r.text and "data-parallel" not in r.text


@pytest.mark.parametrize(("path", "body"), [
    ("/api/estimate", {"model": "qwen2.5-7b", "gpu": "rtx-4090", "task": "lora", "engine": "vllm"}),
    ("/api/plan", {"model": "qwen2.5-7b", "task": "lora", "tokens": 5e7, "engine": "sglang"}),
])
def test_an_engine_beside_training_is_refused(client: TestClient, path: str, body: dict[str, object]) -> None:
    r = client.post(path + "?lang=en", json=body)
    assert r.status_code == 422, r.text
    assert "can only be used when serving (task inference), and task lora was given" in r.text
    assert r.json()["field"] == "engine"


def test_tokens_stays_a_json_number(client: TestClient) -> None:
    r = client.post("/api/plan?lang=en", json={"model": "qwen2.5-7b", "task": "lora", "tokens": "50M"})
    assert r.status_code == 422 and r.json()["error_i18n"]["id"] == "error.v.number"
