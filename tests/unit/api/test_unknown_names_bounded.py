"""Review 2026-12-01 (full-hB): an unknown name in a path came back three times whole (GET /api/accelerators/<60,000
× 'x'> was a 404 of 180 KB: error, errors[].message, error_i18n), and the 404's errors[].in said "query" for a path
parameter. Path parameters are now bounded (200 characters: a 422 in the one error shape), a name is echoed as its
first 80 characters and "…", and a name refused from the path is "in": "path"."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

LONG = "x" * 60_000


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("route", ["/api/accelerators/{}", "/api/models/{}", "/api/models/org/{}",
                                   "/api/offers/{}/history", "/api/scenarios/{}"])
def test_a_long_path_name_is_a_small_422(client: TestClient, route: str, lang: str) -> None:
    r = client.get(route.format(LONG), params={"lang": lang})
    assert r.status_code == 422, r.text[:300]
    assert len(r.content) < 2_000, len(r.content)
    body = r.json()
    assert set(body) >= {"error", "field", "errors", "error_i18n"} and body["errors"][0]["in"] == "path"


@pytest.mark.parametrize("route", ["/api/accelerators/{}", "/api/models/{}", "/api/offers/{}/history"])
def test_a_name_just_under_the_bound_is_echoed_cut(client: TestClient, route: str) -> None:
    r = client.get(route.format("y" * 200))
    assert r.status_code == 404 and len(r.content) < 2_000, len(r.content)
    body = r.json()
    assert "'" + "y" * 80 + "…'" in body["error"] and "y" * 81 not in r.text
    assert body["errors"][0]["suggestions"] == []


@pytest.mark.parametrize(("route", "field"), [("/api/accelerators/h1", "gpu"), ("/api/models/qwen7b", "model"),
                                              ("/api/offers/nope-1/history", "offer")])
def test_a_path_parameter_is_in_path(client: TestClient, route: str, field: str) -> None:
    r = client.get(route)
    assert r.status_code == 404
    item = r.json()["errors"][0]
    assert item["field"] == field and item["in"] == "path", item


def test_a_query_parameter_stays_in_query(client: TestClient) -> None:
    r = client.get("/api/offers", params={"device": "h1"})
    item = r.json()["errors"][0]
    assert r.status_code == 404 and item["field"] == "device" and item["in"] == "query", item


def test_suggestions_are_ids_once(client: TestClient) -> None:
    r = client.get("/api/accelerators/h1")
    s = r.json()["errors"][0]["suggestions"]
    assert s and len(s) == len(set(s)) and "h100" not in s and "h100-80gb" not in s and "h100-sxm" in s, s
