"""A buyer's own price list (procurement review M2): an imported row without `kind` is a `contract` price (a quote
or negotiated price, not public), shown as contract/合同价, rentable wherever listings are, and never part of the
plausibility band a later import is checked against; a row claiming `listing` names its page; a row older than the
staleness threshold imports with one warning line; a row read through a third party's source is second-hand.
Imports stay all-or-nothing and a rollback exact. SQLite, and PostgreSQL when `SUANLI_TEST_POSTGRES_URL` is set."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy", reason="storage is the optional `service` extra; `make test` installs it, so CI runs this")
pytest.importorskip("alembic", reason="storage is the optional `service` extra; `make test` installs it, so CI runs this")

from suanli.catalog import offers as offer_q  # noqa: E402
from suanli.i18n import Message, render  # noqa: E402
from suanli.store import open_store  # noqa: E402
from suanli.store.importer import IMPORT_KIND, OfferImportError  # noqa: E402

from store_backends import BACKENDS, PG  # noqa: E402  (tests/store_backends.py)
HEADER = "id,provider,device,cards,billing_unit,price_cny,date,source\n"
CONTRACT = "ours-910b-2026,某云（合同价）,910b,8,month,18500,2026-11-20,our-contract-2026\n"


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path, reset_postgres: Callable[[str], str]) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'suanli.db'}"
        return
    pytest.importorskip("psycopg", reason="PostgreSQL driver of the `service` extra; CI installs it and starts a server")
    assert PG
    yield reset_postgres(PG)


@pytest.fixture(autouse=True)
def _today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUANLI_TODAY", "2026-12-01")


def _write(tmp_path: Path, name: str, body: str) -> Path:
    f = tmp_path / name
    f.write_text(body, encoding="utf-8")
    return f


def test_a_row_without_kind_is_a_contract_price_shown_as_such(store_url: str, tmp_path: Path) -> None:
    st = open_store(store_url)
    r = st.import_offers(_write(tmp_path, "ours.csv", HEADER + CONTRACT))
    assert r["new_prices"] == 1 and r["stale"] == 0 and r["stale_warning"] is None
    o = next(o for o in st.catalog().offers if o.id == "ours-910b-2026")
    assert IMPORT_KIND == "contract" and o.kind == "contract" and not o.second_hand
    en, zh = render(offer_q.rent_message(o)), render(offer_q.rent_message(o), "zh")
    assert "(contract, 2026-11-20)" in en and "合同价" in zh and "挂牌" not in zh
    # rentable by the buyer: every request that takes listings (the default) takes it; `contract` alone too
    assert o in offer_q.usable_offers(st.catalog(), "cn", offer_q.DEFAULT_KINDS)
    assert o in offer_q.usable_offers(st.catalog(), "cn", ("contract",))
    assert o not in offer_q.usable_offers(st.catalog(), "cn", ("index", "reference"))
    assert offer_q.parse_kinds("contract") == ("contract",) and "contract" in offer_q.parse_kinds("all")


def test_contract_prices_never_set_the_plausibility_band(store_url: str, tmp_path: Path) -> None:
    st = open_store(store_url)
    before = offer_q.plausibility_band(st.current_offers(), "ascend-910b", "month")
    assert before is not None and before.basis == "listings"
    st.import_offers(_write(tmp_path, "ours.csv", HEADER + CONTRACT
                            + "ours-910b-2026b,某云（合同价）,910b,8,month,30000,2026-11-21,our-contract-2026\n"))
    after = offer_q.plausibility_band(st.current_offers(), "ascend-910b", "month")
    assert after == before  # the median and count come from published listings only
    # a device with only a contract price has no band (nothing published to compare with) …
    only = [o for o in st.current_offers() if o.kind == "contract"]
    assert offer_q.plausibility_band(only, "ascend-910b", "month") is None
    # … and the refusal still names the listings' band, not one moved by the buyer's own prices
    with pytest.raises(OfferImportError) as e:
        st.import_offers(_write(tmp_path, "far.csv", HEADER + "far,X,910b,8,month,1000000,2026-11-20,x\n"))
    assert e.value.errors[0].i18n.params["n"] == before.n  # type: ignore[union-attr]


def test_a_listing_row_needs_its_page_and_the_file_is_all_or_nothing(store_url: str, tmp_path: Path) -> None:
    st = open_store(store_url)
    n = len(st.price_history())
    bad = _write(tmp_path, "bad.csv", HEADER.rstrip("\n") + ",kind\n" + CONTRACT.rstrip("\n") + ",contract\n"
                 + "pub-910b,某平台,910b,8,month,16000,2026-11-20,pub,listing\n")
    with pytest.raises(OfferImportError) as e:
        st.import_offers(bad)
    assert (e.value.errors[0].line, e.value.errors[0].field) == (3, "url")
    assert "url" in render(e.value.i18n, "zh") and len(st.price_history()) == n  # nothing written
    ok = _write(tmp_path, "ok.csv", "id,provider,device,cards,billing_unit,price_cny,date,source,kind,url\n"
                "pub-910b,某平台,910b,8,month,16000,2026-11-20,pub,listing,https://example.com/910b\n")
    st.import_offers(ok)
    assert next(o for o in st.catalog().offers if o.id == "pub-910b").kind == "listing"
    # a source with a URL is the page too (the catalog's rule: url or the source's)
    src = _write(tmp_path, "src.csv", "id,provider,device,cards,billing_unit,price_cny,date,source,kind,source_url\n"
                 "pub2-910b,某平台,910b,8,month,16500,2026-11-20,pub2,listing,https://example.com/p\n")
    assert st.import_offers(src)["new_prices"] == 1


def test_a_stale_row_warns_at_import_with_the_count_and_the_oldest(store_url: str, tmp_path: Path) -> None:
    st = open_store(store_url)
    body = HEADER + CONTRACT + ("old-1,某云,910b,8,month,17000,2025-03-01,c\n"
                                "old-2,某云,910b,8,month,17500,2024-06-01,c\n")
    r = st.import_offers(_write(tmp_path, "old.csv", body))
    assert r["new_prices"] == 3 and r["stale"] == 2  # written: an old price is history, not an error
    assert "2 rows dated more than 12 months ago, the oldest old-2 (2024-06-01, 30 months old)" in r["stale_warning"]
    zh = render(Message.from_json(r["stale_warning_i18n"]), "zh")
    assert "有 2 行" in zh and "old-2" in zh and "12 个月" in zh


def test_rollback_of_a_contract_import_is_exact(store_url: str, tmp_path: Path) -> None:
    st = open_store(store_url)
    before = sorted((o.id, o.price_cny.value, o.kind) for o in st.catalog().offers)
    r = st.import_offers(_write(tmp_path, "ours.csv", HEADER + CONTRACT))
    st.rollback_import(r["import_id"])
    assert sorted((o.id, o.price_cny.value, o.kind) for o in st.catalog().offers) == before


def test_a_row_from_a_third_party_source_is_second_hand(store_url: str, tmp_path: Path) -> None:
    """The one rule (`offers.mark_second_hand`) on imports too: a row citing a third party's source (here the CMIS
    scraper files the 云擎天下 listings were read from) is quoted second-hand; the buyer's own row is not."""
    st = open_store(store_url)
    body = ("id,provider,device,cards,billing_unit,price_cny,date,source,kind,url\n"
            "mine-omniyq,云擎天下,910b,8,month,15500,2026-11-01,cmis-audit-2026-07-20,listing,https://www.omniyq.com/\n")
    st.import_offers(_write(tmp_path, "cmis.csv", body), force=True)
    st.import_offers(_write(tmp_path, "ours.csv", HEADER + CONTRACT))
    cur = {o.id: o for o in st.catalog().offers}
    assert cur["mine-omniyq"].second_hand and "转引" in render(offer_q.rent_message(cur["mine-omniyq"]), "zh")
    assert not cur["ours-910b-2026"].second_hand


def test_cli_import_prints_the_stale_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from suanli.cli.main import app

    monkeypatch.setenv("SUANLI_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SUANLI_DATABASE_URL", raising=False)
    f = _write(tmp_path, "old.csv", HEADER + "old-1,某云,910b,8,month,17000,2025-03-01,c\n")
    res = CliRunner().invoke(app, ["--lang", "zh", "offers", "import", str(f)])
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.split())
    assert "有 1 行" in flat and "old-1" in flat
