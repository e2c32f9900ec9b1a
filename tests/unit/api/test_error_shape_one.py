"""Review: one error shape in the API. The guard's replies (401/403/413, the host's 400) and 404/405 carried
`error_i18n`, request validation's 422/400 did not and alone had `"in"`; now every error reply has the same keys in
every language: error, field, errors (each {field, in, message}) and error_i18n (null only without a message)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from suanli.api import Settings, create_app


def _replies(tmp_path: Path, lang: str) -> list[tuple[Any, int]]:
    url = f"sqlite:///{tmp_path}/s.db"
    c = TestClient(create_app(Settings(database_url=url, api_token="tok", allowed_hosts=("testserver",))))
    no_token = TestClient(create_app(Settings(database_url=url)))
    q = f"?lang={lang}"
    return [
        (c.post("/api/plans" + q, json={}), 401),
        (no_token.post("/api/plans" + q, json={}), 403),
        (c.get("/api/health" + q, headers={"Host": "evil.example"}), 400),
        (c.post("/api/plan" + q, content=b"x" * 3_000_000, headers={"Content-Type": "application/json"}), 413),
        (c.get("/api/nowhere" + q), 404),
        (c.delete("/api/plans" + q), 405),
        (c.post("/api/estimate" + q, json={"model": "qwen2.5-7b", "gpu": "nonexistent"}), 404),
        (c.post("/api/estimate" + q, json={"model": "qwen2.5-7b", "gpu": "h100", "batch": "x"}), 422),
        (c.post("/api/estimate" + q, json={"model": "qwen2.5-7b", "gpu": "h100", "batch": 0}), 422),
        (c.post("/api/estimate" + q, content=b"{bad", headers={"Content-Type": "application/json"}), 400),
        (c.post("/api/tco" + q, json={"gpu": "l20", "hours": 10, "utilization": 5e-4}), 422),
    ]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_error_reply_has_one_shape(tmp_path: Path, lang: str) -> None:
    for r, status in _replies(tmp_path, lang):
        assert r.status_code == status, r.text
        body = r.json()
        assert set(body) == {"error", "field", "errors", "error_i18n"}, body
        assert body["error_i18n"] is not None and body["error_i18n"]["id"], body
        assert body["errors"] and all({"field", "in", "message"} <= set(x) for x in body["errors"]), body
        assert body["errors"][0]["field"] == body["field"], body


def test_where_the_field_is(tmp_path: Path) -> None:
    got = {status: r.json()["errors"][0]["in"] for r, status in _replies(tmp_path, "en")[:5]}
    assert got == {401: "header", 403: "header", 400: "header", 413: "body", 404: None}
    c = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path}/s.db")))
    body = c.post("/api/tco", json={"gpu": "l20", "hours": 10, "utilization": 5e-4}).json()
    assert body["field"] == "utilization" and body["errors"][0]["in"] == "body", body


def test_the_openapi_error_body_says_so(tmp_path: Path) -> None:
    c = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path}/s.db")))
    spec = c.get("/openapi.json").json()
    props = spec["components"]["schemas"]["ErrorBody"]["properties"]
    assert "always present" in props["error_i18n"]["description"]


@pytest.mark.parametrize("route, body, field", [
    ("/api/rent-vs-buy", {"server_share": False}, "server_share"),
    ("/api/tco", {"gpu": "h100", "hours": 5, "subsidy": False}, "subsidy"),
    ("/api/estimate", {"model": "qwen2.5-7b", "gpu": "h100", "batch": True}, "batch"),
    ("/api/migrate", {"model": "qwen2.5-7b", "saving": False}, "saving"),
])
def test_a_boolean_is_not_a_number(tmp_path: Path, route: str, body: dict, field: str) -> None:  # type: ignore[type-arg]
    """JSON true/false is not a number in the OpenAPI schema; pydantic's lax mode would read it as 1/0 (schemathesis
    found `"server_share": false` accepted by POST /api/rent-vs-buy)."""
    c = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path}/s.db")))
    r = c.post(route, json=body)
    assert r.status_code == 422 and r.json()["field"] == field, r.text
