"""Data checks for offers-7.yaml: a dated Chinese rental listing for the NVIDIA H20 96GB (task M, 2026-12-02).

The row is pinned to the words of the file that quotes it; rows are read from the file itself and then looked up in
the loaded catalog. Before this file a default plan in region cn (listings only) could not price the H20.
"""

from __future__ import annotations

from typing import Any

from offer_pins import assert_pinned  # tests/offer_pins.py: the one pin check

from suanli.catalog.load import DATA_DIR
from suanli.catalog.offers import can_span_nodes, unpriced_reason
from suanli.catalog.schema import Catalog, Offer

FILE = DATA_DIR / "offers-7.yaml"

# id -> (device, cards, billing unit, price ¥, date, words the price's note must quote)
PINNED: dict[str, tuple[str, int, str, float, str, str]] = {
    "autodl-h20-hour-2026-08": ("h20", 1, "hour", 7.58, "2026-08-19", "'H20 96GB `¥7.58/h`'"),
}


def test_only_offers_and_own_sources(raw: dict[str, Any]) -> None:
    assert set(raw) == {"sources", "offers"}  # no purchases: rent-vs-buy's first purchase per device stays put
    own = {s["id"] for s in raw["sources"]}
    for row in raw["offers"]:
        assert row["source"] in own and row["price_cny"]["source"] in own, row["id"]


def test_every_source_is_a_quoting_github_file(raw: dict[str, Any]) -> None:
    # second-hand: the cited file is a GitHub file (owner/repo:path) whose note quotes the platform's figures
    for s in raw["sources"]:
        assert ":" in s["url"] and not s["url"].startswith("http"), s["id"]
        assert str(s["date"]).startswith("2026-") and "'" in s["note"] and s["third_party"], s["id"]
    prices = next(s for s in raw["sources"] if s["id"] == "smarttopper-autodl-prices-2026-08")
    assert "H20 96GB `¥7.58/h`" in prices["note"] and "2026-08-19" in prices["note"]


def test_the_row_is_pinned_to_its_quote(mine: list[Offer]) -> None:
    assert_pinned(mine, PINNED)



def test_a_second_hand_chinese_listing_on_the_platform_site(mine: list[Offer]) -> None:
    (o,) = mine
    assert (o.kind, o.region, o.provider, o.url) == ("listing", "cn", "AutoDL", "https://www.autodl.com/")
    assert o.second_hand and "second-hand" in (o.note or "") and o.note_zh
    # AutoDL names the card 'H20-NVLink' (the SXM part): N cards of one host per instance, as its 4090 rows
    assert o.multi_card_instance and not can_span_nodes(o)
    # the older member price (会员价，约 9.5 折) is quoted as corroboration, not entered as a second price
    assert "¥6.98" in (o.note or "") and "not entered" in (o.note or "")


def test_no_duplicate_of_an_existing_row(raw: dict[str, Any], cat: Catalog) -> None:
    mine_ids = {r["id"] for r in raw["offers"]}
    others = {(o.provider, o.device, o.cards, o.billing_unit, o.price_cny.values[0].value, o.date)
              for o in cat.offers if o.id not in mine_ids}
    for o in (o for o in cat.offers if o.id in mine_ids):
        assert (o.provider, o.device, o.cards, o.billing_unit, o.price_cny.values[0].value, o.date) not in others


def test_the_h20_is_rentable_at_listing_prices_now(cat: Catalog) -> None:
    # the reason for this file: without it the H20's only Chinese figures were index rows (优云智算, SMM 141 GB)
    listed = [o for o in cat.offers if o.device == "h20" and o.kind == "listing" and o.region == "cn"]
    assert [o.id for o in listed] == ["autodl-h20-hour-2026-08"]
    assert unpriced_reason(cat, "h20", offers=listed) is None
    note = unpriced_reason(cat, "h20") or ""
    assert "AutoDL" in note and "¥7.58" in note  # the searched note says what was found, not 'no product page'
    assert not [o for o in cat.offers if o.device == "h20-141g" and o.kind == "listing"]  # the 141 GB part: index only
