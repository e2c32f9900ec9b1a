"""Data checks for offers-5.yaml: the newest dated Chinese platform prices (issue 11, freshness).

Every row is pinned to the words of the file that quotes it; rows are read from the file itself and then looked up
in the loaded catalog.
"""

from __future__ import annotations

from typing import Any

from offer_pins import assert_pinned  # tests/offer_pins.py: the one pin check

from suanli.catalog.load import DATA_DIR
from suanli.catalog.offers import can_span_nodes
from suanli.catalog.schema import Catalog, Offer

FILE = DATA_DIR / "offers-5.yaml"

# id -> (device, cards, billing unit, price ¥, date, words the price's note must quote)
PINNED: dict[str, tuple[str, int, str, float, str, str]] = {
    "autodl-rtx4090-hour-2026-08": ("rtx-4090", 1, "hour", 1.88, "2026-08-13", "'RTX 4090 | 24GB | ¥1.88/h'"),
    "autodl-rtx3090-hour-2026-08": ("rtx-3090", 1, "hour", 1.32, "2026-08-13", "'RTX 3090 | 24GB | ¥1.32/h'"),
    "autodl-rtx5090-hour-2026-08": ("rtx-5090", 1, "hour", 2.78, "2026-08-13", "'RTX 5090 | 32GB | ¥2.78/h'"),
    "autodl-a800-80g-hour-2026-08": ("a800", 1, "hour", 4.98, "2026-08-13", "'A800-80GB | 80GB | ¥4.98/h'"),
    "autodl-h800-hour-2026-08": ("h800", 1, "hour", 8.88, "2026-08-13", "'H800 80GB | 80GB | ¥8.88/h'"),
    "gongji-rtx5090-hour-2026-08": ("rtx-5090", 1, "hour", 3.25, "2026-08-19", "按需价格 | 3.25 元/卡时"),
    "smm-rtx5090-8card-month-hubei-2026-09": ("rtx-5090", 8, "month", 14500, "2026-09-29", "湖北3台5090短租报价1.45万/台·月"),
}


def test_only_offers_and_own_sources(raw: dict[str, Any]) -> None:
    # no purchases: rent-vs-buy takes the first purchase per device, which stays where it is
    assert set(raw) == {"sources", "offers"}
    own = {s["id"] for s in raw["sources"]}
    for row in raw["offers"]:
        assert row["source"] in own, row["id"]
        assert row["price_cny"]["source"] in own, row["id"]
        assert "'" in row["price_cny"]["note"], f"{row['id']}: quote the source's words"


def test_every_source_says_where_it_was_read(raw: dict[str, Any]) -> None:
    # second-hand: the cited file is a GitHub file (owner/repo:path) whose note quotes the platform's figures
    for s in raw["sources"]:
        assert ":" in s["url"] and not s["url"].startswith("http"), s["id"]
        assert str(s["date"]).startswith("2026-"), s["id"]
        assert "'" in s["note"], s["id"]


def test_each_row_is_pinned_to_its_quote(mine: list[Offer]) -> None:
    assert_pinned(mine, PINNED)



def test_listings_are_chinese_dated_platform_pages(mine: list[Offer]) -> None:
    for o in mine:
        assert o.region == "cn", o.id
        assert o.url and o.url.startswith("https://"), o.id
        assert o.date.startswith("2026-"), o.id
        if o.provider.startswith("SMM"):
            assert o.kind == "index", o.id  # an unnamed provider's quote is never a listing
        else:
            assert o.kind == "listing", o.id
            assert "second-hand" in (o.note or ""), o.id


def test_no_duplicate_of_an_existing_row(raw: dict[str, Any], cat: Catalog) -> None:
    mine_ids = {r["id"] for r in raw["offers"]}
    others = {(o.provider, o.device, o.cards, o.billing_unit, o.price_cny.values[0].value, o.date)
              for o in cat.offers if o.id not in mine_ids}
    for o in (o for o in cat.offers if o.id in mine_ids):
        key = (o.provider, o.device, o.cards, o.billing_unit, o.price_cny.values[0].value, o.date)
        assert key not in others, o.id


def test_fresh_4090_listing_is_within_twelve_months(mine: list[Offer]) -> None:
    # the reason for this file: on 2026-12-01 the newest Chinese RTX 4090 listing was 2025-09-03 (stale)
    fresh = [o for o in mine if o.device == "rtx-4090" and o.kind == "listing"]
    assert fresh and all(o.date >= "2025-12-01" for o in fresh)


def test_card_rentals_only_combine_where_the_platform_says_so(mine: list[Offer]) -> None:
    by_id = {o.id: o for o in mine}
    # AutoDL puts N cards of one host in one instance (autodl-docs-env) for the consumer cards it lists per card
    for i in ("autodl-rtx4090-hour-2026-08", "autodl-rtx3090-hour-2026-08", "autodl-rtx5090-hour-2026-08"):
        assert by_id[i].multi_card_instance, i
    # the A800/H800 form factor is not stated: one card per instance, no job across an unpublished link
    for i in ("autodl-a800-80g-hour-2026-08", "autodl-h800-hour-2026-08", "gongji-rtx5090-hour-2026-08"):
        assert not by_id[i].multi_card_instance, i
    assert not any(can_span_nodes(o) for o in mine)
    hubei = by_id["smm-rtx5090-8card-month-hubei-2026-09"]
    assert hubei.min_units == 1 and hubei.stock == 24 and hubei.whole_machine_only  # '月租或最长半年', '3台…×8'
