"""Data checks for offers-3.yaml: Chinese platform listings and SMM market quotes (issue 11 items 3-4).

Rows are read from the file itself and then looked up in the loaded catalog.
"""

from __future__ import annotations

from typing import Any


from suanli.catalog.load import DATA_DIR
from suanli.catalog.offers import can_span_nodes
from suanli.catalog.schema import Offer

FILE = DATA_DIR / "offers-3.yaml"


def test_only_offers_and_own_sources(raw: dict[str, Any]) -> None:
    # no purchases: rent-vs-buy takes the first purchase per device, which stays in offers-2.yaml / offers.yaml
    assert set(raw) == {"sources", "offers"}
    own = {s["id"] for s in raw["sources"]}
    for row in raw["offers"]:
        assert row["source"] in own, row["id"]
        for key in ("price_cny", "price_cny_max"):
            if row.get(key):
                assert row[key]["source"] in own, (row["id"], key)
                assert key == "price_cny_max" or "'" in row[key]["note"], f"{row['id']}: quote the source's words"


def test_every_offer_is_chinese_dated_and_has_its_page(mine: list[Offer]) -> None:
    for o in mine:
        assert o.region == "cn", o.id
        assert o.url and o.url.startswith("https://"), o.id
        assert o.date.startswith("2026-"), o.id


def test_kinds_follow_the_issue_definitions(mine: list[Offer]) -> None:
    # a named platform's own price page is a listing; SMM's feed quotes unnamed providers, so it is an index
    for o in mine:
        if o.provider.startswith("SMM"):
            assert o.kind == "index", o.id
        else:
            assert o.kind == "listing", o.id
    assert {o.device for o in mine if o.kind == "listing"} >= {"ascend-910b", "h800", "a100-80g", "l20", "l40s"}


def test_910b_variants_only_where_the_quote_names_them(mine: list[Offer]) -> None:
    for o in mine:
        if o.device.startswith("ascend-910b") and o.device != "ascend-910b":
            variant = o.device.removeprefix("ascend-").upper()
            assert variant in " ".join(v.note or "" for v in o.price_cny.values).upper(), o.id
        if o.device == "ascend-910b":
            assert "variant" in (o.note or ""), o.id


def test_chinese_fabrics_are_index_clusters_with_their_size(mine: list[Offer]) -> None:
    spanning = [o for o in mine if can_span_nodes(o)]
    assert {(o.device, o.inter_node_network) for o in spanning} == {
        ("a100-80g", "infiniband"), ("h200", "infiniband"), ("h200", "roce")}
    for o in spanning:
        assert o.scope == "cluster" and o.kind == "index", o.id
        assert o.stock is not None and o.stock >= 16 * o.cards, o.id  # dozens of nodes published
        assert o.inter_node_gbit_per_s is None, f"{o.id}: no bandwidth was published"


def test_contract_minimums_are_kept(mine: list[Offer]) -> None:
    by_id = {o.id: o for o in mine}
    assert by_id["smm-h100-8card-month-2026-10"].min_units == 12  # '一年起租'
    assert by_id["smm-h200-ib-cluster-2026-10"].min_units == 60  # '五年闭口'
    assert by_id["smm-h200-roce-cluster-2026-10"].min_units == 60
