"""The cost endpoints take the same region filter and offer kinds as POST /api/plan (issue 11 item 1):
cn listings by default, `region=any` widens, the answer names its basis and marks international offers."""

from __future__ import annotations

from fastapi.testclient import TestClient

ALL = ["listing", "index", "reference"]


def test_compare_tco_migrate_take_region_and_kinds(client: TestClient) -> None:
    body = {"model": "qwen2.5-7b", "devices": ["rtx-4090", "h100-sxm"], "task": "lora", "tokens": 1e8}
    cn = client.post("/api/compare", json=body).json()
    assert {(r["region"], tuple(r["offer_kinds"])) for r in cn} == {("cn", ("listing",))}
    wide = client.post("/api/compare", json={**body, "region": "any", "offer_kinds": ALL}).json()
    assert {r["region"] for r in wide} == {"any"} and wide[0]["offer_kinds"] == ALL

    # no Chinese H100 listing: the cn default refuses with the field named, region any prices it
    assert client.post("/api/tco", json={"gpu": "h100-sxm", "hours": 10}).json()["field"] == "gpu"
    rows = client.post("/api/tco", json={"gpu": "h100-sxm", "hours": 10, "region": "any", "offer_kinds": ALL}).json()
    assert any(r["international"] for r in rows) and any(not r["international"] for r in rows)
    intl = client.post("/api/tco", json={"gpu": "h100-sxm", "hours": 10, "region": "international",
                                         "offer_kinds": ALL}).json()
    assert intl and all(r["international"] for r in intl)

    m = client.post("/api/migrate", json={"model": "qwen2.5-14b", "region": "any", "offer_kinds": ALL}).json()
    assert m["region"] == "any" and m["offers_used"]
    bad = client.post("/api/migrate", json={"model": "qwen2.5-14b", "region": "mars"})
    assert bad.status_code == 422 and bad.json()["field"] == "region"


def test_value_and_scenario_take_region_and_kinds(client: TestClient) -> None:
    cn = client.get("/api/value").json()
    wide = client.get("/api/value?region=any&offer_kinds=listing&offer_kinds=index&offer_kinds=reference").json()
    assert {r["region"] for r in cn} == {"cn"} and len(wide) > len(cn)
    assert client.get("/api/value?offer_kinds=press").json()["field"] == "offer_kinds.0"
    sid = client.get("/api/scenarios").json()[0]["id"]
    assert client.get(f"/api/scenarios/{sid}?region=any").json()["region"] == "any"
    assert all(r["offer"] and isinstance(r["international"], bool) for r in wide) and any(r["international"] for r in wide)
