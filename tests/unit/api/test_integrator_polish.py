"""Review 2026-12-01 (integrator): OpenAPI declares the token (`securitySchemes`, `security` on exactly the token
routes, the description's list of writes from the same routes), numbers are JSON numbers on every body model, and a
missing field's error echoes nothing of the body."""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

import pytest
from fastapi.params import Form
from fastapi.testclient import TestClient
from pydantic import BaseModel

from suanli.api.deps import token_routes
from suanli.api.errors import route_methods
from suanli.api.guard import is_write
from suanli.api.schemas import JsonBody, _accepts

from .conftest import auth

README = Path(__file__).resolve().parents[3] / "README.md"


@pytest.fixture(scope="module")
def openapi(client: TestClient) -> dict[str, Any]:
    return client.get("/openapi.json").json()  # type: ignore[no-any-return]


def _secured(openapi: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted(((m.upper(), p) for p, ops in openapi["paths"].items() for m, op in ops.items() if op.get("security")),
                  key=lambda mp: mp[1])


def test_openapi_declares_the_token_schemes(openapi: dict[str, Any]) -> None:
    schemes = openapi["components"]["securitySchemes"]
    assert schemes["bearerToken"] == {"type": "http", "scheme": "bearer", "description": schemes["bearerToken"]["description"]}
    assert schemes["apiTokenHeader"]["type"] == "apiKey" and schemes["apiTokenHeader"]["in"] == "header"
    assert schemes["apiTokenHeader"]["name"] == "X-API-Token"
    assert "security" not in openapi  # no global requirement: reads are open


def test_security_on_exactly_the_token_routes(client: TestClient, openapi: dict[str, Any]) -> None:
    """The operations with `security` are the routes that depend on the token, which are the guard's writes."""
    secured = _secured(openapi)
    assert secured == token_routes(client.app)
    assert ("POST", "/api/imports/{import_id}/rollback") in secured and len(secured) == 5
    for method, path in secured:
        op = openapi["paths"][path][method.lower()]
        assert op["security"] == [{"bearerToken": []}, {"apiTokenHeader": []}]  # either header (OR)
        assert not any(p["in"] == "header" for p in op.get("parameters", []))  # the schemes, not header parameters
        assert is_write(method, re.sub(r"\{[^}]+\}", "1", path))
    for template, methods, _ in route_methods(client.app):  # and every other route is not a write
        for m in methods:
            if (m, template) not in secured:
                assert not is_write(m, re.sub(r"\{[^}]+\}", "1", template)), (m, template)


def test_the_prose_lists_the_same_writes(client: TestClient, openapi: dict[str, Any]) -> None:
    """The OpenAPI description's list of writes and the README's are the routes that carry `security`."""
    secured = _secured(openapi)
    desc = openapi["info"]["description"]
    assert sorted(re.findall(r"`(POST|PUT|PATCH|DELETE) (/api/[^`]+)`", desc), key=lambda mp: mp[1]) == secured
    readme = README.read_text(encoding="utf-8")
    listed = re.search(r"writes \(token\): (.*?) \(the list", readme, re.S)
    assert listed is not None
    paths = {re.sub(r"\{[^}]+\}", "{}", p) for p in re.findall(r"`(?:POST )?(/api/[^`]+)`", listed.group(1))}
    assert paths == {re.sub(r"\{[^}]+\}", "{}", p) for _, p in secured}


def test_token_refusals_unchanged(client: TestClient, make_client: Any) -> None:
    """Who may call what is as before: 401 without or with a wrong token (either header), 403 with none configured,
    in the one error shape, before the body is read."""
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"X-API-Token": "wrong"}, {"Authorization": "Basic x"}):
        r = client.post("/api/imports/1/rollback", headers=headers)
        assert r.status_code == 401, r.text
        assert r.json()["errors"] == [{"field": "token", "in": "header", "message": r.json()["error"]}]
    assert client.post("/api/imports/999999/rollback", headers=auth()).status_code == 404
    assert client.post("/api/imports/999999/rollback", headers={"X-API-Token": auth()["Authorization"][7:]}).status_code == 404
    r = make_client(token=None).post("/api/plans", content=b"not json")
    assert r.status_code == 403 and r.json()["field"] == "token"


def _body_models(client: TestClient) -> dict[str, type[BaseModel]]:
    out = {}
    for path, methods, route in route_methods(client.app):
        field = getattr(route, "body_field", None)
        if isinstance(getattr(field, "field_info", None), Form):
            continue  # a multipart upload (POST /api/offers/import: a file and no numbers), not a JSON body
        model = getattr(getattr(field, "field_info", None), "annotation", None)
        if "POST" in methods and isinstance(model, type) and issubclass(model, BaseModel):
            out[path] = model
    return out


_VALID: dict[str, dict[str, Any]] = {
    "/api/estimate": {"model": "qwen2.5-7b", "gpu": "h100", "task": "lora"},
    "/api/plan": {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8},
    "/api/plans": {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8},
    "/api/compare": {"model": "qwen2.5-7b", "devices": ["h100", "a100-80g"]},
    "/api/tco": {"gpu": "h100", "hours": 10},
    "/api/migrate": {"model": "qwen2.5-7b"},
    "/api/rent-vs-buy": {"gpu": "rtx-4090"},
    "/api/offers/{offer_id}/prices": {"price_cny": 10, "date": "2026-01", "source": "x"},
}


def _number_fields(model: type[BaseModel]) -> list[tuple[str, bool]]:
    """(field, integer?) of every top-level field that takes a number and no text."""
    out = []
    for name, f in model.model_fields.items():
        takes = _accepts(f.annotation)
        if takes & {int, float} and str not in takes:
            out.append((name, float not in takes))
    return out


def test_every_body_model_is_walked(client: TestClient) -> None:
    models = _body_models(client)
    # a new body model is added to this test (POST /api/migrate/check's has no number field: text, a task, a list)
    assert set(models) == {*_VALID, "/api/bench-results", "/api/migrate/check"}
    for path, model in models.items():
        if path != "/api/bench-results":
            assert issubclass(model, JsonBody), path  # one rule: JsonBody's


_SERVING = {"model": "qwen2.5-7b", "task": "inference", "requests_per_s": 1}


@pytest.mark.parametrize("path", sorted(_VALID))
def test_numbers_sent_as_strings_are_refused(client: TestClient, path: str) -> None:
    """Every number field of every JSON body model: "50" is refused naming the field, "a number"; a body whose
    other fields a whole-body check refuses first (serving fields on a training task) is tried on the other task."""
    model = _body_models(client)[path]
    fields = _number_fields(model)
    assert fields, path
    url = path.replace("{offer_id}", "some-offer")
    bases = [_VALID[path], _SERVING] if path in ("/api/plan", "/api/plans") else [_VALID[path]]
    for name, _integer in fields:
        refused = []
        for base in bases:
            for value in ("50", "1", "1e3", ""):
                r = client.post(url, json={**base, name: value}, headers=auth())
                assert r.status_code == 422, (path, name, value, r.text)
                j = r.json()
                if j["error"] != f"{name}: Input should be a number, not a string":  # refused for another reason:
                    same = client.post(url, json={**base, name: 1}, headers=auth())  # as a JSON number too
                    assert same.status_code == 422 and same.json()["error"] == j["error"], (path, name, j)
                    continue
                assert j["field"] == name and j["errors"][0] == {"field": name, "in": "body",
                                                                 "message": "Input should be a number, not a string"}
                assert j["error_i18n"]["id"] in ("error.v.number", "error.v.int")
                refused.append(value)
            r = client.post(url + "?lang=zh", json={**base, name: "50"}, headers=auth())
            assert r.status_code == 422
            if refused:
                assert r.json()["error"] in (f"{name}: 必须是数字（实际为 '50'）", f"{name}: 必须是整数（实际为 '50'）")
                r = client.post(url, json={**base, name: True}, headers=auth())  # and a boolean, as before
                assert r.status_code == 422 and r.json()["error"] == f"{name}: Input should be a number, not a boolean"
        assert len(refused) >= 4, (path, name)  # refused as a string on at least one body


def test_json_numbers_still_accepted(client: TestClient) -> None:
    r = client.post("/api/plan", json={"model": "qwen3-30b-a3b", "task": "inference", "requests_per_s": 50, "gpus": 8.0})
    assert r.status_code in (200, 422), r.text
    assert r.json().get("field") not in ("requests_per_s", "gpus"), r.text
    assert client.post("/api/tco", json={"gpu": "rtx-4090", "hours": 10, "gpus": 2, "region": "any"}).status_code == 200


def test_bench_results_refuse_string_numbers_in_the_same_words(
        client: TestClient, bench_result_json: Any) -> None:
    body = bench_result_json()
    r = client.post("/api/bench-results", json={**body, "schema_version": "1"}, headers=auth())
    assert r.status_code == 422 and r.json()["error"] == "schema_version: Input should be a number, not a string", r.text
    r = client.post("/api/bench-results", json={**body, "config": {**body["config"], "batch": "1"}}, headers=auth())  # type: ignore[dict-item]
    assert r.status_code == 422 and "config.batch: Input should be a number, not a string" in r.json()["error"], r.text


def test_accepts_walks_annotations() -> None:
    assert _accepts(int | None) == {int, type(None)}
    assert _accepts(typing.Annotated[float, "x"]) == {float}
    assert _accepts(typing.Literal["a", "b"] | None) == {str, type(None)}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_missing_field_echoes_nothing_of_the_body(client: TestClient, lang: str) -> None:
    body = {"model": "qwen3-30b-a3b", "gpus": 8}
    r = client.post(f"/api/estimate?lang={lang}", json=body)
    assert r.status_code == 422
    j = r.json()
    assert j["field"] == "gpu" and j["error_i18n"] == {"id": "error.v.missing", "params": {}}
    assert "qwen3" not in r.text and "{'" not in r.text
    r = client.post(f"/api/plan?lang={lang}", json={"gpus": 8, "note": "x" * 500})
    assert r.status_code == 422 and "x" * 20 not in r.text and "{'" not in r.text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_wrong_type_echo_is_json_and_bounded(client: TestClient, lang: str) -> None:
    """Elsewhere the refused value is echoed, at most 80 characters, and a list or object as JSON, never a repr."""
    r = client.post(f"/api/plan?lang={lang}", json={"model": {"a": [1] * 100}, "task": "lora", "tokens": 1e8})
    assert r.status_code == 422
    j = r.json()
    value = j["error_i18n"]["params"]["value"]
    assert value.startswith('{"a": [1, 1') and len(value) <= 81 and value.endswith("…")
    assert "{'" not in r.text and len(j["error"]) < 200
    r = client.post(f"/api/plan?lang={lang}", json={"model": "qwen2.5-7b", "task": ["lora"] * 100, "tokens": 1e8})
    assert r.status_code == 422 and "['" not in r.text and len(r.json()["error_i18n"]["params"]["value"]) <= 81
