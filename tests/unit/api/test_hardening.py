"""Regression tests of issue 14's findings on the API (the storage ones run on both databases in
tests/unit/store/test_checks.py; the CLI ones in tests/unit/store/test_cli_hardening.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from suanli.api import Settings, create_app
from suanli.api.guard import JSON_BODY_LIMIT, UPLOAD_LIMIT

TOKEN = "test-token-123"  # tests/unit/api/conftest.py

AUTH = {"Authorization": f"Bearer {TOKEN}"}
PLAN = {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8}


def error_shape(r: Any) -> dict[str, Any]:
    body: dict[str, Any] = r.json()
    # error_i18n: the line as a catalog message, where suanli's check gives one (ErrorBody)
    assert {"error", "field", "errors"} <= set(body) <= {"error", "field", "errors", "error_i18n"}, body
    assert isinstance(body["error"], str) and body["error"], body
    return body


# 1. limits before parsing or spooling ----------------------------------------------------------------------
def test_json_body_over_limit_is_413_before_parsing(client: TestClient) -> None:
    big = b'{"model": "' + b"x" * (JSON_BODY_LIMIT + 10) + b'"}'
    r = client.post("/api/plan", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and error_shape(r)["field"] == "body"

    def chunks() -> Any:  # no Content-Length: counted as it arrives
        yield b'{"model": "'
        for _ in range(JSON_BODY_LIMIT // 1000 + 2):
            yield b"x" * 1000
        yield b'"}'

    r = client.post("/api/plan", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_tokenless_upload_refused_before_the_body_is_read(client: TestClient) -> None:
    received = []

    def chunks() -> Any:
        for _ in range(4):
            received.append(1)
            yield b"x" * 2**20

    r = client.post("/api/offers/import", content=chunks(), headers={"Content-Type": "multipart/form-data; boundary=x"})
    assert r.status_code == 401 and error_shape(r)["field"] == "token"
    big = b"x" * (UPLOAD_LIMIT + 1)
    r = client.post("/api/offers/import", content=big, headers={**AUTH, "Content-Type": "multipart/form-data; boundary=x"})
    assert r.status_code == 413


def test_list_lengths_and_numeric_bounds(client: TestClient) -> None:
    t0 = time.perf_counter()
    r = client.post("/api/plan", json={**PLAN, "devices": ["h100-sxm"] * 5000})
    assert r.status_code in (413, 422) and time.perf_counter() - t0 < 2
    r = client.post("/api/plan", json={**PLAN, "devices": ["h100-sxm"] * 65})
    assert r.status_code == 422 and error_shape(r)["field"] == "devices"
    r = client.post("/api/plan", json={"model": "qwen2.5-7b", "task": "inference", "requests_per_s": 1e306})
    assert r.status_code == 422 and r.json()["field"] == "requests_per_s"
    r = client.post("/api/tco", json={"gpu": "rtx-4090", "hours": 10, "utilization": 1e-200, "tokens_per_s": 1e-200})
    assert r.status_code == 422 and r.json()["field"] in ("utilization", "tokens_per_s")


def test_planner_time_budget_gives_503(tmp_path: Any) -> None:
    c = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path}/s.db", compute_budget_s=1e-9)))  # spent before the worker thread can answer
    r = c.post("/api/plan", json={**PLAN, "tokens": 1.234e8})
    assert r.status_code == 503 and "budget" in error_shape(r)["error"]


# 2. auth ------------------------------------------------------------------------------------------------------
def test_token_checked_before_body_validation(client: TestClient) -> None:
    for path, body in [("/api/offers/seed000-rtx4090-hour/prices", {"price_cny": "nan?"}), ("/api/plans", {"x": 1}),
                       ("/api/bench-results", {"id": "\u0000"})]:
        r = client.post(path, json=body)
        assert r.status_code == 401 and error_shape(r)["field"] == "token", path


def test_saving_a_plan_is_a_write(client: TestClient) -> None:
    before = client.get("/api/info").json()["counts"]["saved_plans"]
    r = client.post("/api/plan", json={**PLAN, "save": True})
    assert r.status_code == 422 and "POST the same body to /api/plans" in r.json()["error"]
    assert client.post("/api/plans", json=PLAN).status_code == 401
    r = client.post("/api/plans", json={**PLAN, "name": "ok"}, headers=AUTH)
    assert r.status_code == 200 and r.json()["saved_plan_id"] >= 1
    assert client.get("/api/info").json()["counts"]["saved_plans"] == before + 1


def test_allowed_hosts_and_security_headers(tmp_path: Any) -> None:
    c = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path}/s.db", allowed_hosts=("testserver",))))
    assert c.get("/api/health").status_code == 200
    r = c.get("/api/health", headers={"Host": "evil.example"})
    assert r.status_code == 400 and error_shape(r)["field"] == "host"
    page = c.get("/")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    assert page.headers["x-content-type-options"] == "nosniff" and page.headers["referrer-policy"] == "no-referrer"


# 3. no secrets or host paths ------------------------------------------------------------------------------------
def test_info_shows_no_host_path(client: TestClient) -> None:
    url = client.get("/api/info").json()["url"]
    assert url.startswith("sqlite:///…/") and "/tmp" not in url and "pytest" not in url


@pytest.mark.parametrize("url", ["postgresql+psycopg://suanli:s3cret@db.example/suanli",
                                 "postgresql+psycopg://suanli@db.example/suanli?password=s3cret&sslmode=require",
                                 "postgresql://u@h/db?sslpassword=s3cret&PGPASSWORD=s3cret"])
def test_redaction_parses_the_url(url: str) -> None:
    from suanli.store.settings import redact_url

    out = redact_url(url)
    assert "s3cret" not in out and "***" in out and "db" in out


# 4/7. 500s and future prices ------------------------------------------------------------------------------------
def test_nul_in_saved_plan_name_is_422(client: TestClient) -> None:
    r = client.post("/api/plans", json={**PLAN, "name": "a\u0000b"}, headers=AUTH)
    assert r.status_code == 422 and "NUL" in error_shape(r)["error"]


def test_future_price_date_refused(client: TestClient) -> None:
    r = client.post("/api/offers/seed000-rtx4090-hour/prices", json={"price_cny": 1, "date": "2099-12-31", "source": "x"},
                    headers=AUTH)
    assert r.status_code == 422 and "future" in error_shape(r)["error"]


# 5/10. one error shape, documented --------------------------------------------------------------------------------
def test_every_non_2xx_has_the_error_shape(make_client: Callable[..., TestClient]) -> None:
    c = make_client(raise_server_exceptions=False)
    assert c.get("/api/nope").status_code == 404 and error_shape(c.get("/api/nope"))
    r = c.delete("/api/plans")
    assert r.status_code == 405 and error_shape(r)
    r = c.post("/api/plan", content=b"{", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and error_shape(r)

    def boom() -> None:
        raise RuntimeError("bug")

    c.app.add_api_route("/api/_boom", boom)  # type: ignore[attr-defined]
    r = c.get("/api/_boom")
    assert r.status_code == 500 and "bug in suanli" in error_shape(r)["error"]


def test_openapi_documents_errors(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert spec["openapi"].startswith("3.1")
    assert "ErrorBody" in spec["components"]["schemas"]
    for path, ops in spec["paths"].items():
        for op in ops.values():
            for code in ("401", "403", "404", "413", "422", "500"):
                assert code in op["responses"], (path, code)
    assert spec["paths"]["/api/health"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]


def test_docs_served_offline(client: TestClient) -> None:
    html = client.get("/docs").text
    assert "/docs-static/swagger-ui-bundle.js" in html and "<script>" not in html and "http" not in html
    assert client.get("/docs-static/swagger-ui-bundle.js").status_code == 200
    assert "SwaggerUIBundle" in client.get("/docs-init.js").text
