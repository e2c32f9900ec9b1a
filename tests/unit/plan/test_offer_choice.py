"""Issue 11 buyer review: which offer a configuration is priced on (the objective decides; fresh prices first),
a serving plan's time to first serve, and YAML imports sourcing `inter_node_gbit_per_s` as CSV ones do."""

from __future__ import annotations

import datetime as dt

import pytest

from suanli.catalog import lookup
from suanli.catalog.offers import DEFAULT_STALE_MONTHS, is_stale, offer_age_months
from suanli.catalog.schema import Catalog, Offer
from suanli.estimate.memory import weights_bytes
from suanli.estimate.setup import download_hours, job_setup, serve_setup_hours
from suanli.plan.cost import job_cost
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.store.importer import parse_offers
from suanli.units import GB, HOURS_PER_MONTH

ALL = dict(region="any", offer_kinds=("listing", "index", "reference"))
TODAY = dt.date(2026, 12, 1)


def _with_offers(cat: Catalog, device: str, *offers: Offer) -> Catalog:
    return cat.model_copy(update={"offers": tuple(o for o in cat.offers if o.device != device) + offers})


def _hourly_4090(cat: Catalog) -> Offer:
    return next(o for o in cat.offers if o.id == "ninehills-autodl-rtx4090-hour")


def _twin(o: Offer, oid: str, price: float, mbit: float | None, date: str = "2026-11-01") -> Offer:
    raw = o.model_dump()
    raw.update(id=oid, price_cny={"values": ({"value": price, "source": o.source},)}, price_cny_max=None, date=date,
               public_network_mbit_per_s=None if mbit is None else {"values": ({"value": mbit, "source": o.source},)})
    return Offer.model_validate(raw)


# ------------------------------------------------------------------------------------- 1. offer choice by objective


def test_fastest_picks_the_offer_that_finishes_soonest_cheapest_the_cheapest(cat) -> None:  # type: ignore[no-untyped-def]
    """Same configuration, two 4090 offers: 10 % cheaper on 10 Mbit/s public network (~4 h more to download a
    7B checkpoint), or dearer at 10 Gbit/s. On a long job the slow one costs less: cheapest takes it, fastest
    takes the one that is done ~4 h sooner."""
    base = _hourly_4090(cat)
    c = _with_offers(cat, "rtx-4090", _twin(base, "cheap-slow", 1.8, 10), _twin(base, "dear-fast", 2.0, 10_000))
    m = lookup.model(c, "qwen2.5-7b")
    kw = dict(model="qwen2.5-7b", task="lora", tokens=3e8, devices=("rtx-4090",), gpus=1, **ALL)
    cheap = plan(c, m, make_request(objective="cheapest", **kw), TODAY).plans[0]
    fast = plan(c, m, make_request(objective="fastest", **kw), TODAY).plans[0]
    assert cheap.offer == "cheap-slow" and fast.offer == "dear-fast"
    assert fast.hours < cheap.hours - 3 and fast.cost_cny > cheap.cost_cny
    assert fast.compute_hours == pytest.approx(cheap.compute_hours)


def test_fastest_breaks_a_tie_in_time_by_cost(cat) -> None:  # type: ignore[no-untyped-def]
    base = _hourly_4090(cat)
    c = _with_offers(cat, "rtx-4090", _twin(base, "dear", 2.2, 1000), _twin(base, "cheap", 1.9, 1000))
    r = plan(c, lookup.model(c, "qwen2.5-7b"), make_request(model="qwen2.5-7b", task="lora", tokens=1e7,
                                                             devices=("rtx-4090",), objective="fastest", **ALL), TODAY)
    assert r.plans[0].offer == "cheap"


def test_fastest_within_budget_takes_the_fastest_offer_the_budget_pays_for(cat) -> None:  # type: ignore[no-untyped-def]
    base = _hourly_4090(cat)
    c = _with_offers(cat, "rtx-4090", _twin(base, "cheap-slow", 1.8, 10), _twin(base, "dear-fast", 2.0, 10_000))
    m = lookup.model(c, "qwen2.5-7b")
    kw = dict(model="qwen2.5-7b", task="lora", tokens=3e8, devices=("rtx-4090",), gpus=1, **ALL)
    costs = {p.offer: p.cost_cny for p in (plan(c, m, make_request(objective=o, **kw), TODAY).plans[0]
                                          for o in ("cheapest", "fastest"))}
    between = (costs["cheap-slow"] + costs["dear-fast"]) / 2
    r = plan(c, m, make_request(objective="fastest-within-budget", budget_cny=between, **kw), TODAY)
    assert r.plans and r.plans[0].offer == "cheap-slow"  # the fast offer is over budget, the slow one is not
    r2 = plan(c, m, make_request(objective="fastest-within-budget", budget_cny=costs["dear-fast"] * 1.01, **kw), TODAY)
    assert r2.plans[0].offer == "dear-fast"


# ------------------------------------------------------------------------------------------------- 2. stale prices


def test_a_fresh_listing_beats_a_cheaper_stale_one(cat) -> None:  # type: ignore[no-untyped-def]
    """The buyer's case: 星海 ¥1.78/h dated 2024-09 (26 months old) against a fresh ¥2/h listing: the fresh one
    prices the plan, with no staleness warning; the explanation says how stale prices are used."""
    stale = next(o for o in cat.offers if o.id == "xinghai-rtx4090-hour")
    assert offer_age_months(stale, TODAY) > 24 and is_stale(stale, TODAY)
    fresh = _twin(_hourly_4090(cat), "fresh-2", 2.0, None, "2026-10-01")
    assert not is_stale(fresh, TODAY)
    c = _with_offers(cat, "rtx-4090", stale, fresh)
    for objective in ("cheapest", "fastest", "best-value"):
        r = plan(c, lookup.model(c, "qwen2.5-7b"), make_request(model="qwen2.5-7b", task="lora", tokens=1e8,
                                                                 devices=("rtx-4090",), objective=objective), TODAY)
        p = r.plans[0]
        assert p.offer == "fresh-2", objective
        assert not any(w["id"] == "plan.warn.stale" for w in p.warnings_i18n)
        assert any(a["id"] == "plan.assume.fresh" for a in r.assumptions_i18n)
        assert any("older than 12 months" in a for a in r.assumptions)


def test_a_stale_price_is_used_when_no_fresh_one_exists_and_warns(cat) -> None:  # type: ignore[no-untyped-def]
    stale = next(o for o in cat.offers if o.id == "xinghai-rtx4090-hour")
    c = _with_offers(cat, "rtx-4090", stale)
    p = plan(c, lookup.model(c, "qwen2.5-7b"), make_request(model="qwen2.5-7b", task="lora", tokens=1e8,
                                                             devices=("rtx-4090",)), TODAY).plans[0]
    assert p.offer == stale.id
    assert [w["id"] for w in p.warnings_i18n].count("plan.warn.stale") == 1


def test_the_threshold_is_the_request_s(cat) -> None:  # type: ignore[no-untyped-def]
    """stale_months (default 12, as `suanli offers --stale-months`): at 30 months the 26-month-old ¥1.78 counts
    as fresh and, cheaper, wins again, without a warning."""
    stale = next(o for o in cat.offers if o.id == "xinghai-rtx4090-hour")
    fresh = _twin(_hourly_4090(cat), "fresh-2", 2.0, None, "2026-10-01")
    c = _with_offers(cat, "rtx-4090", stale, fresh)
    assert make_request(model="qwen2.5-7b", tokens=1e8).stale_months == DEFAULT_STALE_MONTHS
    p = plan(c, lookup.model(c, "qwen2.5-7b"), make_request(model="qwen2.5-7b", task="lora", tokens=1e8,
                                                             devices=("rtx-4090",), stale_months=30), TODAY).plans[0]
    assert p.offer == stale.id and not any(w["id"] == "plan.warn.stale" for w in p.warnings_i18n)


def test_a_stale_offer_still_prices_what_no_fresh_one_can_rent(cat) -> None:  # type: ignore[no-untyped-def]
    """Per configuration: a fresh single-card VM cannot hold a 4-card job; the stale multi-card listing can."""
    multi = _twin(_hourly_4090(cat), "old-multi", 2.0, None, "2024-01-01")  # AutoDL: N cards of one host
    single = Offer.model_validate({**_twin(_hourly_4090(cat), "new-single", 2.5, None, "2026-11-01").model_dump(),
                                   "multi_card_instance": False, "max_cards_per_order": 1})
    c = _with_offers(cat, "rtx-4090", multi, single)
    r = plan(c, lookup.model(c, "qwen2.5-7b"), make_request(model="qwen2.5-7b", task="lora", tokens=1e8,
                                                             devices=("rtx-4090",), gpus=4), TODAY)
    assert r.plans and r.plans[0].offer == "old-multi"
    r1 = plan(c, lookup.model(c, "qwen2.5-7b"), make_request(model="qwen2.5-7b", task="lora", tokens=1e8,
                                                              devices=("rtx-4090",), gpus=1), TODAY)
    assert r1.plans[0].offer == "new-single"  # both rent one card: the fresh price, though dearer


# ------------------------------------------------------------------------------------------ 3. serving: first serve


def _serve(cat: Catalog, **kw):  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    return plan(cat, m, make_request(model="qwen2.5-7b", task="inference", requests_per_s=2, **{**ALL, **kw}), TODAY)


def test_serving_plans_state_the_time_to_first_serve(cat) -> None:  # type: ignore[no-untyped-def]
    r = _serve(cat)
    assert r.plans
    s = job_setup(cat)
    assert s.weight_load_gb_per_s is not None
    m = lookup.model(cat, "qwen2.5-7b")
    for p in r.plans:
        size = weights_bytes(m, p.precision)
        want = (s.environment_minutes.value / 60 + download_hours(size, p.download_gbit_per_s or 1.0)
                + size / (s.weight_load_gb_per_s.value * GB) / 3600)
        assert p.first_serve_hours == pytest.approx(want, rel=1e-9)
        assert p.first_serve_hours > 0.1
        # no horizon (the assumed 30-day month): the set-up is stated, not billed
        assert p.hours == pytest.approx(HOURS_PER_MONTH) and p.setup_hours == 0
        offer = next(o for o in cat.offers if o.id == p.offer)
        assert job_cost(offer, p.gpus, HOURS_PER_MONTH).cost_cny == pytest.approx(p.cost_cny, rel=1e-12)
        assert "first serve" in p.reason
    got = serve_setup_hours(s, weights_bytes(m, "bf16"), float("nan"))
    assert got["total_h"] == pytest.approx(got["environment_h"] + got["download_h"] + got["load_h"])


def test_first_serve_leaves_the_no_horizon_ranking_alone(cat) -> None:  # type: ignore[no-untyped-def]
    """A slow-network offer makes first serve later but, with no serving period given, costs the same per
    hour: the cheapest ranking is unchanged. Fastest serving at a rate is the lowest latency, which the offer does not
    change, so it takes the cheaper offer too (buyer review 2026-12-01; it took the offer that serves first); a
    serving job (tokens to generate) is still done soonest on the fast line."""
    base = _hourly_4090(cat)
    c = _with_offers(cat, "rtx-4090", _twin(base, "cheap-slow", 1.8, 10), _twin(base, "dear-fast", 2.0, 10_000))
    cheap = _serve(c, devices=("rtx-4090",)).plans[0]
    fast = _serve(c, devices=("rtx-4090",), objective="fastest").plans[0]
    assert cheap.offer == "cheap-slow" and fast.offer == "cheap-slow"
    assert cheap.first_serve_hours is not None and fast.first_serve_hours is not None
    m = lookup.model(c, "qwen2.5-7b")
    job = plan(c, m, make_request(model="qwen2.5-7b", task="inference", tokens=1e8, devices=("rtx-4090",),
                                  objective="fastest", **ALL), TODAY).plans[0]
    assert job.offer == "dear-fast"


def test_a_serving_horizon_bills_the_set_up(cat) -> None:  # type: ignore[no-untyped-def]
    """A stated serving period is the rental: set-up takes its start (buyer's review 2026-12-01), so both offers
    bill the 6 h; the slow line serves ~4 h less of it. Fastest serving a period ranks by latency, which the offer
    does not change, so it takes the cheaper offer as cheapest does (buyer review 2026-12-01)."""
    base = _hourly_4090(cat)
    c = _with_offers(cat, "rtx-4090", _twin(base, "cheap-slow", 1.8, 10), _twin(base, "dear-fast", 2.0, 10_000))
    p = _serve(c, devices=("rtx-4090",), hours=6).plans[0]
    assert p.setup_hours == pytest.approx(p.first_serve_hours) and p.hours == 6
    assert p.compute_hours == pytest.approx(6 - p.setup_hours)
    offer = next(o for o in c.offers if o.id == p.offer)
    assert job_cost(offer, p.gpus, p.hours).cost_cny == pytest.approx(p.cost_cny, rel=1e-12)
    assert p.offer == "cheap-slow" and p.setup_hours > 3  # the same 6 h, cheaper; its download eats the period
    f = _serve(c, devices=("rtx-4090",), hours=6, objective="fastest").plans[0]
    assert f.offer == "cheap-slow" and f.hours == 6 and f.setup_hours > 1  # its own (lowest-TPOT) layout's download


# ------------------------------------------------------------------------------------- 4. import: inter-node network

_ROW = dict(id="y-a100", provider="Y", device="a100-80g", cards=8, billing_unit="hour", scope="node",
            inter_node_network="roce", price_cny=60, inter_node_gbit_per_s=200, public_network_mbit_per_s=100,
            date="2026-05-01", source="y")


@pytest.mark.parametrize("fmt", ["csv", "yaml"])
def test_import_sources_plain_network_figures_in_both_formats(cat, fmt: str) -> None:  # type: ignore[no-untyped-def]
    if fmt == "csv":
        text = ",".join(_ROW) + "\n" + ",".join(str(v) for v in _ROW.values()) + "\n"
    else:
        text = "offers:\n  - {" + ", ".join(f"{k}: {v}" for k, v in _ROW.items()) + "}\n"
    o = parse_offers(text, f"n.{fmt}", cat, force=True).offers[0]
    assert o.inter_node_gbit_per_s is not None and o.inter_node_gbit_per_s.value == 200
    assert o.inter_node_gbit_per_s.chosen.source == "y"
    assert o.public_network_mbit_per_s is not None and o.public_network_mbit_per_s.chosen.source == "y"
    assert o.price_cny.value == 60 and o.price_cny.chosen.source == "y"
