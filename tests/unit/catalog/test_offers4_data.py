"""Data checks for offers-4.yaml (issue 11 leftovers, searched 2026-12-01).

The search found no new Chinese listing (H100, H20, or a node/cluster with an inter-node network), so the file
holds no offer; it holds one public K100 card purchase. Rows are read from the file and looked up in the catalog.
"""

from __future__ import annotations

from typing import Any


from suanli.catalog.load import DATA_DIR
from suanli.catalog.schema import Catalog

FILE = DATA_DIR / "offers-4.yaml"


def test_no_offer_without_a_listing_and_only_own_sources(raw: dict[str, Any]) -> None:
    # nothing found met the listing bar, and no index/reference row was added in its place
    assert set(raw) == {"sources", "purchases"}
    own = {s["id"] for s in raw["sources"]}
    for row in raw["purchases"]:
        assert row["source"] in own, row["id"]
        assert row["price_cny"]["source"] in own, row["id"]


def test_k100_card_purchase_quotes_the_procurement_note(raw: dict[str, Any], cat: Catalog) -> None:
    (row,) = raw["purchases"]
    p = next(p for p in cat.purchases if p.id == row["id"])
    assert (p.item, p.device, p.cards) == ("card", "hygon-k100", 1)
    assert p.price_cny.value == 46000 and p.price_cny_max is None
    quote = p.price_cny.values[0].note or ""
    assert "海光 K100 64GB GPU 卡单价 4.6 万元" in quote and "jsj.nwpu.edu.cn" in quote
    src = cat.sources[p.source]
    assert src.url and src.url.startswith("Gavinzll/compute-market-report:")
    assert "4.6 万元" in (src.note or "") and "Second-hand" in (src.note or "")
    assert p.date == "2026-10-10"


def test_the_k100_is_still_unpriced_for_rent(cat: Catalog) -> None:
    # a purchase price does not make a rental offer: plans still leave the K100 out, with its unpriced note
    assert not [o for o in cat.offers if o.device == "hygon-k100"]
    assert any(u.device == "hygon-k100" for u in cat.unpriced)


def test_the_search_log_names_what_was_not_entered() -> None:
    text = FILE.read_text(encoding="utf-8")
    for seen in ("DOMESTIC_GPU_PRICE_ANCHORS", "腾讯云单卡30.48/时", "online.wangsu.com", "xiaoyueidc.com",
                 "DC100（Hopper）80G", "ebmgn8v", "BW1000"):
        assert seen in text, seen
