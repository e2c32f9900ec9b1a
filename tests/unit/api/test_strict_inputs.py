"""One strictness rule for every input surface (2026-12-01, after 33812af): a JSON boolean field takes only true or
false (`"domestic_only": "true"` was read as true), a refused value is echoed one way everywhere (`errors.echoed`:
never a Python repr, at most 80 characters, nothing for a missing field — the API, the CLI and the offers importer
alike), and a nested benchmark-results error names its dotted path in `field`."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel

from suanli.api.schemas import JsonBody, _accepts

from .conftest import auth
from .test_integrator_polish import _VALID, _body_models


def _bool_fields(model: type[BaseModel]) -> list[str]:
    """Every top-level field that takes a boolean and no text or number."""
    return [name for name, f in model.model_fields.items()
            if bool in (takes := _accepts(f.annotation)) and not takes & {str, int, float}]


def test_bool_fields_are_found() -> None:
    from suanli.api.schemas import EstimateBody, PlanBody

    assert {"domestic_only", "allow_migration", "breakdown"} <= set(_bool_fields(PlanBody))
    assert {"flash_attention", "cfg"} <= set(_bool_fields(EstimateBody))


@pytest.mark.parametrize("path", sorted(_VALID))
def test_booleans_sent_as_strings_or_numbers_are_refused(client: TestClient, path: str) -> None:
    """Every boolean field of every JSON body model: "true", "false", "1", 1 and 0 are refused naming the field and
    "true or false", in English and Chinese; true and false are read."""
    model = _body_models(client)[path]
    assert issubclass(model, JsonBody)
    url = path.replace("{offer_id}", "some-offer")
    for name in _bool_fields(model):
        for value, kind in (("true", "string"), ("false", "string"), ("1", "string"), ("", "string"), (1, "number"),
                            (0, "number"), (0.0, "number")):
            r = client.post(url, json={**_VALID[path], name: value}, headers=auth())
            assert r.status_code == 422, (path, name, value, r.text)
            j = r.json()
            said = f"Input should be true or false, not a {kind}"
            assert j["error"] == f"{name}: {said}", (path, name, value, j)
            assert j["field"] == name and j["errors"][0] == {"field": name, "in": "body", "message": said}
            assert j["error_i18n"]["id"] == "error.v.bool"
        r = client.post(url + "?lang=zh", json={**_VALID[path], name: "true"}, headers=auth())
        assert r.status_code == 422 and r.json()["error"] == f"{name}: 必须是 `true` 或 `false`（实际为 'true'）", r.text
        r = client.post(url + "?lang=zh", json={**_VALID[path], name: 1}, headers=auth())
        assert r.status_code == 422 and r.json()["error"] == f"{name}: 必须是 `true` 或 `false`（实际为 1）", r.text
        for ok in (True, False):  # JSON booleans are read as before
            r = client.post(url, json={**_VALID[path], name: ok}, headers=auth())
            assert r.json().get("field") != name, (path, name, ok, r.text)


def test_every_body_model_with_booleans_is_walked(client: TestClient) -> None:
    """The bodies that have boolean fields (a new one is walked by the test above when it joins `_VALID`)."""
    with_bools = {p for p, m in _body_models(client).items() if p in _VALID and _bool_fields(m)}
    assert {"/api/estimate", "/api/plan", "/api/plans"} <= with_bools
    from suanli.api.routers.cost import RentVsBuyBody

    for model in (*_body_models(client).values(), RentVsBuyBody):  # and no body takes "true" for any boolean field
        for name in _bool_fields(model):
            assert issubclass(model, JsonBody) or model.__name__ == "BenchResultBody", (model, name)


def test_numbers_and_text_unchanged_by_the_boolean_rule(client: TestClient) -> None:
    r = client.post("/api/plan", json={"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8, "domestic_only": True,
                                       "breakdown": False})
    assert r.status_code in (200, 422) and r.json().get("field") not in ("domestic_only", "breakdown"), r.text
    r = client.post("/api/plan", json={"model": "qwen2.5-7b", "task": "lora", "tokens": "1e8"})
    assert r.status_code == 422 and r.json()["error"] == "tokens: Input should be a number, not a string"


# ---- nested benchmark-results errors name their dotted path --------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bench_results_nested_error_names_the_path(client: TestClient, bench_result_json: Any, lang: str) -> None:
    body = bench_result_json()
    r = client.post(f"/api/bench-results?lang={lang}", json={**body, "config": {**body["config"], "batch": "1"}},
                    headers=auth())
    assert r.status_code == 422, r.text
    j = r.json()
    assert j["field"] == "config.batch" and j["errors"][0]["field"] == "config.batch", j
    assert j["errors"][0]["in"] == "body"
    assert j["error_i18n"] == {"id": "error.v.int", "params": {"value": "'1'"}}
    if lang == "en":
        assert j["error"] == "config.batch: Input should be a number, not a string"
        assert j["errors"][0]["message"] == "Input should be a number, not a string"
    else:
        assert j["error"] == "config.batch: 必须是整数（实际为 '1'）"
    r = client.post(f"/api/bench-results?lang={lang}",
                    json={**body, "model": {k: v for k, v in body["model"].items() if k != "params"}},  # type: ignore[attr-defined]
                    headers=auth())
    j = r.json()
    assert r.status_code == 422 and j["field"] == "model.params" and j["errors"][0]["field"] == "model.params", j
    assert j["error_i18n"] == {"id": "error.v.missing", "params": {}}
    assert "{'" not in r.text and "cpu" not in r.text  # the body is not echoed
    r = client.post("/api/bench-results", json={**body, "schema_version": "1"}, headers=auth())  # a top-level one
    assert r.json()["field"] == "schema_version" and r.json()["errors"][0]["field"] == "schema_version"


def test_named_pattern_takes_dotted_paths() -> None:
    from suanli.api.errors import _NAMED

    for line, field in (("concurrent_users: needs tpot_s", "concurrent_users"), ("config.batch: x", "config.batch"),
                        ("results.0.tokens_per_s: x", "results.0.tokens_per_s")):
        m = _NAMED.match(line)
        assert m is not None and m.group(1) == field
    for line in ("Config.batch: x", "a..b: x", "config.: x", "numbers must be finite"):
        assert _NAMED.match(line) is None, line
