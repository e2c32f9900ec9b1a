"""Buyer review 2026-12-03 (task P.1): POST /api/plan with {"model": "qwen-32b", "task": "inference",
"concurrent_users": 100} answered the missing `tpot_s` first (the body is validated before any handler code), while
`suanli plan` says the unknown model first (f84a55b). An unknown model or device name is now the first thing the API
says too: the same 404, shape and closest names as a body that is otherwise valid."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from .conftest import auth

USERS = {"task": "inference", "concurrent_users": 100}  # no tpot_s: pydantic's refusal


@pytest.mark.parametrize(("body", "field", "said"), [
    ({"model": "qwen-32b", **USERS}, "model", "model: unknown model 'qwen-32b'. Did you mean: Qwen/Qwen3-32B"),
    ({"model": "qwen3-32b", "devices": ["h100", "h1000"], **USERS}, "devices", "devices: unknown gpu 'h1000'."),
    ({"model": "qwen-32b", "devices": ["h1000"], "task": "lora", "tpot_s": -1}, "model", "model: unknown model"),
])
def test_an_unknown_name_is_said_before_the_body_refusal(client: TestClient, body: dict[str, Any], field: str,
                                                         said: str) -> None:
    r = client.post("/api/plan", json=body)
    assert r.status_code == 404, r.text
    got = r.json()
    assert got["field"] == field and got["error"].startswith(said), got
    assert got["errors"][0]["suggestions"] and got["error_i18n"]["id"] == "error.unknown_hint"
    # the same answer as the body with the missing target given: the one 404 for an unknown name
    same = client.post("/api/plan", json={**body, "tpot_s": 0.05})
    assert same.status_code == 404 and same.json() == got


def test_saving_a_plan_says_the_unknown_model_first(client: TestClient) -> None:
    r = client.post("/api/plans", json={"model": "qwen-32b", **USERS}, headers=auth())
    assert r.status_code == 404 and r.json()["field"] == "model", r.text


def test_zh_says_it_in_chinese(client: TestClient) -> None:
    r = client.post("/api/plan?lang=zh", json={"model": "qwen-32b", **USERS})
    assert r.status_code == 404 and r.json()["error"].startswith("model: 未知的模型"), r.text


@pytest.mark.parametrize("body", [
    {"model": "qwen3-32b", "devices": ["h100"], **USERS},  # known names: the missing target is what is said
    {"model": "x" * 10_000, **USERS},  # a model pydantic refuses as such is not looked up
    {"model": "qwen3-32b", "devices": [""], **USERS},
])
def test_known_or_refused_names_still_reach_the_body_refusal(client: TestClient, body: dict[str, Any]) -> None:
    r = client.post("/api/plan", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["field"] in ("concurrent_users", "model", "devices.0"), r.json()
