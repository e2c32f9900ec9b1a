"""Code-review findings 3, 4, 5, 9, 10: compare prices only what an offer can rent, on the hours plan bills; one
billing month (a year is 12 bills everywhere); cost assumptions as catalog data; one unit table, one hours rule."""

from __future__ import annotations

import math

import pytest

from suanli.api.schemas import MigrateBody, PlanBody
from suanli.catalog import lookup
from suanli.catalog import offers as offer_q
from suanli.catalog.load import packaged_assumptions
from suanli.estimate.estimate import estimate, job_hours
from suanli.estimate.workload import make_workload
from suanli.plan import cost as cost_mod
from suanli.plan.compare import compare_devices, migration_cost, rent_options
from suanli.plan.cost import cost_assumptions, job_cost
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.units import HOURS_PER_YEAR, UNIT_HOURS


def test_compare_prices_no_offer_that_cannot_rent_the_job(cat) -> None:  # type: ignore[no-untyped-def]
    """Finding 3: 16 cards on AutoDL's single-card hourly offers were priced (¥631.68, ¥398.40); plan says no
    offer holds them. Now the row has no cost and says why, and every priced row's offer passes `can_rent`."""
    m = lookup.model(cat, "qwen2.5-7b")
    rows = compare_devices(cat, m, ["rtx-4090", "a800"], task="full", gpus=16, tokens=1e9)
    for r in rows:
        assert r["cost_cny"] is None and r["offer"] is None, r
        assert r["no_price"] is not None and "no usable offer can hold this job" in r["no_price"]
        assert r["no_price_i18n"]["id"] == "cmp.unpriced_device"  # the device named, then plan's why
        assert r["no_price_i18n"]["params"]["why"]["id"] == "why.no_usable_offer"
    one = compare_devices(cat, m, ["rtx-4090", "a800"], task="full", gpus=8, tokens=1e9)
    for r in one:
        if r["offer"] is not None:
            o = next(o for o in cat.offers if o.id == r["offer"])
            acc = lookup.accelerator(cat, r["device"])
            assert offer_q.can_rent(o, acc.max_cards_per_node, 8, r["layout"]["tp"], False)


def test_compare_bills_the_hours_plan_bills(cat) -> None:  # type: ignore[no-untyped-def]
    """Finding 4: compare billed compute hours only (4.90 h ¥24.90); plan bills set-up too (5.10 h ¥29.88)."""
    m = lookup.model(cat, "qwen2.5-7b")
    row = next(r for r in compare_devices(cat, m, ["rtx-4090", "a800"], task="lora", gpus=1, tokens=1.0829e8)
               if r["device"] == "a800")
    p = plan(cat, m, make_request(model="qwen2.5-7b", task="lora", tokens=1.0829e8, devices=("a800",),
                                  gpus=1)).plans[0]
    assert row["layout"]["label"].startswith("tp1·pp1·dp1·z0·mb1·ga64") and p.offer == row["offer"]
    assert row["hours"] == pytest.approx(p.hours, rel=1e-9) and p.setup_hours > 0.1
    assert row["cost_cny"] == pytest.approx(p.cost_cny, rel=1e-9)


def test_an_offer_with_its_own_bandwidth_moves_the_hours_compare_bills(cat) -> None:  # type: ignore[no-untyped-def]
    """Finding 4: the download runs at the offer's published public bandwidth, as `_price` counts it."""
    o = next(o for o in cat.offers if o.public_network_mbit_per_s is not None)
    slow = o.model_copy(update={"public_network_mbit_per_s": o.public_network_mbit_per_s.model_copy(  # type: ignore[union-attr]
        update={"value": 100.0})})
    # 100 Mbit/s for 10 GB: 800 s against the catalog's 1 Gbit/s 80 s (dl_h)
    h = cost_mod.job_hours_on_offer(slow, 5.0, 10e9, 80 / 3600)
    assert h == pytest.approx(5.0 + (800 - 80) / 3600)


def test_a_year_on_monthly_billing_is_twelve_bills_in_every_command(cat) -> None:  # type: ignore[no-untyped-def]
    """Finding 5: rent-vs-buy billed 12 months for a year, tco and plan 13 (8,760 h / 720 h = 12.17)."""
    o = next(o for o in cat.offers if o.id == "omniyq-910b-8card-month")
    tco = job_cost(o, 8, HOURS_PER_YEAR)
    assert tco.units_billed == 12 and tco.cost_cny == pytest.approx(12 * o.price_cny.value)
    rvb = next(c for _, oo, c in rent_options(cat, "ascend-910b", HOURS_PER_YEAR) if oo.id == o.id)
    assert rvb.units_billed == 12 and rvb.cost_cny == tco.cost_cny
    assert UNIT_HOURS["month"] * 12 == HOURS_PER_YEAR


def test_cost_assumptions_are_catalog_data_with_sources(cat) -> None:  # type: ignore[no-untyped-def]
    """Finding 9: ¥/engineer-week, engineers, PUE, ¥/kWh and amortisation years live once, in `assumptions:`."""
    a = cost_assumptions(cat)
    assert a == packaged_assumptions()
    for name in ("engineer_cny_per_week", "migration_engineers", "pue", "electricity_cny_per_kwh",
                 "amortization_years"):
        v = getattr(a, name).chosen
        assert v.source == "assumed" and v.note or v.source in cat.sources, name
    assert a.migration_engineers.chosen.source == "seed-000"
    assert cost_mod.MIGRATION_ENGINEERS == a.migration_engineers.value
    assert PlanBody.model_fields["engineer_cny_per_week"].default == a.engineer_cny_per_week.value
    assert MigrateBody.model_fields["engineers"].default == a.migration_engineers.value
    assert MigrateBody.model_fields["engineer_week"].default == a.engineer_cny_per_week.value


def test_a_changed_assumption_moves_every_answer(cat) -> None:  # type: ignore[no-untyped-def]
    """Finding 9: migrate cost and plan read the catalog's row, not a copy of its numbers."""
    a = cost_assumptions(cat)
    dear = cat.model_copy(update={"assumptions": (a.model_copy(update={
        "engineer_cny_per_week": a.engineer_cny_per_week.model_copy(update={"values": (
            a.engineer_cny_per_week.chosen.model_copy(update={"value": 2 * a.engineer_cny_per_week.value}),)})}),)})
    m = lookup.model(cat, "qwen2.5-7b")
    base = migration_cost(cat, m, saving=50_000.0)
    twice = migration_cost(dear, m, saving=50_000.0)
    assert twice["one_off_cost_cny"][1] == pytest.approx(2 * base["one_off_cost_cny"][1])
    assert base["engineers"] == a.migration_engineers.value


def test_one_unit_table_and_one_hours_rule(cat) -> None:  # type: ignore[no-untyped-def]
    """Finding 10: the billing-unit table lives in units.py; hours = tokens / rate / 3600 in `job_hours`."""
    assert cost_mod.UNIT_HOURS is UNIT_HOURS and not hasattr(offer_q, "_UNIT_HOURS")
    m, acc = lookup.model(cat, "qwen2.5-7b"), lookup.accelerator(cat, "a800")
    e = estimate(cat, m, acc, make_workload(task="lora", gpus=1, tokens=1e8)).contract()
    assert e["time"]["hours"] == pytest.approx(job_hours(1e8, e["speed"]["train_tokens_per_s"]), rel=1e-12)
    assert math.isclose(job_hours(3600.0, 1.0), 1.0)


def test_a_catalog_without_assumptions_says_so_in_one_line() -> None:
    """The refusal has a message in both languages (the id alone was printed before)."""
    from suanli.catalog.load import packaged_catalog
    from suanli.errors import EstimateError
    from suanli.i18n import render
    from suanli.plan.cost import cost_assumptions

    bare = packaged_catalog().model_copy(update={"assumptions": []})
    with pytest.raises(EstimateError) as e:
        cost_assumptions(bare)
    assert "cost assumptions" in str(e.value) and "err." not in str(e.value)
    assert e.value.i18n is not None and "成本假设" in render(e.value.i18n, "zh")
