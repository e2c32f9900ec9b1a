"""Review 2026-12-01 (storage): an import may add a price to an existing offer id, never move the id to another
device, provider, card count or billing unit. Runs on SQLite, and on PostgreSQL when SUANLI_TEST_POSTGRES_URL is
set (`source .ci/postgres.sh`, README)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy", reason="the store needs the `service` extra (SQLAlchemy); `make test` installs it, so CI runs this")
pytest.importorskip("alembic", reason="the store's migrations need the `service` extra (Alembic); `make test` installs it, so CI runs this")

from suanli.store import OfferImportError, Store, open_store  # noqa: E402

HEADER = "id,provider,device,cards,billing_unit,price_cny,date,source\n"
PG_URL = os.environ.get("SUANLI_TEST_POSTGRES_URL")


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path, reset_postgres: Callable[[str], str]) -> Store:
    if request.param == "sqlite":
        return open_store(f"sqlite:///{tmp_path / 'suanli.db'}")
    if not PG_URL:
        pytest.skip("SUANLI_TEST_POSTGRES_URL is not set: start a server with `source .ci/postgres.sh`")
    pytest.importorskip("psycopg", reason="PostgreSQL runs need the `service` extra (psycopg); `make test` installs it")
    return open_store(reset_postgres(PG_URL))


def _import(st: Store, body: str, name: str = "o.csv") -> object:
    return st.import_offers_bytes((HEADER + body).encode(), name)


def _row(st: Store, oid: str) -> tuple[str, float]:
    o = next(o for o in st.current_offers() if o.id == oid)
    return o.device, o.price_cny.value


@pytest.mark.parametrize(("row", "field"), [
    # the review's repro: AutoDL's RTX 4090 id re-imported as an H100 at ¥20
    ("autodl-rtx4090-hour-2026-08,AutoDL,h100-sxm,1,hour,20,2026-11-20,mysrc", "device"),
    ("autodl-rtx4090-hour-2026-08,OtherCloud,rtx-4090,1,hour,1.9,2026-11-20,mysrc", "provider"),
    ("autodl-rtx4090-hour-2026-08,AutoDL,rtx-4090,2,hour,3.8,2026-11-20,mysrc", "cards"),
    ("autodl-rtx4090-hour-2026-08,AutoDL,rtx-4090,1,day,45,2026-11-20,mysrc", "billing_unit"),
])
def test_import_cannot_move_an_offer(store: Store, row: str, field: str) -> None:
    before = _row(store, "autodl-rtx4090-hour-2026-08")
    assert before == ("rtx-4090", 1.88)
    n_prices = store.info()["counts"]["price_history"]
    ok = "my-new-offer,Acme,rtx-4090,1,hour,1.99,2026-11-20,mysrc\n"
    with pytest.raises(OfferImportError) as e:
        _import(store, ok + row + "\n")  # a good row first: the whole import writes nothing
    assert e.value.field == field and e.value.errors[0].line == 3, str(e.value)
    assert "line 3" in str(e.value) and field in str(e.value) and "\n" not in str(e.value)
    assert _row(store, "autodl-rtx4090-hour-2026-08") == before
    assert store.info()["counts"]["price_history"] == n_prices
    assert "my-new-offer" not in {o.id for o in store.current_offers()}
    assert any(o.id == "autodl-rtx4090-hour-2026-08" and o.device == "rtx-4090" for o in store.planning_catalog().offers)


def test_same_identity_adds_a_price(store: Store) -> None:
    _import(store, "autodl-rtx4090-hour-2026-08,AutoDL,rtx-4090,1,hour,1.95,2026-11-20,mysrc\n")
    assert _row(store, "autodl-rtx4090-hour-2026-08") == ("rtx-4090", 1.95)


def test_rolled_back_offer_keeps_its_identity(store: Store) -> None:
    """The store's own check (not only the parser's, which compares with the current offers): an id whose only
    prices were rolled back is still stored with its device, so it cannot come back as another device."""
    res = _import(store, "mine-1,Acme,rtx-4090,1,hour,1.99,2026-11-20,mysrc\n")
    store.rollback_import(res["import_id"])  # type: ignore[index]
    assert "mine-1" not in {o.id for o in store.current_offers()}
    with pytest.raises(OfferImportError) as e:
        _import(store, "mine-1,Acme,h100-sxm,1,hour,20,2026-11-20,mysrc\n", "again.csv")
    assert e.value.field == "device" and e.value.errors[0].line == 2
    _import(store, "mine-1,Acme,rtx-4090,1,hour,1.99,2026-11-21,mysrc\n", "same.csv")
    assert _row(store, "mine-1") == ("rtx-4090", 1.99)


def test_add_price_keeps_identity(store: Store) -> None:
    store.add_price("autodl-rtx4090-hour-2026-08", 1.77, "2026-11-20", "mysrc2")
    assert _row(store, "autodl-rtx4090-hour-2026-08") == ("rtx-4090", 1.77)
