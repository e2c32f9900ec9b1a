"""REST API on SQLite: read and compute endpoints, JSON errors naming the field, token-protected writes."""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import resources
from typing import Any

import pytest
from fastapi.testclient import TestClient

from suanli.catalog.load import packaged_catalog

TOKEN = "test-token-123"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def test_docs_list_every_endpoint(client: TestClient) -> None:
    docs = client.get("/docs")
    assert docs.status_code == 200
    assert "http://" not in docs.text and "https://" not in docs.text  # offline: no CDN
    assert client.get("/docs-static/swagger-ui-bundle.js").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    for p in ("/api/accelerators", "/api/accelerators/{name}", "/api/models", "/api/models/{name}", "/api/offers",
              "/api/offers/{offer_id}/history", "/api/prices", "/api/scenarios", "/api/scenarios/{scenario_id}",
              "/api/estimate", "/api/plan", "/api/compare", "/api/tco", "/api/migrate", "/api/offers/import",
              "/api/imports/{import_id}/rollback", "/api/offers/{offer_id}/prices", "/api/plans", "/api/bench-results", "/api/value", "/api/sources"):
        assert p in paths, p


def test_read_endpoints(client: TestClient) -> None:
    cat = packaged_catalog()
    accs = client.get("/api/accelerators").json()
    assert {a["id"] for a in accs} == {a.id for a in cat.accelerators}
    assert any(a["conflicts"] for a in accs)
    d = client.get("/api/accelerators/910b").json()
    assert d["specs"]["memory_bandwidth_gb_per_s"]["conflict"] is True
    assert client.get("/api/accelerators", params={"market": "domestic"}).json()
    assert client.get("/api/models/Qwen/Qwen2.5-7B-Instruct").json()["id"] == "Qwen/Qwen2.5-7B-Instruct"
    assert len(client.get("/api/models").json()) == len(cat.models)
    offers = client.get("/api/offers", params={"device": "rtx-4090"}).json()
    assert offers and all(o["device"] == "rtx-4090" and isinstance(o["price_cny"], float) for o in offers)
    hist = client.get(f"/api/offers/{offers[0]['id']}/history").json()
    assert hist[0]["origin"] == "packaged" and hist[0]["source"]
    assert client.get("/api/scenarios").json()
    assert client.get("/api/value").json()[0]["effective_tflops_per_cny_hour"] > 0
    assert "writes_enabled" in client.get("/api/info").json()


def test_errors_are_json_naming_the_field(client: TestClient) -> None:
    r = client.get("/api/accelerators/h10")
    assert r.status_code == 404 and r.json()["field"] == "gpu" and "h100" in r.json()["error"]
    r = client.post("/api/plan", json={"model": "qwen2.5-7b", "task": "lorax", "tokens": 1e8})
    assert r.status_code == 422 and r.json()["field"] == "task"
    r = client.post("/api/plan", json={"model": "no-such-model", "task": "lora", "tokens": 1e8})
    assert r.status_code == 404 and r.json()["field"] == "model"
    r = client.post("/api/estimate", json={"model": "qwen2.5-7b", "gpu": "rtx-4090", "tokens": "NaN"})
    assert r.status_code == 422 and r.json()["field"] == "tokens"
    r = client.post("/api/tco", json={"gpu": "h100", "hours": -1})
    assert r.status_code == 422 and r.json()["field"] == "hours"
    r = client.post("/api/compare", json={"model": "qwen2.5-7b", "devices": ["rtx-4090"]})
    assert r.status_code == 422 and r.json()["field"] == "devices"
    r = client.post("/api/plan", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"].startswith("body: not valid JSON")
    assert client.get("/api/plans/999999").status_code == 404
    assert client.get("/api/scenarios/nope").json()["field"] == "scenario"


def test_estimate_compare_tco_migrate(client: TestClient) -> None:
    e = client.post("/api/estimate", json={"model": "llama-2-7b", "gpu": "rtx-4090", "method": "seed"}).json()
    assert 16e9 < e["memory"]["per_gpu_bytes"] < 17.5e9  # the seeds' 7 B × 2 × 1.2 ≈ 16.8 GB
    rows = client.post("/api/compare", json={"model": "qwen2.5-14b", "devices": ["rtx-4090", "a100-80g", "910b"],
                                             "task": "lora", "gpus": 8, "tokens": 1e8}).json()
    assert [r["device"] for r in rows] == ["rtx-4090", "a100-80g", "ascend-910b"]
    tco = client.post("/api/tco", json={"gpu": "rtx-4090", "hours": 40, "gpus": 8}).json()  # cn listings by default
    # offers that hold the 8 cards as one job (plan's rule, offers.can_rent) first, then fresh prices first, then the
    # cheapest (the planner's rule, plan.compare.fresh_first)
    key = [(not r["one_job"], r["stale"] is not None, r["cost_cny"]) for r in tco]
    assert key == sorted(key)
    m = client.post("/api/migrate", json={"model": "qwen2.5-14b", "saving": 20000}).json()
    assert m["to"] == "ascend-910b" and m["monthly_saving_cny"] == 20000


def test_plan_breakdown_cache_and_save(client: TestClient) -> None:
    body = {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8}
    r = client.post("/api/plan", json=body).json()
    assert r["plans"] and r["pareto"]
    p = r["plans"][0]
    assert set(p["breakdown_bytes"]) >= {"weights", "activations"}
    total = sum(p["breakdown_bytes"].values())
    assert ("breakdown_note" in p) == (abs(total - p["memory_per_gpu_bytes"]) > 0.01 * p["memory_per_gpu_bytes"])
    full = client.post("/api/plan", json={"model": "qwen2.5-0.5b", "task": "full", "tokens": 1e8}).json()["plans"]
    for q in full:  # full fine-tuning: the estimator's breakdown adds up to the planner's memory per card
        assert sum(q["breakdown_bytes"].values()) == pytest.approx(q["memory_per_gpu_bytes"], rel=1e-6)
    hits = client.get("/api/info").json()["plan_cache"]["hits"]
    assert client.post("/api/plan", json=body).json() == r
    assert client.get("/api/info").json()["plan_cache"]["hits"] == hits + 1
    refused = client.post("/api/plan", json={**body, "save": True})  # saving is a write: POST /api/plans
    assert refused.status_code == 422 and "/api/plans" in refused.json()["error"]
    assert client.post("/api/plans", json={**body, "name": "mine"}).status_code == 401
    saved = client.post("/api/plans", json={**body, "name": "mine"}, headers=AUTH).json()
    got = client.get(f"/api/plans/{saved['saved_plan_id']}").json()
    assert got["name"] == "mine" and got["result"]["plans"][0]["device"] == p["device"]
    inf = client.post("/api/plan", json={"model": "qwen2.5-7b", "task": "inference", "requests_per_s": 5}).json()
    assert inf["plans"][0]["breakdown_bytes"]["weights"] > 0


def test_writes_refused_without_configured_token(make_client: Callable[..., TestClient],
                                                  csv_file: Callable[..., tuple[str, bytes]]) -> None:
    c = make_client(token=None)
    before = c.get("/api/info").json()["counts"]
    r = c.post("/api/offers/import", files={"file": csv_file("a,P,rtx-4090,1,hour,1,2026,s\n")}, headers=AUTH)
    assert r.status_code == 403 and "SUANLI_API_TOKEN" in r.json()["error"]
    r = c.post("/api/offers/seed000-rtx4090-hour/prices", json={"price_cny": 1, "date": "2026", "source": "x"})
    assert r.status_code == 403
    assert c.get("/api/info").json()["counts"] == before


def test_import_with_token(client: TestClient, csv_file: Callable[..., tuple[str, bytes]]) -> None:
    f = csv_file("api-4090,Acme,rtx-4090,1,hour,1.5,2026-05-01,acme-api\n")
    assert client.post("/api/offers/import", files={"file": f}).status_code == 401  # token configured, none sent
    r = client.post("/api/offers/import", files={"file": f}, headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 401
    r = client.post("/api/offers/import", files={"file": f}, headers=AUTH)
    assert r.status_code == 200 and r.json()["new_prices"] == 1
    counts = client.get("/api/info").json()["counts"]
    assert client.post("/api/offers/import", files={"file": f}, headers={"X-API-Token": TOKEN}).json()["new_prices"] == 0
    assert client.get("/api/info").json()["counts"] == counts
    bad = csv_file("ok,Acme,rtx-4090,1,hour,1.5,2026-05-01,acme-api\nbad,Acme,rtx-4090,1,hour,cheap,2026-05-01,acme-api\n")
    r = client.post("/api/offers/import", files={"file": bad}, headers=AUTH)
    body: dict[str, Any] = r.json()
    assert r.status_code == 422 and body["errors"][0] == {"line": 3, "field": "price_cny", "in": "body",
                                                    "message": "'cheap' is not a number"}
    assert "offers.csv, line 3, field price_cny" in body["error"]
    assert client.get("/api/info").json()["counts"] == counts
    r = client.post("/api/offers/api-4090/prices", json={"price_cny": 1.2, "date": "2026-06-01", "source": "acme-june"}, headers=AUTH)
    assert r.status_code == 200
    assert [h["price_cny"] for h in client.get("/api/offers/api-4090/history").json()] == [1.5, 1.2]
    assert client.post("/api/offers/nope/prices", json={"price_cny": 1, "date": "2026", "source": "x"}, headers=AUTH).status_code == 404
    assert client.post("/api/offers/api-4090/prices", json={"price_cny": 1, "date": "June", "source": "x"}, headers=AUTH).status_code == 422


def test_rollback_with_token(client: TestClient, csv_file: Callable[..., tuple[str, bytes]]) -> None:
    """POST /api/imports/{id}/rollback removes exactly that import, as the CLI does; twice is an error."""
    offers_before = client.get("/api/offers", params={"device": "rtx-4090"}).json()
    f = csv_file("rb-4090,Acme,rtx-4090,1,hour,1.6,2026-05-01,acme-rb\n")
    import_id = client.post("/api/offers/import", files={"file": f}, headers=AUTH).json()["import_id"]
    assert any(o["id"] == "rb-4090" for o in client.get("/api/offers", params={"device": "rtx-4090"}).json())
    assert client.post(f"/api/imports/{import_id}/rollback").status_code == 401  # token before anything else
    r = client.post(f"/api/imports/{import_id}/rollback", headers=AUTH)
    assert r.status_code == 200, r.text
    assert r.json()["prices_rolled_back"] == 1 and r.json()["via"] == "api"
    assert client.get("/api/offers", params={"device": "rtx-4090"}).json() == offers_before
    imp = next(i for i in client.get("/api/imports").json() if i["id"] == import_id)
    assert imp["rolled_back_via"] == "api" and imp["rolled_back_at"]
    again = client.post(f"/api/imports/{import_id}/rollback", headers=AUTH)
    assert again.status_code == 422 and "already rolled back" in again.json()["error"]
    assert client.post("/api/imports/999999/rollback", headers=AUTH).status_code == 404
    assert client.post("/api/imports/0/rollback", headers=AUTH).status_code == 422


def test_import_plausibility_band_and_force(client: TestClient, csv_file: Callable[..., tuple[str, bytes]]) -> None:
    """A ¥1/month 8-card row is refused with the band named; `?force=true` takes it (and is recorded)."""
    f = csv_file("cheap-h800,Acme,h800,8,month,1,2026-05-01,acme-cheap\n")
    r = client.post("/api/offers/import", files={"file": f}, headers=AUTH)
    assert r.status_code == 422 and "plausib" in r.json()["error"], r.text
    r = client.post("/api/offers/import", params={"force": "true"}, files={"file": f}, headers=AUTH)
    assert r.status_code == 200, r.text
    assert next(i for i in client.get("/api/imports").json() if i["id"] == r.json()["import_id"])["forced"] is True


def test_web_page_is_offline(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and "suanli" in r.text
    static = resources.files("suanli") / "web" / "static"
    total = 0
    for name in ("index.html", "app.js", "style.css"):
        text = (static / name).read_text(encoding="utf-8")
        total += len(text.encode())
        assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", text), name  # nothing loaded from elsewhere
        assert client.get(f"/static/{name}").status_code == 200
    assert total < 100_000
