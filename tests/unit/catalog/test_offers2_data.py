"""Data checks for offers-2.yaml: purchase prices (capex) and further offers from Chinese sources.

The rows are read from the file itself (so a row that silently disappears from the merged catalog is
caught) and then looked up in the loaded catalog.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from suanli.catalog.load import DATA_DIR
from suanli.catalog.schema import Catalog
from suanli.plan.compare import hourly_card_price

FILE = DATA_DIR / "offers-2.yaml"
FX_SOURCE = "fx-usdcny-alphadojo"
_USD = re.compile(r"original \$([0-9.,]+) per [^;]*?; converted at ([0-9.]+) CNY/USD")


def _ids(raw: dict[str, Any], section: str) -> list[str]:
    return [row["id"] for row in raw.get(section) or []]


def test_the_file_has_purchases_offers_and_its_own_sources(raw: dict[str, Any]) -> None:
    assert len(raw["purchases"]) >= 10
    assert len(raw["offers"]) >= 1
    assert raw["sources"], "offers-2.yaml keeps its own sources section"
    assert all(i.startswith("px-") for i in _ids(raw, "sources"))


def test_every_row_is_in_the_merged_catalog(raw: dict[str, Any], cat: Catalog) -> None:
    purchases = {p.id for p in cat.purchases}
    offers = {o.id for o in cat.offers}
    assert set(_ids(raw, "purchases")) <= purchases
    assert set(_ids(raw, "offers")) <= offers


def test_row_ids_are_prefixed(raw: dict[str, Any]) -> None:
    for i in _ids(raw, "purchases") + _ids(raw, "offers"):
        assert i.startswith("px-") and i == i.lower(), i


def test_prices_are_positive(raw: dict[str, Any], cat: Catalog) -> None:
    mine = set(_ids(raw, "purchases")) | set(_ids(raw, "offers"))
    rows = [p for p in cat.purchases if p.id in mine] + [o for o in cat.offers if o.id in mine]
    assert rows
    for r in rows:
        for v in r.price_cny.values:
            assert v.value > 0, r.id
        if r.price_cny_max is not None:
            assert r.price_cny_max.value >= r.price_cny.value, r.id


def test_each_purchase_names_a_device_and_a_card_count(raw: dict[str, Any], cat: Catalog) -> None:
    mine = set(_ids(raw, "purchases"))
    acc = {a.id for a in cat.accelerators}
    for p in (p for p in cat.purchases if p.id in mine):
        assert p.device in acc, p.id
        assert p.cards >= 1, p.id
        if p.item == "card":
            assert p.cards == 1, p.id


def test_every_offer_has_a_region(raw: dict[str, Any], cat: Catalog) -> None:
    mine = set(_ids(raw, "offers"))
    for o in (o for o in cat.offers if o.id in mine):
        assert o.region, o.id


def test_rows_cite_this_files_sources_or_the_fx_rate(raw: dict[str, Any]) -> None:
    own = set(_ids(raw, "sources"))
    for section in ("purchases", "offers"):
        for row in raw[section]:
            assert row["source"] in own, row["id"]
            for key in ("price_cny", "price_cny_max"):
                vals = row.get(key)
                for v in vals if isinstance(vals, list) else [vals] if vals else []:
                    assert v["source"] in own | {FX_SOURCE}, (row["id"], key)


def test_usd_prices_state_the_original_and_the_cited_rate(raw: dict[str, Any], cat: Catalog) -> None:
    mine = set(_ids(raw, "purchases")) | set(_ids(raw, "offers"))
    rows = [p for p in cat.purchases if p.id in mine] + [o for o in cat.offers if o.id in mine]
    converted = 0
    for r in rows:
        for alt in (r.price_cny, r.price_cny_max):
            for v in alt.values if alt is not None else ():
                if "$" not in (v.note or ""):
                    continue
                m = _USD.search(v.note or "")
                assert m, f"{r.id}: 'original $X per ...; converted at R CNY/USD' expected"
                assert FX_SOURCE in (v.note or ""), r.id
                usd, rate = float(m.group(1).replace(",", "")), float(m.group(2))
                assert v.value == pytest.approx(usd * rate, abs=0.01), r.id
                converted += 1
    assert converted >= 3


@pytest.mark.parametrize("device", ["h100-sxm", "h20", "ascend-910b"])
def test_rent_vs_buy_has_a_card_a_server_and_an_hourly_rent(cat: Catalog, device: str) -> None:
    # `suanli rent-vs-buy` needs a card purchase (and uses a server's price for the rest of the machine).
    items = {p.item for p in cat.purchases if p.device == device}
    assert {"card", "server"} <= items, device
    assert hourly_card_price(cat, device, "any", ("listing", "index", "reference")) is not None, device


def test_the_first_h100_server_is_the_china_market_quote(cat: Catalog) -> None:
    # rent-vs-buy takes the first server row; offers-2.yaml loads before offers.yaml on purpose.
    first = next(p for p in cat.purchases if p.device == "h100-sxm" and p.item == "server")
    assert first.id == "px-huxiu-h100-hgx-server-2024-07"
    assert first.cards == 8 and first.price_cny.value == 2_700_000


def test_the_seed_4090_purchase_stays_first(cat: Catalog) -> None:
    first = next(p for p in cat.purchases if p.device == "rtx-4090" and p.item == "card")
    assert first.source == "seed-000" and first.price_cny.value == 13_000
