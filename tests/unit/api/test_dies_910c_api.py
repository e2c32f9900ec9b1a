"""POST /api/estimate and POST /api/plan carry a 910C's die count (task die: the 910C is two dies to every
framework; tests/unit/plan/test_dies_910c.py holds the CLI and the core): gpus are ranks, cards the cards rented;
a device of one die a card has no die fields."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_api_carries_the_die_count(client: TestClient) -> None:
    est = client.post("/api/estimate", json={"model": "qwen3-32b", "gpu": "910c", "gpus": 8})
    assert est.status_code == 200, est.text
    dev = est.json()["device"]
    assert (dev["gpus"], dev["ranks"], dev["cards"], dev["dies_per_card"]) == (16, 16, 8, 2)
    other = client.post("/api/estimate", json={"model": "qwen2.5-7b", "gpu": "h100"}).json()["device"]
    assert "dies_per_card" not in other
    pl = client.post("/api/plan", json={"model": "qwen3-32b", "task": "full", "tokens": 1e9, "domestic_only": True,
                                         "offer_kinds": ["listing", "index", "reference", "contract"], "devices": ["910c"]})
    assert pl.status_code == 200, pl.text
    p = pl.json()["plans"][0]
    assert (p["dies_per_card"], p["cards"], p["gpus"]) == (2, 8, 16)
