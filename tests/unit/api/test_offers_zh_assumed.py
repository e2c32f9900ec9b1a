"""GET /api/offers in Chinese answers offers whose fields were read by assumption (the 910C's 'read as 8' cards): a zh
answer gives the Chinese note as `note`, so the response model cannot require `note_zh` (it failed with a 500)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient


def test_offers_in_chinese_with_assumed_fields(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))
    from suanli.api.app import create_app

    client = TestClient(create_app())
    for lang in ("zh", "en"):
        r = client.get(f"/api/offers?lang={lang}&region=any")
        assert r.status_code == 200, r.text[:300]
        rows = r.json()
        rows = rows if isinstance(rows, list) else rows.get("offers", rows.get("items", []))
        assert any(o.get("assumed") for o in rows), lang
