"""POST /api/estimate carries `tpot_steady_s` (the serving TPOT plans quote: `speed.steady_tpot_s`), as `suanli
estimate --json` does, described in the OpenAPI schema (buyer regression 2026-12-01)."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from suanli.cli.main import app


def _json(*args: str) -> dict:  # type: ignore[type-arg]
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def test_api_estimate_has_the_field(client: TestClient) -> None:
    body = {"model": "qwen2.5-7b", "gpu": "rtx-4090", "batch": 50, "input": 1000, "output": 300, "precision": "fp8"}
    api = client.post("/api/estimate", json=body).json()
    cli = _json("estimate", "--model", "qwen2.5-7b", "--gpu", "rtx-4090", "--batch", "50", "--input", "1000",
                "--output", "300", "--precision", "fp8", "--json")
    assert api["speed"]["tpot_steady_s"] == pytest.approx(cli["speed"]["tpot_steady_s"], rel=1e-12)
    schema = client.get("/openapi.json").json()["components"]["schemas"]["InferenceSpeedJson"]["properties"]
    assert "Sarathi-Serve" in schema["tpot_steady_s"]["description"]
