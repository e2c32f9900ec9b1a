"""The store snapshot: `suanli plan` reads an unchanged SQLite store's catalog without SQLAlchemy, and any
change to prices (import, rollback) makes the next command take the full path."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy", reason="the service extra (SQLAlchemy) is not installed")

from suanli.store import open_store  # noqa: E402
from suanli.store.snapshot import load_snapshot, snapshot_key, write_snapshot  # noqa: E402

HEADER = "id,provider,device,cards,billing_unit,price_cny,date,source,source_title\n"


def test_snapshot_follows_every_price_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))
    monkeypatch.delenv("SUANLI_NO_CACHE", raising=False)
    url = f"sqlite:///{tmp_path / 'suanli.db'}"
    st = open_store(url)
    assert load_snapshot(url) is None  # nothing written yet
    write_snapshot(url, st.catalog())
    snap = load_snapshot(url)
    assert snap is not None and snap == st.catalog()
    key = snapshot_key(url)
    f = tmp_path / "offers.csv"
    f.write_text(HEADER + "acme-4090,Acme,rtx-4090,1,hour,1.99,2026-05-01,acme-2026,Acme list\n", encoding="utf-8")
    r = st.import_offers(f)
    assert snapshot_key(url) != key and load_snapshot(url) is None  # an import changes the key
    write_snapshot(url, st.catalog())
    assert any(o.id == "acme-4090" for o in load_snapshot(url).offers)  # type: ignore[union-attr]
    st.rollback_import(int(r["import_id"]))
    assert load_snapshot(url) is None  # so does a rollback
    assert snapshot_key("postgresql+psycopg://u@h/db") is None and snapshot_key("sqlite:///:memory:") is None


def test_planning_catalog_uses_the_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))
    monkeypatch.delenv("SUANLI_DATABASE_URL", raising=False)
    monkeypatch.delenv("SUANLI_NO_CACHE", raising=False)
    from suanli.cli.context import planning_catalog
    from suanli.store.settings import database_url

    full = open_store(database_url()).catalog()
    assert planning_catalog() == full  # the full path, which writes the snapshot
    assert load_snapshot(database_url()) == full
    assert planning_catalog() == full  # from the snapshot
