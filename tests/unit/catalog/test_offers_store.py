"""Offer management in the store (issue 11): import ids, rollback with history kept, the plausibility band,
one row per offer id in a file. Runs on SQLite, and on PostgreSQL too when `SUANLI_TEST_POSTGRES_URL` is set
(`source .ci/postgres.sh`)."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("alembic")

from suanli.store import OfferImportError, Store, open_store  # noqa: E402

HEADER = "id,provider,device,cards,billing_unit,price_cny,date,source\n"
PG_URL = os.environ.get("SUANLI_TEST_POSTGRES_URL")


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        st = open_store(f"sqlite:///{tmp_path / 'suanli.db'}")
    else:
        if not PG_URL:
            pytest.skip("SUANLI_TEST_POSTGRES_URL is not set: start a server with `source .ci/postgres.sh`")
        pytest.importorskip("psycopg")
        from sqlalchemy import create_engine, text

        eng = create_engine(PG_URL)
        with eng.begin() as conn:
            conn.execute(text("DROP SCHEMA public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
        eng.dispose()
        st = open_store(PG_URL)
    yield st
    st.dispose()


def _state(st: Store) -> tuple[Any, ...]:
    """What users see: the current offers (as JSON) and the live price rows."""
    offers = sorted((o.model_dump_json() for o in st.catalog().offers))
    live = [(h["offer_id"], h["date"], h["price_cny"]) for h in st.price_history(limit=10**6) if not h["rolled_back"]]
    return offers, sorted(live)


def _csv(tmp_path: Path, name: str, rows: list[str]) -> Path:
    p = tmp_path / name
    p.write_text(HEADER + "".join(r + "\n" for r in rows), encoding="utf-8")
    return p


def test_band_rejects_one_yuan_a_month_for_8_h800_unless_forced(store: Store, tmp_path: Path) -> None:
    f = _csv(tmp_path, "cheap.csv", ["cheap-h800,Cheap,h800,8,month,1,2026-11-01,cheap-list"])
    before = _state(store)
    with pytest.raises(OfferImportError) as e:
        store.import_offers(f)
    msg = str(e.value)
    assert "line 2, field price_cny" in msg and "outside the plausible band for h800" in msg and "--force" in msg
    assert _state(store) == before
    r = store.import_offers(f, force=True)
    assert r["import_id"] is not None
    assert next(i for i in store.imports() if i["id"] == r["import_id"])["forced"] is True


def test_same_id_twice_in_one_file_is_an_error(store: Store, tmp_path: Path) -> None:
    f = _csv(tmp_path, "dup.csv", ["a-4090,A,rtx-4090,1,hour,2.0,2026-10-01,a-list",
                                   "a-4090,A,rtx-4090,1,hour,2.1,2026-11-01,a-list"])
    with pytest.raises(OfferImportError, match=r"line 3, field id: 'a-4090' also on line 2"):
        store.import_offers(f)


def test_rollback_removes_exactly_that_import_and_keeps_history(store: Store, tmp_path: Path) -> None:
    first = store.import_offers(_csv(tmp_path, "a.csv", ["a-4090,A,rtx-4090,1,hour,2.0,2026-10-01,a-list"]))
    after_first = _state(store)
    second = store.import_offers(_csv(tmp_path, "b.csv", ["a-4090,A,rtx-4090,1,hour,1.8,2026-11-01,a-list",
                                                          "b-4090,B,rtx-4090,1,hour,2.2,2026-11-01,b-list"]))
    assert {o.id: o for o in store.catalog().offers}["a-4090"].price_cny.value == 1.8
    out = store.rollback_import(second["import_id"])
    assert out["prices_rolled_back"] == 2
    assert _state(store) == after_first  # the older price of a-4090 is current again, b-4090 is gone
    hist = store.price_history(offer_id="a-4090")
    assert [(h["price_cny"], h["rolled_back"]) for h in hist] == [(2.0, False), (1.8, True)]  # history kept
    imp = next(i for i in store.imports() if i["id"] == second["import_id"])
    assert imp["rolled_back_at"] and imp["rolled_back_via"] == "cli"  # audited
    with pytest.raises(Exception, match="already rolled back"):
        store.rollback_import(second["import_id"])
    with pytest.raises(Exception, match="import"):
        store.rollback_import(10**6)
    again = store.import_offers(tmp_path / "b.csv")  # the same rows can come back after a rollback
    assert again["new_prices"] == 2
    assert first["import_id"] != again["import_id"]


def test_10000_rows_import_and_rollback_leave_the_database_as_before(store: Store, tmp_path: Path) -> None:
    rng = random.Random(11)
    devices = [("rtx-4090", 1, "hour", 2.0), ("rtx-4090", 8, "month", 7920.0), ("ascend-910b", 8, "month", 15600.0),
               ("h100-sxm", 8, "hour", 180.0), ("a800", 1, "hour", 5.0)]
    rows = []
    for i in range(10_000):
        dev, cards, unit, price = devices[i % len(devices)]
        rows.append(f"bulk-{i},Bulk {i % 37},{dev},{cards},{unit},{price * rng.uniform(0.6, 1.6):.2f},"
                    f"2026-{1 + i % 11:02d}-01,bulk-list")
    before = _state(store)
    r = store.import_offers(_csv(tmp_path, "bulk.csv", rows))
    assert r["new_prices"] == 10_000 and r["import_id"] is not None
    assert len(store.catalog().offers) == len(before[0]) + 10_000
    store.rollback_import(r["import_id"])
    assert _state(store) == before
