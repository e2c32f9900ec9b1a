"""POST /api/estimate and POST /api/compare said a refused field (batch 0, gpus 0, one device) before an unknown model
or device name, while `suanli plan`, POST /api/plan (075e00d) and the CLI's estimate say the unknown name first. They
now go through the one look-up (api.routers.compute.names_first, views.bounds.check_device_names): the same 404,
shape and closest names as a body that is otherwise valid."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

MODEL = "qwen3-32b"


@pytest.mark.parametrize(("url", "body", "valid", "field", "said"), [
    ("/api/estimate", {"model": "qwen-32b", "gpu": "h100", "batch": 0}, {"batch": 1}, "model",
     "model: unknown model 'qwen-32b'. Did you mean: Qwen/Qwen3-32B"),
    ("/api/estimate", {"model": MODEL, "gpu": "h1000", "batch": 0}, {"batch": 1}, "gpu",
     "gpu: unknown gpu 'h1000'. Did you mean: h100-sxm"),
    ("/api/estimate", {"model": MODEL, "gpu": "h1000", "precision": "fp9"}, {"precision": "bf16"}, "gpu",
     "gpu: unknown gpu 'h1000'."),
    ("/api/compare", {"model": "qwen-32b", "devices": ["h100", "a100-80g"], "gpus": 0}, {"gpus": 1}, "model",
     "model: unknown model 'qwen-32b'. Did you mean: Qwen/Qwen3-32B"),
    ("/api/compare", {"model": MODEL, "devices": ["h100", "h1000"], "tokens": -1}, {"tokens": 1e6}, "devices",
     "devices: unknown gpu 'h1000'. Did you mean: h100-sxm"),
    # a list refused as a whole (2–4 devices) still has its names looked up, as `suanli compare --gpu h1000` does
    ("/api/compare", {"model": MODEL, "devices": ["h1000"]}, {"devices": ["h1000", "h100"]}, "devices",
     "devices: unknown gpu 'h1000'."),
])
def test_an_unknown_name_is_said_before_the_body_refusal(client: TestClient, url: str, body: dict[str, Any],
                                                         valid: dict[str, Any], field: str, said: str) -> None:
    r = client.post(url, json=body)
    assert r.status_code == 404, r.text
    got = r.json()
    assert got["field"] == field and got["error"].startswith(said), got
    assert got["errors"][0]["suggestions"] and got["error_i18n"]["id"] == "error.unknown_hint"
    same = client.post(url, json={**body, **valid})  # the refused field put right: the one 404 for the name
    assert same.status_code == 404 and same.json() == got


@pytest.mark.parametrize(("url", "body", "field"), [
    ("/api/estimate", {"model": MODEL, "gpu": "h100", "batch": 0}, "batch"),  # known names: the refusal is said
    ("/api/compare", {"model": MODEL, "devices": ["h100", "a100-80g"], "gpus": 0}, "gpus"),
    ("/api/estimate", {"model": "x" * 1000, "gpu": "h100", "batch": 0}, "batch"),  # a name refused as such
    ("/api/compare", {"model": MODEL, "devices": ["h100", ""], "gpus": 0}, "devices.1"),
])
def test_known_or_refused_names_still_reach_the_body_refusal(client: TestClient, body: dict[str, Any], url: str,
                                                             field: str) -> None:
    r = client.post(url, json=body)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field, r.json()


def test_zh_says_it_in_chinese(client: TestClient) -> None:
    r = client.post("/api/compare?lang=zh", json={"model": MODEL, "devices": ["h1000"]})
    assert r.status_code == 404 and r.json()["error"].startswith("devices: 未知的加速卡"), r.text
