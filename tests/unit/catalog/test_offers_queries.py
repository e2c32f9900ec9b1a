"""Offer queries (suanli.catalog.offers) and the offer schema of issue 11: kinds, scope, networks, freshness,
plausibility band."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from suanli.catalog import offers as q
from suanli.catalog.load import load_catalog
from suanli.catalog.schema import Catalog, Offer
from suanli.errors import InputError


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def _offer(**kw: Any) -> Offer:
    base: dict[str, Any] = {"id": "x", "provider": "P", "device": "h100-sxm", "cards": 1, "billing_unit": "hour",
                            "price_cny": {"value": 10.0, "source": "s"}, "date": "2026-11", "source": "s"}
    return Offer.model_validate(base | kw)


# ---------------------------------------------------------------- schema

def test_every_packaged_offer_states_its_kind_and_listings_have_a_page(cat: Catalog) -> None:
    import yaml

    from suanli.catalog.load import DATA_DIR

    for f in sorted(DATA_DIR.glob("offers*.yaml")):
        for raw in yaml.safe_load(f.read_text(encoding="utf-8")).get("offers", []):
            assert raw.get("kind") in ("listing", "index", "reference"), (f.name, raw["id"])
    for o in cat.offers:
        if o.kind == "listing":
            assert o.url or cat.sources[o.source].url, o.id


def test_issue_examples_are_classified(cat: Catalog) -> None:
    by_id = {o.id: o for o in cat.offers}
    assert by_id["deepseek-assumed-h800-hour"].kind == "reference"
    assert by_id["gpi-paperspace-h100-hour"].kind == "index"
    assert all(o.kind == "reference" for o in cat.offers if o.source in ("seed-000", "seed-003"))
    assert by_id["seed000-h100-8card-month"].scope == "node"
    assert by_id["seed000-h100-8card-month"].instance == "bare-metal"


def test_legacy_kind_is_read_as_instance() -> None:
    o = _offer(kind="bare-metal")
    assert (o.kind, o.instance) == ("listing", "bare-metal")


@pytest.mark.parametrize("kw, msg", [
    ({"inter_node_network": "roce"}, "needs scope node or cluster"),
    ({"scope": "cluster", "cards": 8}, "cluster offer needs its inter_node_network"),
    ({"scope": "node", "cards": 8, "inter_node_gbit_per_s": {"value": 400, "source": "s"}}, "needs an inter_node_network"),
    ({"cards": 8, "max_cards_per_order": 4}, "below cards per instance"),
    ({"kind": "rumour"}, "listing"),
    ({"inter_node_network": "ethernet", "scope": "node"}, "roce"),
])
def test_offer_validation_names_the_problem(kw: dict[str, Any], msg: str) -> None:
    with pytest.raises(ValidationError, match=msg):
        _offer(**kw)


def test_loader_rejects_a_listing_without_a_page(tmp_path: Any) -> None:
    from suanli.catalog.load import DATA_DIR, load_files
    from suanli.errors import DataFileError

    bad = tmp_path / "offers-bad.yaml"
    bad.write_text("sources:\n  - {id: nourl, title: t, kind: price-list, date: 2026}\noffers:\n"
                   "  - {id: bad-1, provider: P, device: rtx-4090, cards: 1, billing_unit: hour, kind: listing,\n"
                   "     price_cny: {value: 2, source: nourl}, date: 2026-11, source: nourl}\n", encoding="utf-8")
    with pytest.raises(DataFileError, match=r"bad-1.*url.*listing needs its page"):
        load_files([*DATA_DIR.glob("*.yaml"), bad])


# ---------------------------------------------------------------- region and kinds

def test_default_is_chinese_listings(cat: Catalog) -> None:
    got = q.usable_offers(cat)
    assert got and all(o.kind == "listing" and not q.is_international(o.region) for o in got)
    assert "gpi-paperspace-h100-hour" not in {o.id for o in got}
    intl = q.usable_offers(cat, region="international", kinds=("index",))
    assert {o.id for o in intl} >= {"gpi-paperspace-h100-hour"}
    every = q.usable_offers(cat, region="any", kinds=q.parse_kinds("all"))
    assert len(every) == len(cat.offers)


def test_filters_by_billing_and_device(cat: Catalog) -> None:
    got = q.usable_offers(cat, "any", ("listing", "index", "reference"), billing="month", device="ascend-910b")
    assert got and all(o.billing_unit == "month" and o.device == "ascend-910b" for o in got)


@pytest.mark.parametrize("bad", ["china", "eu", ""])
def test_region_errors_name_the_allowed_values(bad: str) -> None:
    if bad == "":
        assert q.parse_region(bad) == "cn"
        return
    with pytest.raises(InputError, match="cn, any, international"):
        q.parse_region(bad)


def test_parse_kinds() -> None:
    assert q.parse_kinds(None) == ("listing",)
    assert q.parse_kinds("listing,reference") == ("listing", "reference")
    assert q.parse_kinds(["index", "listing", "index"]) == ("index", "listing")
    assert q.parse_kinds("all") == ("listing", "index", "reference", "contract")
    with pytest.raises(InputError, match="offer-kinds.*'guess' is not one of listing, index, reference"):
        q.parse_kinds("listing,guess")


def test_is_international() -> None:
    assert not q.is_international(None)
    assert not q.is_international("cn-beijing")
    assert q.is_international("us-east-1") and q.is_international("international")


# ---------------------------------------------------------------- scope

def test_only_node_or_cluster_offers_with_a_fabric_span_nodes() -> None:
    assert not q.can_span_nodes(_offer())
    assert not q.can_span_nodes(_offer(scope="node", cards=8))
    ib = _offer(scope="node", cards=8, inter_node_network="infiniband",
                inter_node_gbit_per_s={"value": 3200, "source": "s"}, max_cards_per_order=64)
    assert q.can_span_nodes(ib)
    assert q.max_cards(ib, 8) == 64
    assert q.max_cards(_offer(scope="node", cards=8), 8) == 8
    assert q.max_cards(_offer(), 8) == 1  # a 1-card instance: separate VMs never form one job
    assert q.max_cards(_offer(multi_card_instance=True), 8) == 8  # N cards of one host (AutoDL)
    assert q.max_cards(_offer(multi_card_instance=True, stock=3), 8) == 3
    assert "InfiniBand 3,200 Gbit/s" in q.scope_label(ib)
    assert q.scope_label(_offer()) == "1 card"


# ---------------------------------------------------------------- freshness

def test_year_only_dates_are_read_at_their_oldest() -> None:
    assert q.offer_date(_offer(date="2026")) == dt.date(2026, 1, 1)
    assert q.offer_date(_offer(date="2026-07")) == dt.date(2026, 7, 1)


def test_stale_offers_and_warning(cat: Catalog) -> None:
    today = dt.date(2026, 11, 30)
    stale = q.stale_offers(cat.offers, today)
    ids = {o.id for o in stale}
    assert "deepseek-assumed-h800-hour" in ids and "seed000-rtx4090-hour" not in ids
    w = q.stale_warning(next(o for o in cat.offers if o.id == "xinghai-rtx4090-hour"), today)
    assert w is not None and "2024-09-29" in w and "26 months" in w
    assert q.stale_warning(_offer(date="2026-11"), today) is None
    assert len(q.stale_offers(cat.offers, today, months=1000)) == 0
    with pytest.raises(InputError, match="stale-months"):
        q.stale_offers(cat.offers, today, months=0)


# ---------------------------------------------------------------- plausibility band

def test_band_rejects_one_yuan_a_month_for_8_h800(cat: Catalog) -> None:
    one_yuan = _offer(device="h800", cards=8, billing_unit="month", price_cny={"value": 1.0, "source": "s"})
    band = q.plausibility_band(cat.offers, "h800", "month")
    assert band is not None and not band.contains(q.card_hour_price(one_yuan))
    assert "h800" in band.describe() and "1/5×" in band.describe()


def test_band_prefers_listings_of_the_same_unit(cat: Catalog) -> None:
    band = q.plausibility_band(cat.offers, "rtx-4090", "hour")
    assert band is not None and band.basis == "listings" and band.billing_unit == "hour"
    assert band.contains(2.0) and not band.contains(0.2)
    assert q.plausibility_band(cat.offers, "mlu590", "hour") is None


@given(st.floats(min_value=0.01, max_value=1000), st.floats(min_value=1.01, max_value=100))
def test_band_holds_its_median_and_excludes_beyond_the_factor(price: float, factor: float) -> None:
    rows = [_offer(id=f"o{i}", price_cny={"value": price, "source": "s"}) for i in range(3)]
    band = q.plausibility_band(rows, "h100-sxm", "hour", factor=factor)
    assert band is not None and band.contains(price)
    assert not band.contains(price * factor * 1.01) and not band.contains(price / factor / 1.01)


def test_unpriced_notes_cover_the_seeds_domestic_devices(cat: Catalog) -> None:
    for dev in ("ascend-910c", "hygon-k100", "mlu590", "metax-c500", "ascend-910b2"):
        assert "no public" in (q.unpriced_reason(cat, dev) or ""), dev
    assert q.unpriced_reason(cat, "rtx-4090") is None
