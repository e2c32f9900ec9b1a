"""Code review 2026-12-01 (fix A), one test each.

1. One output token (`speed.steady_tpot_s`): no inter-token gap, so a --tpot target does not bind a serving plan
   (was: every row forced to batch 1 by the batch's prefill charged to the one token), nor the serve-at-most rate
   (compare); the plan quotes no TPOT (None) and says so.
2. rent-vs-buy over a year bills a minimum term longer than the year for the year's share (`cost.within_horizon`):
   SMM's 60-month H200 contracts were billed 60 months inside one year (¥990,000 per card-year instead of
   12 × ¥132,000 ÷ 8 = ¥198,000); the commitment is said (`commitment_note`).
3. One idle-card rule: `job_cost` says idle cards whenever whole instances rent more cards than used (tco's
   `suanli tco --gpu l40s --gpus 2` billed 8 cards with no note), and the planner's `plan.warn.idle_cards` reads
   `job_cost.idle_cards`; tco, plan and compare agree."""

from __future__ import annotations

import json
import math

import pytest

from suanli.catalog import lookup
from suanli.catalog.load import packaged_assumptions
from suanli.catalog.schema import Catalog
from suanli.i18n import Message
from suanli.plan.compare import compare_devices, tco_rows
from suanli.plan.cost import RentVsBuy, job_cost, rent_bill, rent_vs_buy, within_horizon
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.units import HOURS_PER_YEAR

ALL_KINDS = ("listing", "index", "reference")


# ------------------------------------------------------------------------------ 1. one output token
def test_one_output_token_is_not_held_to_a_tpot_target(cat: Catalog) -> None:
    m = lookup.model(cat, "qwen2.5-7b")
    kw = dict(model="qwen2.5-7b", task="inference", requests_per_s=200, input=2048, tpot_s=0.02, region="any",
              offer_kinds=ALL_KINDS)
    r = plan(cat, m, make_request(output=1, **kw))
    assert r.plans
    assert any(p.micro_batch > 1 for p in r.plans)  # was: every row at batch 1
    for p in r.plans:
        assert p.tpot_s is None  # no inter-token gap: no TPOT quoted, none invented
        assert "plan.reason.serve_replicas_no_tpot" in json.dumps(p.reason_i18n)
        assert not any(w.get("id") == "plan.warn.tpot_within_error" for w in p.warnings_i18n)
    two = plan(cat, m, make_request(output=2, **kw))
    assert all(p.tpot_s is not None and p.tpot_s <= 0.02 for p in two.plans)  # 2+ tokens: the target still binds


def test_compare_serves_one_token_requests_past_the_tpot_target(cat: Catalog) -> None:
    m = lookup.model(cat, "qwen2.5-7b")
    rows = compare_devices(cat, m, ["h100-sxm", "l40s"], "inference", 1, tpot_s=0.02, input_tokens=2048,
                           output_tokens=1)
    for row in rows:
        # no inter-token gap: none quoted (NaN in the row, null in its JSON)
        assert row["tpot_kind"] == "steady" and (row["tpot_s"] is None or math.isnan(row["tpot_s"]))
        assert row["layout"]["batch"] > 1  # the serve-at-most search is no longer held to batch 1


# ------------------------------------------------------------------------------ 2. rent-vs-buy, multi-year terms
def _rvb(offers: list, u: float = 0.5) -> RentVsBuy:  # type: ignore[type-arg]
    a = packaged_assumptions()
    return rent_vs_buy(offers, 190_000.0, 0.0, 700.0, a.pue.value, a.electricity_cny_per_kwh.value, 0.0,
                       a.amortization_years.value, u, "spread")


def test_a_five_year_contract_is_billed_for_the_year_and_said(cat: Catalog) -> None:
    smm = [o for o in cat.offers if o.id in ("smm-h200-ib-cluster-2026-10", "smm-h200-roce-cluster-2026-10")]
    assert len(smm) == 2 and all(o.min_units == 60 and o.billing_unit == "month" for o in smm)
    ib = next(o for o in smm if "ib" in o.id)
    bill = rent_bill(ib, HOURS_PER_YEAR)
    assert bill.units_billed == 12
    assert bill.cost_cny / bill.cards_rented == pytest.approx(12 * 132_000 / 8)  # ¥198,000, was ¥990,000
    assert within_horizon(ib, 5 * HOURS_PER_YEAR).min_units == 60  # a horizon as long as the term keeps it whole
    for u in (0.01, 0.5, 1.0):
        for pattern in ("spread", "blocks"):
            a = packaged_assumptions()
            r = rent_vs_buy([ib], 190_000.0, 0.0, 700.0, a.pue.value, a.electricity_cny_per_kwh.value, 0.0,
                            a.amortization_years.value, u, pattern)
            # the contract holds the card all year whatever the use: the year's 12 months, never 60
            assert r.rent_at_utilization_cny == pytest.approx(198_000.0)
            assert r.rent_cny_per_year_full_use == pytest.approx(198_000.0)
            assert r.commitment_note_i18n is not None and r.commitment_note_i18n["id"] == "rvb.note.commitment"
            assert r.commitment_note_i18n["params"]["units"] == 60
            assert r.commitment_note_i18n["params"]["total"] == pytest.approx(60 * 132_000 / 8)
    # a cheaper offer with a term within the year carries no commitment note
    l20 = [o for o in cat.offers if o.device == "l20" and o.kind == "listing"]
    assert _rvb(l20).commitment_note is None


def test_rent_options_bill_the_year_not_the_term(cat: Catalog) -> None:
    from suanli.plan.compare import rent_options

    opts = {o.id: (price, bill) for price, o, bill in rent_options(cat, "h200", HOURS_PER_YEAR, "cn", ALL_KINDS)}
    price, bill = opts["smm-h200-ib-cluster-2026-10"]
    assert bill.units_billed == 12 and price == pytest.approx(132_000 / 8 / 730)


# ------------------------------------------------------------------------------ 3. one idle-card rule
def test_tco_plan_and_compare_say_the_same_idle_cards(cat: Catalog) -> None:
    l40s = next(o for o in cat.offers if o.id == "omniyq-l40s-8card-month")
    assert not l40s.whole_machine_only and l40s.cards == 8
    jc = job_cost(l40s, 2, 730.0)
    assert jc.idle_cards == 6 and jc.cards_rented == 8
    assert "cost.note.idle_cards" in [n["id"] for n in jc.notes_i18n]  # was: no note
    assert job_cost(l40s, 8, 730.0).idle_cards == 0
    assert not [n for n in job_cost(l40s, 8, 730.0).notes_i18n if n["id"].startswith("cost.note.idle")]
    # tco: the row of that offer says it
    row = next(r for r in tco_rows(cat, "l40s", 730.0, 2) if r["offer"] == l40s.id)
    assert "cost.note.idle_cards" in [n["id"] for n in row["notes_i18n"]]
    # plan: a 2-card L40S plan on that offer warns the same 6 idle cards
    m = lookup.model(cat, "qwen2.5-7b")
    r = plan(cat, m, make_request(model="qwen2.5-7b", task="inference", requests_per_s=1, gpus=2, devices=("l40s",)))
    on = [p for p in r.plans if p.offer == l40s.id]
    assert on
    for p in on:
        idle = [w for w in p.warnings_i18n if w.get("id") == "plan.warn.idle_cards"]
        assert idle and idle[0]["params"]["idle"] == job_cost(l40s, p.gpus, p.hours).idle_cards == 6
    # compare: the row billed on that offer carries job_cost's note
    rows = compare_devices(cat, m, ["l40s", "h20"], "inference", 2, tokens=1e8)
    l40s_row = next(x for x in rows if x["device"] == "l40s")
    assert l40s_row["offer"] == l40s.id  # the 8-card L40S month is the row's offer (the note below is its idle cards)
    assert "cost.note.idle_cards" in [n["id"] for n in l40s_row["notes_i18n"]]


def test_no_idle_note_on_one_card_offers(cat: Catalog) -> None:
    one = next(o for o in cat.offers if o.cards == 1 and not o.min_cards_per_order)
    jc = job_cost(one, 3, 10.0)
    assert jc.idle_cards == 0 and not [n for n in jc.notes_i18n if "idle" in n["id"] or "whole" in n["id"]]
    note = Message("cost.note.idle_cards", cards=8, gpus=2, per_instance=8)
    assert note.render("en").endswith("pays for 8 cards to use 2") and "为使用 2 张卡需付 8 张卡" in note.render("zh")
