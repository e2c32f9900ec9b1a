"""Review 2026-12-01 (API): Allow on every 405, every token route in the guard's write list, bounded compare
names, paged lists, one error shape, no host name in answers."""

from __future__ import annotations

import platform
import re
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from suanli.api.deps import require_token
from suanli.api.errors import route_methods
from suanli.api.guard import WRITE_ROUTES, is_write

from .conftest import auth


def _depends_on_token(route: Any) -> bool:
    dependant = getattr(route, "dependant", None)
    stack = list(getattr(dependant, "dependencies", []) or [])
    while stack:
        d = stack.pop()
        if getattr(d, "call", None) is require_token:
            return True
        stack.extend(getattr(d, "dependencies", []) or [])
    return False


def _token_routes(client: TestClient) -> list[tuple[str, str]]:
    out = []
    for template, methods, route in route_methods(client.app):
        if _depends_on_token(route):
            path = re.sub(r"\{[^}]+\}", "1", template)
            out += [(m, path) for m in sorted(methods)]
    return out


def test_every_token_route_is_in_the_guards_write_list(client: TestClient) -> None:
    """Derived from the routes: a new route that depends on the token cannot be missed by the guard (which
    refuses a token-less write before reading its body)."""
    writes = _token_routes(client)
    assert ("POST", "/api/imports/1/rollback") in writes and len(writes) >= 5
    for method, path in writes:
        assert is_write(method, path), f"{method} {path} depends on the token but is not in guard.WRITE_ROUTES"
    for method, rx in WRITE_ROUTES:  # and nothing in the list that no token route backs
        assert any(m == method and rx.match(p) for m, p in writes), rx.pattern


@pytest.mark.parametrize(("method", "path"), [("POST", "/api/imports/1/rollback"), ("POST", "/api/offers/import"),
                                              ("POST", "/api/plans")])
def test_tokenless_big_write_is_401_not_413(client: TestClient, method: str, path: str) -> None:
    r = client.request(method, path, content=b"x" * 70_000)
    assert r.status_code == 401, r.text
    assert r.json()["errors"] == [{"field": "token", "in": "header", "message": r.json()["error"]}]


@pytest.mark.parametrize(("method", "path", "allow"), [
    ("DELETE", "/api/offers", "GET, HEAD"),  # HEAD wherever GET is (the guard, buyer review H 2026-12-02)
    ("PUT", "/api/plans", "GET, HEAD, POST"),  # two routes on one path: both methods
    ("DELETE", "/api/bench-results", "GET, HEAD, POST"),
    ("GET", "/api/imports/3/rollback", "POST"),
    ("PATCH", "/api/plans/7", "GET, HEAD"),
    ("POST", "/api/models/qwen2.5-7b", "GET, HEAD"),
])
def test_405_names_the_allowed_methods(client: TestClient, method: str, path: str, allow: str) -> None:
    r = client.request(method, path)
    assert r.status_code == 405
    assert r.headers["allow"] == allow
    body = r.json()
    assert body["errors"] and body["errors"][0]["message"] == body["error"] and allow in body["error"]


def test_compare_names_are_bounded(client: TestClient) -> None:
    long = "x" * 60_000
    cases: list[tuple[dict[str, Any], str]] = [({"devices": [long, "h100"]}, "devices.0"), ({"task": long}, "task"),
                                               ({"precision": long}, "precision"), ({"task": "train"}, "task")]
    for body, field in cases:
        r = client.post("/api/compare", json={"model": "qwen2.5-7b", "devices": ["h100", "a800"], **body})
        assert r.status_code == 422, r.text[:300]
        assert r.json()["field"] == field
        assert len(r.content) < 2_000  # the 60 KB name is not echoed back


def test_offers_page_and_filter(client: TestClient) -> None:
    r = client.get("/api/offers")
    total = int(r.headers["x-total-count"])
    assert len(r.json()) == min(50, total)  # the CLI's default page
    assert client.get("/api/offers?limit=-1").status_code == 422
    assert client.get("/api/offers?limit=1001").status_code == 422
    everything = client.get("/api/offers?limit=1000").json()
    assert len(everything) == total
    page = client.get("/api/offers?limit=5&offset=3").json()
    assert [o["id"] for o in page] == [o["id"] for o in everything[3:8]]
    cn = client.get("/api/offers?limit=1000&region=cn&offer_kinds=listing").json()
    assert cn and all(o["kind"] == "listing" for o in cn) and len(cn) < total
    two = client.get("/api/offers?limit=1000&offer_kinds=listing,index").json()
    assert {o["kind"] for o in two} <= {"listing", "index"} and len(two) > len(cn)
    bad = client.get("/api/offers?offer_kinds=rumour")
    assert bad.status_code == 422 and bad.json()["field"] == "offer_kinds"
    assert client.get("/api/offers?region=mars").status_code == 422


@pytest.mark.parametrize("path", ["/api/imports", "/api/plans", "/api/bench-results"])
def test_lists_are_bounded(client: TestClient, path: str) -> None:
    assert client.get(path + "?limit=2&offset=0").status_code == 200
    assert client.get(path + "?limit=0").status_code == 422
    assert client.get(path + "?limit=1001").status_code == 422
    assert client.get(path + "?offset=-1").status_code == 422


def _one_shape(r: Any) -> dict[str, Any]:
    body: dict[str, Any] = r.json()
    assert isinstance(body["error"], str) and body["error"]
    assert body["errors"] and all({"field", "message"} <= set(e) for e in body["errors"]), body
    return body


def test_one_error_shape(make_client: Any) -> None:
    c = make_client()
    no_writes = make_client(token=None)
    answers = [
        c.post("/api/plans", json={}),  # 401
        no_writes.post("/api/plans", json={}),  # 403
        c.delete("/api/offers"),  # 405
        c.post("/api/plan", content=b"x" * 70_000, headers={"content-type": "application/json"}),  # 413
        c.get("/api/offers?offer_kinds=rumour"),  # InputError 422
        c.get("/api/accelerators/no-such-card"),  # 404
        c.post("/api/tco", json={"gpu": "h100", "hours": -1}),  # validation 422
        c.get("/api/no-such-route"),  # 404 route
    ]
    assert [r.status_code for r in answers] == [401, 403, 405, 413, 422, 404, 422, 404]
    for r in answers:
        _one_shape(r)


def test_invalid_json_names_the_body(client: TestClient) -> None:
    r = client.post("/api/compare", content=b'{"model": "x",, }', headers={"content-type": "application/json"})
    assert r.status_code == 400
    body = _one_shape(r)
    assert body["field"] == "body" and all(e["field"] == "body" for e in body["errors"])
    assert "character 14" in body["errors"][0]["message"]


def test_data_file_error_is_500_without_internals(make_client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from suanli.errors import DataFileError

    c = make_client(raise_server_exceptions=False)

    def broken(*_: Any, **__: Any) -> Any:
        raise DataFileError("/srv/secret/path/accelerators.yaml", "h100-sxm", "tflops", "must be a number")

    import suanli.api.routers.prices as prices

    monkeypatch.setattr(prices, "catalog", broken)
    r = c.get("/api/offers")
    assert r.status_code == 500
    _one_shape(r)
    assert "secret" not in r.text and "accelerators.yaml" not in r.text and "tflops" not in r.text


def test_import_of_unknown_file_type_stays_422(client: TestClient) -> None:
    r = client.post("/api/offers/import", files={"file": ("f.txt", b"id\n")}, headers=auth())
    assert r.status_code == 422 and _one_shape(r)["field"] == "format"


def test_price_hints_name_the_api_fields(client: TestClient) -> None:
    """The 422 of tco/migrate without a usable price names what to widen as the API's fields (`offer_kinds`,
    `region`, `saving`: the `.api` wording of each message), not the CLI's flags. (The catalog's own note on a
    device may still quote a CLI example.)"""
    from suanli.i18n import Message, render

    r = client.post("/api/tco", json={"gpu": "h100", "hours": 10})
    assert r.status_code == 422
    body = r.json()
    assert "widen --offer-kinds" not in body["error"]
    said = Message.from_json(body["error_i18n"])
    assert "widen `offer_kinds`/`region`" in render(said, "en", "api")
    assert "可放宽 `offer_kinds`/`region`" in render(said, "zh", "api")
    assert "widen --offer-kinds/--region" in render(said, "en", "cli")  # the CLI keeps its flags
    m = client.post("/api/migrate", json={"model": "qwen2.5-14b", "from_gpu": "h100"})
    assert m.status_code == 422
    api = render(Message.from_json(m.json()["error_i18n"]), "en", "api")
    assert "widen `offer_kinds`/`region`" in api and "or give `saving`" in api and "--saving" not in api


def test_bench_results_hide_the_host_name(client: TestClient,
                                         bench_result_json: Callable[..., dict[str, object]]) -> None:
    saved = client.post("/api/bench-results", json=bench_result_json(host="build-box-7.corp.example"), headers=auth())
    assert saved.status_code == 200, saved.text
    r = client.get("/api/bench-results")
    assert r.status_code == 200 and r.json()
    assert "build-box-7" not in r.text and all("host" not in x["backend"] for x in r.json())
    node = platform.node()
    if node:
        assert f'"{node}"' not in r.text  # nor the server's own name (the model's default)


def test_engineer_weeks_is_marked_deprecated(client: TestClient) -> None:
    props = client.get("/openapi.json").json()["components"]["schemas"]["MigrateAnswer"]["properties"]
    assert props["engineer_weeks"]["deprecated"] is True
    assert "calendar_weeks" in props["engineer_weeks"]["description"]
    assert "person_weeks" in props["engineer_weeks"]["description"]
