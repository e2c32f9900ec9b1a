"""Billing edge cases: rounding at unit boundaries, minimum rental, whole-machine offers; TCO formulas."""

from __future__ import annotations

import pytest

from suanli.catalog.schema import Offer
from suanli.errors import InputError
from suanli.catalog.load import packaged_assumptions
from suanli.plan.cost import RentVsBuy, cost_per_million_tokens, job_cost, migration_tco, rent_vs_buy
from suanli.units import HOURS_PER_MONTH


def _rvb(rent: float, card_cny: float, server_share_cny: float = 0.0, tdp_w: float = 0.0,
         utilization: float = 0.5) -> RentVsBuy:
    """rent_vs_buy with the catalog's assumed PUE, electricity price and amortisation years (the CLI's defaults)."""
    a = packaged_assumptions()
    return rent_vs_buy(rent, card_cny, server_share_cny, tdp_w, a.pue.value, a.electricity_cny_per_kwh.value, 0.0,
                       a.amortization_years.value, utilization)


def _offer(unit: str, price: float, cards: int = 1, min_units: int = 1, whole: bool = False) -> Offer:
    return Offer.model_validate({
        "id": "t", "provider": "p", "device": "rtx-4090", "cards": cards, "billing_unit": unit,
        "price_cny": {"value": price, "source": "seed-000"}, "min_units": min_units,
        "whole_machine_only": whole, "date": "2026-07", "source": "seed-000",
    })


def test_hourly_rounds_up_at_the_boundary() -> None:
    o = _offer("hour", 2.45)
    assert job_cost(o, 1, 1.0).units_billed == 1
    assert job_cost(o, 1, 1.0000001).units_billed == 2
    assert job_cost(o, 1, 10.0).cost_cny == pytest.approx(24.5)


def test_monthly_billing_for_a_40_hour_job_costs_a_month() -> None:
    o = _offer("month", 7920, cards=8)
    c = job_cost(o, 8, 40)
    assert c.units_billed == 1 and c.cost_cny == 7920
    assert job_cost(o, 8, HOURS_PER_MONTH).units_billed == 1
    assert job_cost(o, 8, HOURS_PER_MONTH + 1).units_billed == 2


def test_minimum_rental() -> None:
    o = _offer("day", 100, min_units=7)
    assert job_cost(o, 1, 5).units_billed == 7
    assert job_cost(o, 1, 24 * 8).units_billed == 8


def test_whole_machine_rents_whole_machines() -> None:
    o = _offer("month", 84480, cards=8, whole=True)
    c = job_cost(o, 12, 100)
    assert c.instances == 2 and c.cards_rented == 16 and c.idle_cards == 4
    assert c.cost_cny == 2 * 84480
    assert any("whole-machine" in n for n in c.notes)


def test_subsidy_and_bad_input() -> None:
    o = _offer("hour", 10)
    assert job_cost(o, 1, 1, subsidy=0.3).cost_cny == pytest.approx(7)
    with pytest.raises(InputError, match="subsidy"):
        job_cost(o, 1, 1, subsidy=1.5)
    with pytest.raises(InputError, match="hours"):
        job_cost(o, 1, -1)


def test_rent_vs_buy_reproduces_the_seed_year() -> None:
    r = _rvb(2.45, card_cny=13_000, server_share_cny=0, utilization=1.0)
    assert r.rent_cny_per_year_full_use == pytest.approx(2.45 * 24 * 365)  # seed-000 FAQ: ≈ ¥21k
    assert round(r.rent_cny_per_year_full_use, -3) == 21_000
    low = _rvb(2.45, card_cny=13_000, server_share_cny=35_000, tdp_w=450, utilization=0.3)
    assert low.cheaper == "rent"


def test_migration_tco_reproduces_the_seed_example() -> None:
    # seed-000 §4: ¥100k a month, ¥60k saved, 2 people × 2 weeks — worth it
    t = migration_tco(100_000, 60_000, (2, 2), engineers=2, cost_per_engineer_week_cny=10_000)
    assert t.one_off_cost_cny == (40_000, 40_000)
    assert t.payback_months == pytest.approx((2 / 3, 2 / 3))
    assert "worth it" in t.verdict
    with pytest.raises(InputError):
        migration_tco(10, 20, (1, 2), 2, 10_000)


def test_cost_per_million_tokens() -> None:
    assert cost_per_million_tokens(3.6, 1000) == pytest.approx(1.0)
    assert cost_per_million_tokens(3.6, 1000, utilization=0.5) == pytest.approx(2.0)


def test_migration_cost_rents_for_the_horizon_so_a_minimum_term_is_spread() -> None:
    """`migrate cost` compares an ongoing monthly spend: an offer with a one-year minimum costs its monthly price
    per month over a 12-month horizon, and its whole year only when the horizon is one month."""
    from suanli.catalog import lookup
    from suanli.catalog.load import packaged_catalog
    from suanli.plan.compare import migration_cost

    cat = packaged_catalog()
    h100 = next(o for o in cat.offers if o.device == "h100-sxm" and o.billing_unit == "month" and o.min_units == 12
                and o.cards == 8)
    others = tuple(o for o in cat.offers if o.device != "h100-sxm" or o.id == h100.id)
    cat = cat.model_copy(update={"offers": others})
    m = lookup.model(cat, "qwen2.5-14b")
    kw = dict(region="any", kinds=("listing", "index", "reference"))
    year = migration_cost(cat, m, "ascend-910b", "h100-sxm", horizon_months=12, **kw)  # type: ignore[arg-type]
    assert year["derived"]["h100-sxm"]["offer"] == h100.id
    assert year["derived"]["h100-sxm"]["cny_per_card_hour"] == pytest.approx(h100.price_cny.value / (8 * HOURS_PER_MONTH), rel=1e-9)
    month = migration_cost(cat, m, "ascend-910b", "h100-sxm", horizon_months=1, **kw)  # type: ignore[arg-type]
    assert month["derived"]["h100-sxm"]["cny_per_card_hour"] == pytest.approx(
        12 * year["derived"]["h100-sxm"]["cny_per_card_hour"], rel=1e-9)


def test_card_hour_price_prefers_hourly_billing_else_full_use_of_a_longer_unit() -> None:
    """One rule for compare, TFLOPS per yuan and rent-vs-buy: an hourly offer's one card-hour; without one, the
    cheapest offer's price ÷ cards ÷ hours of its unit, naming the unit."""
    from suanli.catalog.load import packaged_catalog
    from suanli.plan.compare import card_hour_offer, value_table

    cat = packaged_catalog()
    monthly = next(o for o in cat.offers if o.kind == "listing" and o.billing_unit == "month" and o.cards == 8
                   and o.region == "cn")
    only = cat.model_copy(update={"offers": tuple(o for o in cat.offers if o.device != monthly.device) + (monthly,)})
    price, offer = card_hour_offer(only, monthly.device, "cn", ("listing",)) or (None, None)
    assert offer is monthly and price == pytest.approx(monthly.price_cny.value / 8 / HOURS_PER_MONTH, rel=1e-12)
    row = next(r for r in value_table(only, region="cn", kinds=("listing",)) if r["device"] == monthly.device)
    assert row["card_hour_billing_unit"] == "month" and row["cny_per_card_hour"] == pytest.approx(price)
    hourly = next(o for o in cat.offers if o.kind == "listing" and o.billing_unit == "hour" and o.cards == 1
                  and o.region == "cn")
    both = only.model_copy(update={"offers": (*only.offers, hourly.model_copy(update={"device": monthly.device}))})
    p2, o2 = card_hour_offer(both, monthly.device, "cn", ("listing",)) or (None, None)
    assert o2 is not None and o2.billing_unit == "hour" and p2 == pytest.approx(hourly.price_cny.value)


def test_rent_vs_buy_says_when_buying_never_pays_off() -> None:
    """A blank break-even hid the answer (910B: renting ¥22.8k a year, owning ¥65.7k even at full use)."""
    pays = _rvb(10.0, card_cny=75_000, tdp_w=350)
    assert pays.break_even_utilization is not None and pays.break_even_note.startswith("buying pays off above")
    never = _rvb(2.57, card_cny=120_000, server_share_cny=67_500, tdp_w=350)
    assert never.break_even_utilization is None and never.cheaper == "rent"
    assert never.break_even_note.startswith("buying never pays off at any use: even at full use owning costs")
    power = _rvb(0.1, card_cny=1_000, tdp_w=1_000)  # the electricity alone costs more than renting
    assert power.break_even_utilization is None and "power alone" in power.break_even_note


def test_a_year_of_renting_is_priced_from_the_cheapest_bill_for_8760_hours() -> None:
    """rent-vs-buy's year (a buyer's review): any billing unit through job_cost, so the L20's ¥7,545/month (¥90,540
    for 12 bills) beats its ¥15.72/h (¥137,707); monthly billing counts 12 calendar months, not 13 of 30 days; an
    8-card offer rents its instance and splits the bill per card."""
    from suanli.catalog.load import packaged_catalog
    from suanli.plan.compare import rent_for

    cat = packaged_catalog()
    got = rent_for(cat, "l20", region="cn", kinds=("listing",))
    assert got is not None
    per_h, o, bill = got
    assert o.billing_unit == "month" and bill.units_billed == 12
    assert bill.cost_cny == pytest.approx(12 * o.price_cny.value) and per_h == pytest.approx(bill.cost_cny / 8760)
    hourly = [x for x in cat.offers if x.device == "l20" and x.billing_unit == "hour" and x.region in (None, "cn")]
    assert hourly and all(per_h < x.price_cny.value for x in hourly)
    per_h8, o8, bill8 = rent_for(cat, "ascend-910b", region="cn", kinds=("listing",)) or (0.0, None, None)
    assert o8 is not None and bill8 is not None and o8.cards == 8 and bill8.cards_rented == 8
    assert per_h8 == pytest.approx(12 * o8.price_cny.value / 8 / 8760)
    assert rent_for(cat, "h20-141g", region="cn", kinds=("listing",)) is None  # only index figures: the caller says so


# ------------------------------------------------------------------------------- one billing-rounding rule (review)


def test_billing_note_is_one_rule_on_the_paid_share_left_unused() -> None:
    from suanli.plan.cost import billing_note
    month = _offer("month", 15000, cards=8)
    n = billing_note(month, 800.0)  # 2 months = 1,460 h paid, 660 h (45 %) unused
    assert n is not None and n.id == "cost.note.billed" and n.params["units"] == 2
    assert n.params["billed_h"] == pytest.approx(2 * HOURS_PER_MONTH)
    assert billing_note(month, 1000.0) is None  # 460 of 1,460 h unused: under a third
    assert billing_note(_offer("hour", 2.45), 0.3) is None  # 0.7 h unused: under an hour
    assert billing_note(_offer("day", 100), 1.0) is not None  # 23 of 24 h unused
    term = billing_note(_offer("day", 100, min_units=7), 24 * 2.0)
    assert term is not None and term.id == "cost.note.min_units" and term.params["billed_h"] == 7 * 24
    # two days rounded up on a 2-day minimum: rounding, not the term, sets the units
    two = billing_note(_offer("day", 100, min_units=2), 25.0)
    assert two is not None and two.id == "cost.note.billed"


def test_plan_and_job_cost_say_the_same_billing_note(cat) -> None:  # type: ignore[no-untyped-def]
    """Review: job_cost(omniyq-910b-8card-month, 8, 800) said 'billed 2 month(s) = 1,460 h for a 800.0 h job' while a
    plan on the same offer for 800 h (or 400 h) said nothing: the planner warned only under half a unit used and
    quoted one unit's hours."""
    from suanli.catalog import lookup
    from suanli.plan.request import make_request
    from suanli.plan.search import plan
    o = next(o for o in cat.offers if o.id == "omniyq-910b-8card-month")
    for hours in (800.0, 400.0):
        r = plan(cat, lookup.model(cat, "qwen2.5-7b"),
                 make_request(model="qwen2.5-7b", task="inference", requests_per_s=1, hours=hours,
                              devices=("ascend-910b",), gpus=8, top=20))
        p = next(p for p in r.plans if p.offer == o.id)
        note = job_cost(o, 8, hours).notes_i18n
        assert len(note) == 1 and note[0] in p.warnings_i18n, (hours, p.warnings_i18n)
        months = int(-(-hours // HOURS_PER_MONTH))  # 2 months for 800 h, 1 month for 400 h
        assert f"billed {months} {'month' if months == 1 else 'months'} = " in " ".join(p.warnings)
