"""The packaged catalog's rows in the store follow the packaged files exactly (added, changed, removed) on each
sync, with history kept and every sync recorded; user-imported rows are never touched; fingerprints do not
change when the offer schema gains an optional field with a default.

A new release is simulated by replacing `packaged_catalog` and `catalog_data_sha256` in `suanli.store.db`.
Runs on SQLite, and on PostgreSQL too when `SUANLI_TEST_POSTGRES_URL` is set (`source .ci/postgres.sh`; CI sets it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy", reason="storage is the optional `service` extra; `make test` installs it, so CI runs this")
pytest.importorskip("alembic", reason="storage is the optional `service` extra; `make test` installs it, so CI runs this")

from suanli.catalog.load import packaged_catalog  # noqa: E402
from suanli.catalog.schema import Catalog, Offer  # noqa: E402
from suanli.store import Store, open_store  # noqa: E402
from suanli.store import db as store_db  # noqa: E402
from suanli.store.importer import offer_fingerprint  # noqa: E402

from store_backends import BACKENDS, PG  # noqa: E402  (tests/store_backends.py)
HEADER = "id,provider,device,cards,billing_unit,price_cny,date,source\n"


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path,
              reset_postgres: Callable[[str], str]) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'suanli.db'}"
        return
    pytest.importorskip("psycopg", reason="PostgreSQL driver of the `service` extra; CI installs it and starts a server")
    assert PG
    yield reset_postgres(PG)


def _release(monkeypatch: pytest.MonkeyPatch, cat: Catalog, sha: str) -> None:
    """Make `cat` the packaged catalog of a new release whose data files hash to `sha`."""
    monkeypatch.setattr(store_db, "packaged_catalog", lambda: cat)
    monkeypatch.setattr(store_db, "catalog_data_sha256", lambda *a: sha)


def _with_offers(offers: list[Offer]) -> Catalog:
    return packaged_catalog().model_copy(update={"offers": tuple(offers)})


def _current(st: Store) -> dict[str, Offer]:
    return {o.id: o for o in st.catalog().offers}


def _live_packaged(st: Store) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for h in st.price_history():
        if h["origin"] == "packaged" and not h["rolled_back"]:
            out.setdefault(h["offer_id"], []).append(h)
    return out


def _repriced(o: Offer, price: float, date: str | None = None) -> Offer:
    d = o.model_dump(mode="json")
    d["price_cny"] = {"values": [{**d["price_cny"]["values"][0], "value": price}]}
    if date:
        d["date"] = date
    return Offer.model_validate(d)


def test_removed_packaged_row_is_gone_and_history_kept(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    base = list(packaged_catalog().offers)
    gone = base[0]
    st = open_store(store_url)
    assert gone.id in _current(st)
    n_hist = len(st.price_history())

    _release(monkeypatch, _with_offers(base[1:]), "a" * 64)
    st2 = open_store(store_url)
    assert gone.id not in _current(st2)
    assert gone.id not in {o.id for o in st2.planning_catalog().offers}
    hist = st2.price_history(offer_id=gone.id)
    assert len(hist) == 1 and hist[0]["rolled_back"] is True  # kept in the history, no longer counted
    assert len(st2.price_history()) == n_hist
    sync = st2.catalog_syncs()[-1]
    assert (sync["added"], sync["changed"], sync["removed"], sync["unchanged"]) == (0, 0, 1, len(base) - 1)
    assert sync["changes"]["removed"] == [gone.id]
    assert sync["data_sha256"] == "a" * 64 and st2.catalog_version_id == sync["version_id"]
    assert st2.retired_prices(gone.id) == [{"price_id": hist[0]["id"], "offer_id": gone.id, "retired_by_sync": sync["id"]}]
    # the packaged rows in the store are exactly the release's
    assert {k: len(v) for k, v in _live_packaged(st2).items()} == {o.id: 1 for o in base[1:]}


def test_changed_and_added_packaged_rows_follow_the_files(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    base = list(packaged_catalog().offers)
    open_store(store_url)  # the store at the current release
    changed = _repriced(base[1], base[1].price_cny.value * 0.9)
    older = _repriced(base[2], base[2].price_cny.value * 1.1, date="2020-01-01")  # a correction dated earlier
    new = base[3].model_copy(update={"id": "new-in-this-release"})
    _release(monkeypatch, _with_offers([base[0], changed, older, *base[4:], new]), "b" * 64)
    st2 = open_store(store_url)
    cur = _current(st2)
    assert cur[changed.id].price_cny.value == changed.price_cny.value
    assert cur[older.id].price_cny.value == older.price_cny.value  # the release's row, even with an older date
    assert cur["new-in-this-release"] == new
    assert base[3].id not in cur
    for oid in (changed.id, older.id):
        hist = st2.price_history(offer_id=oid)
        assert [h["rolled_back"] for h in hist if h["origin"] == "packaged"].count(True) == 1
        assert [h["rolled_back"] for h in hist if h["origin"] == "packaged"].count(False) == 1
    sync = st2.catalog_syncs()[-1]
    assert (sync["added"], sync["changed"], sync["removed"]) == (1, 2, 1)
    assert sorted(sync["changes"]["changed"]) == sorted([changed.id, older.id])
    assert sorted(o.id for o in cur.values()) == sorted(o.id for o in _with_offers(
        [base[0], changed, older, *base[4:], new]).offers)


def test_user_imports_are_untouched(store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = list(packaged_catalog().offers)
    st = open_store(store_url)
    gone = next(o for o in base if o.device == "rtx-4090" and o.billing_unit == "hour") \
        if any(o.device == "rtx-4090" and o.billing_unit == "hour" for o in base) else base[0]
    per = gone.price_cny.value
    f = tmp_path / "mine.csv"
    f.write_text(HEADER + f"{gone.id},{gone.provider},{gone.device},{gone.cards},{gone.billing_unit},{per * 1.01:.4f},"
                 f"2026-11-01,my-quote\n"
                 f"my-own,Acme,{gone.device},{gone.cards},{gone.billing_unit},{per:.4f},2026-11-01,my-quote\n",
                 encoding="utf-8")
    r = st.import_offers(f, force=True)
    assert r["new_prices"] == 2
    mine = [h for h in st.price_history() if h["origin"] == "import"]

    _release(monkeypatch, _with_offers([o for o in base if o.id != gone.id]), "c" * 64)
    st2 = open_store(store_url)
    assert [h for h in st2.price_history() if h["origin"] == "import"] == mine
    cur = _current(st2)
    assert cur["my-own"].price_cny.value == pytest.approx(per)
    assert cur[gone.id].source == "my-quote"  # the user's own price for that id stays current
    assert st2.imports()[-1]["id"] == r["import_id"] and st2.imports()[-1]["rolled_back_at"] is None
    # and a user rollback still removes exactly the user's rows
    st2.rollback_import(r["import_id"])
    assert gone.id not in _current(st2) and "my-own" not in _current(st2)


def test_no_sync_when_nothing_changed(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    st = open_store(store_url)
    assert len(st.catalog_syncs()) == 1
    snap = (st.price_history(), st.catalog_syncs())

    def no_write(self: Store) -> Any:
        raise AssertionError("a start with unchanged packaged data must not write")

    monkeypatch.setattr(Store, "write", no_write)
    again = open_store(store_url)
    assert (again.price_history(), again.catalog_syncs()) == snap
    assert again.catalog_version_id == st.catalog_version_id


def test_back_to_an_earlier_release(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A → B → A (a downgrade, or a release that restores a row): the store follows each one."""
    base = list(packaged_catalog().offers)
    sha_a = store_db.catalog_data_sha256()
    st = open_store(store_url)
    a_version = st.catalog_version_id
    _release(monkeypatch, _with_offers(base[1:]), "d" * 64)
    assert base[0].id not in _current(open_store(store_url))
    _release(monkeypatch, _with_offers(base), sha_a)
    st3 = open_store(store_url)
    assert _current(st3)[base[0].id] == base[0]
    assert st3.catalog_version_id == a_version
    assert [s["data_sha256"] for s in st3.catalog_syncs()] == [sha_a, "d" * 64, sha_a]
    assert st3.info()["catalog_versions"][-1]["id"] == a_version  # `suanli db info` shows the current one last
    hist = st3.price_history(offer_id=base[0].id)
    assert [h["rolled_back"] for h in hist] == [True, False]


def test_fingerprint_ignores_optional_fields_left_at_their_default() -> None:
    o = packaged_catalog().offers[0]
    d = o.model_dump(mode="json")
    # a file written before a field existed: the field missing, parsed with its default
    for field in ("stock", "min_cards_per_order", "multi_card_instance", "public_network_mbit_per_s"):
        assert d[field] == Offer.model_fields[field].default
        older = Offer.model_validate({k: v for k, v in d.items() if k != field})
        assert offer_fingerprint(older) == offer_fingerprint(o)
    # a default written out explicitly is the same row too; a changed value is not
    assert offer_fingerprint(Offer.model_validate({**d, "min_units": 1})) == offer_fingerprint(o)
    assert offer_fingerprint(Offer.model_validate({**d, "stock": 5})) != offer_fingerprint(o)


def test_reimport_with_defaults_spelled_out_is_a_duplicate(store_url: str, tmp_path: Path) -> None:
    st = open_store(store_url)
    f = tmp_path / "a.csv"
    f.write_text(HEADER + "acme-4090,Acme,rtx-4090,1,hour,1.99,2026-05-01,acme-2026\n", encoding="utf-8")
    assert st.import_offers(f)["new_prices"] == 1
    g = tmp_path / "a.yaml"
    g.write_text("offers:\n- {id: acme-4090, provider: Acme, device: rtx-4090, cards: 1, billing_unit: hour,\n"
                 "   price_cny: 1.99, date: '2026-05-01', source: acme-2026, min_units: 1, whole_machine_only: false,\n"
                 "   kind: contract, scope: card, inter_node_network: none, stock: null, multi_card_instance: false}\n",
                 encoding="utf-8")
    r = st.import_offers(g)
    assert (r["new_prices"], r["unchanged"], r["import_id"]) == (0, 1, None)


def test_upgrade_from_0002_retires_stale_rows_and_rekeys_fingerprints(store_url: str, tmp_path: Path) -> None:
    """A store seeded by an earlier release (schema 0002, old fingerprints: the full JSON with every default)
    that still holds a packaged row this release no longer ships: the upgrade re-keys the fingerprints and the
    first start retires the stale row; re-importing a file imported before is still a duplicate."""
    import hashlib
    import json

    from alembic import command
    from sqlalchemy import text

    st = Store(store_url)
    with st._migration_lock() as conn:
        cfg = st._alembic_config()
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0002")
        conn.commit()

    def old_fp(o: Offer) -> str:
        return hashlib.sha256(json.dumps(o.model_dump(mode="json"), sort_keys=True, ensure_ascii=False,
                                         separators=(",", ":")).encode()).hexdigest()

    base = list(packaged_catalog().offers)
    stale = base[0].model_copy(update={"id": "dropped-in-this-release"})
    mine = base[1].model_copy(update={"id": "my-own-row"})
    now = "2026-11-01 00:00:00"
    with st.engine.begin() as conn:
        conn.execute(text("INSERT INTO catalog_versions (data_sha256, suanli_version, seeded_at, counts) "
                          "VALUES (:sha, '0.0.1', :now, '{}')"), {"sha": "0" * 64, "now": now})
        conn.execute(text("INSERT INTO imports (filename, file_sha256, format, rows, new_prices, via, "
                          "imported_at, forced) VALUES ('mine.csv', :sha, 'csv', 1, 1, 'cli', :now, false)"),
                     {"sha": "1" * 64, "now": now})
        imp_id = conn.execute(text("SELECT max(id) FROM imports")).scalar()
        for o, origin, imp in [*((o, "packaged", None) for o in [*base, stale]), (mine, "import", imp_id)]:
            conn.execute(text("INSERT INTO offers (id, device, provider, origin, created_at) "
                              "VALUES (:id, :d, :p, :origin, :now)"),
                         {"id": o.id, "d": o.device, "p": o.provider, "origin": origin, "now": now})
            conn.execute(text(
                "INSERT INTO price_history (offer_id, device, cards, billing_unit, price_cny, date, source, origin, "
                "import_id, offer, fingerprint, recorded_at) VALUES (:id, :d, :c, :b, :p, :date, :src, :origin, "
                ":imp, :offer, :fp, :now)"),
                {"id": o.id, "d": o.device, "c": o.cards, "b": o.billing_unit, "p": o.price_cny.value, "date": o.date,
                 "src": o.source, "origin": origin, "imp": imp, "offer": json.dumps(o.model_dump(mode="json")),
                 "fp": old_fp(o), "now": now})
    st.dispose()

    st2 = open_store(store_url)
    cur = _current(st2)
    assert "dropped-in-this-release" not in cur and "my-own-row" in cur
    assert sorted(_live_packaged(st2)) == sorted(o.id for o in base)  # nothing re-added: fingerprints re-keyed
    assert len(st2.price_history()) == len(base) + 2
    sync = st2.catalog_syncs()[-1]
    assert (sync["added"], sync["changed"], sync["removed"]) == (0, 0, 1)
    # the user's row, imported before the upgrade, is still a duplicate of itself (its kind spelled out: an
    # imported row without one is a contract price since 2026-12, store.importer.IMPORT_KIND)
    f = tmp_path / "again.yaml"
    f.write_text(json.dumps({"offers": [{**mine.model_dump(mode="json", exclude_defaults=True), "kind": mine.kind}]}),
                 encoding="utf-8")
    assert st2.import_offers(f, force=True)["new_prices"] == 0


def test_packaged_row_identical_to_an_import_survives_its_rollback(store_url: str, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A user imported a row that a later release ships as it is: the sync stores no second copy (the fingerprint
    is taken); rolling the user's import back leaves the release's row counting."""
    st = open_store(store_url)
    f = tmp_path / "mine.csv"
    f.write_text(HEADER + "acme-4090,Acme,rtx-4090,1,hour,1.99,2026-05-01,acme-2026\n", encoding="utf-8")
    r = st.import_offers(f)
    mine = _current(st)["acme-4090"]
    _release(monkeypatch, _with_offers([*packaged_catalog().offers, mine]), "f" * 64)
    st2 = open_store(store_url)
    assert st2.catalog_syncs()[-1]["changes"]["added"] == ["acme-4090"]
    assert [h["origin"] for h in st2.price_history(offer_id="acme-4090")] == ["import"]
    st2.rollback_import(r["import_id"])
    assert _current(st2)["acme-4090"] == mine
    assert [(h["origin"], h["rolled_back"]) for h in st2.price_history(offer_id="acme-4090")] == [
        ("import", True), ("packaged", False)]
