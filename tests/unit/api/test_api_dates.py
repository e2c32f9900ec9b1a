"""/api/compare, /api/tco and /api/value judge price freshness on SUANLI_TODAY, as the CLI and /api/plan do."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient


@pytest.fixture()
def client(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))
    from suanli.api.app import create_app

    return TestClient(create_app())


def _tco_offers(client: TestClient, today: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("SUANLI_TODAY", today)
    r = client.post("/api/tco", json={"gpu": "rtx-4090", "hours": 10})
    assert r.status_code == 200, r.text
    return [row["offer"] for row in r.json()]


def test_tco_lists_fresh_prices_first_on_suanli_today(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    now = _tco_offers(client, "2026-12-01", monkeypatch)
    then = _tco_offers(client, "2024-10-01", monkeypatch)
    assert now[0] == "autodl-rtx4090-hour-2026-08"  # the fresh listing first
    assert then[0] != now[0]  # on 2024-10-01 the AutoDL row is not yet dated, so the order differs
