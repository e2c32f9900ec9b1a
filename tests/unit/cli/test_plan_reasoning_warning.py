"""`suanli plan` for a reasoning model without --output: the warning is printed under the header (not an
`assumed:` line at the end) and is in the JSON's top-level `warnings`; with --output given, even 256, it is not;
POST /api/plan the same (buyer regression 9, 2026-12-01)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from suanli.cli.main import app

ARGS = ["plan", "--model", "deepseek-r1", "--concurrent-users", "50", "--tpot", "0.0333", "--domestic-only",
        "--precision", "any"]  # int4 only when asked: a replica fits one 8-card 910B node at int4


def _invoke(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, [*ARGS, *args], env={"LANG": "en_US.UTF-8", "LC_ALL": "", "COLUMNS": "200"})
    return r.exit_code, r.output


def test_header_warning_only_without_output() -> None:
    code, out = _invoke()
    assert code == 0, out
    lines = out.splitlines()
    at = next(i for i, ln in enumerate(lines) if "is a reasoning model" in ln)
    assert at <= 3 and lines[at].startswith("! "), lines[:5]
    assert not any(ln.startswith("assumed:") and "reasoning model" in ln for ln in lines)
    code, out = _invoke("--output", "256")
    assert code == 0 and "reasoning model" not in out
    code, out = _invoke("--json")
    d = json.loads(out)
    assert [w["id"] for w in d["warnings_i18n"]] == ["plan.warn.reasoning_output"] and "32,768" in d["warnings"][0]
    assert json.loads(_invoke("--json", "--output", "256")[1])["warnings"] == []


@pytest.fixture
def client() -> Any:
    pytest.importorskip("fastapi", reason="the API is the optional `service` extra; `make test` installs it")
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app

    return TestClient(create_app(Settings(database_url="sqlite:///:memory:", api_token=None)))


def test_api_warning_only_without_output(client: Any) -> None:
    body = {"model": "deepseek-r1", "concurrent_users": 50, "tpot_s": 0.0333, "domestic_only": True, "top": 1}
    out = client.post("/api/plan", json=body).json()
    assert [w["id"] for w in out["warnings_i18n"]] == ["plan.warn.reasoning_output"]
    assert client.post("/api/plan", json={**body, "output": 256}).json()["warnings"] == []
    zh = client.post("/api/plan?lang=zh", json=body).json()
    assert "推理（思考）模型" in zh["warnings"][0]
