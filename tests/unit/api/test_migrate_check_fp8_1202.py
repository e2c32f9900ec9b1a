"""Buyer review 2026-12-02 over HTTP: POST /api/migrate/check {"model": "deepseek-r1", "task": "inference"} calls the
FP8 release a conversion step (msModelSlim W8A8/W4A8, or bf16 for a bf16 plan), not a port: npu-native on the adapted
lists, 1–8 weeks as plan and POST /api/migrate charge, in English and Chinese."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

pytest.importorskip("torch", reason="migrate check traces with the torch extra")
pytest.importorskip("transformers", reason="migrate check traces with the torch extra")

BODY = {"model": "deepseek-r1", "task": "inference"}


@pytest.fixture(scope="module")
def no_token(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client(token=None)


def _post(c: TestClient, path: str, body: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    r = c.post(path, json=body, params={"lang": lang})
    assert r.status_code == 200, r.text[:500]
    return r.json()  # type: ignore[no-any-return]


def test_english(no_token: TestClient) -> None:
    got = _post(no_token, "/api/migrate/check", BODY)
    assert got["verdict"] == "npu-native" and got["migration_weeks"] == [1.0, 8.0]
    assert got["verdict_text_i18n"]["id"] == "mig.vt.converts" and "not a port" in got["verdict_text"]
    (fp8,) = got["libraries"]
    assert fp8["status"] == "convert" and "msModelSlim" in fp8["message"] and "W4A8" in fp8["message"]
    assert all(a["listed"] for a in got["adapted_lists"] if a["use"] == "inference")
    warning = next(w for w in got["warnings"] if w.startswith("fp8 (checkpoint: FP8"))
    assert "no NPU kernel; converted once before use, not a port" in warning
    assert "load the weights dequantized" not in warning
    # the weeks POST /api/migrate charges for the same move (plan's rule) are these
    cost = _post(no_token, "/api/migrate", {"model": "deepseek-r1", "to_gpu": "910b", "from_gpu": "h200",
                                            "task": "inference", "saving": 10000})
    assert cost["calendar_weeks"] == got["migration_weeks"]


def test_chinese(no_token: TestClient) -> None:
    got = _post(no_token, "/api/migrate/check", BODY, "zh")
    assert got["verdict"] == "npu-native" and got["migration_weeks"] == [1.0, 8.0]
    assert "使用前转换一次" in got["verdict_text"] and "不是移植" in got["verdict_text"]
    assert "需要移植" not in got["verdict_text"] and "需要移植" not in got["migration_basis"]
    warning = next(w for w in got["warnings"] if w.startswith("fp8（权重：FP8"))
    assert "用 msModelSlim 转换（W8A8/W4A8）或转为 bf16" in warning and "没有 NPU 内核；使用前转换一次，不是移植" in warning
