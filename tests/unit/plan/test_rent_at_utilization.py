"""Buyer's review 2026-12-01: `rent-vs-buy` priced renting at a utilization as the year's cheapest bill × u — half of
12 × ¥7,545 for the L20 at 50 % use (¥45,270, break-even 28.4 %), half a year of the 910B's monthly subscription —
but nobody pays half a month's subscription for use spread over the year. Renting at u is now the cheapest bill for
u × 8,760 h in use over the device's offers, each billed in its own unit (`plan.cost.rent_bill` → `job_cost`); a
monthly offer is rented every month when the use is spread (`--use-pattern spread`, the default) and bills the
months covering the hours when it comes in whole months (`blocks`). Break-even is found with the same bill."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from suanli.catalog.load import packaged_assumptions
from suanli.catalog.schema import Catalog, Offer
from suanli.errors import InputError
from suanli.plan.cost import RentVsBuy, held_hours, rent_bill, rent_vs_buy
from suanli.units import HOURS_PER_MONTH, HOURS_PER_YEAR

L20_CARD_CNY = 75_000.0  # the catalog's purchase px-aqiusha-l20-card-2024-03 (the CLI's default card price)
L20_TDP_W = 275.0  # the catalog's TDP (technicalcity-l20)


def _l20(cat: Catalog) -> tuple[Offer, Offer]:
    hour = next(o for o in cat.offers if o.device == "l20" and o.billing_unit == "hour" and o.kind == "listing")
    month = next(o for o in cat.offers if o.device == "l20" and o.billing_unit == "month" and o.kind == "listing")
    return hour, month


def _rvb(offers: Any, u: float, pattern: str = "spread", card: float = L20_CARD_CNY, tdp: float = L20_TDP_W,
         server: float = 0.0) -> RentVsBuy:
    a = packaged_assumptions()
    return rent_vs_buy(offers, card, server, tdp, a.pue.value, a.electricity_cny_per_kwh.value, 0.0,
                       a.amortization_years.value, u, pattern)


def test_l20_at_half_use_rents_by_the_hour_not_half_the_yearly_subscription(cat: Catalog) -> None:
    hour, month = _l20(cat)
    r = _rvb([hour, month], 0.5)
    assert r.rent_cny_per_year_full_use == pytest.approx(12 * month.price_cny.value)  # ¥90,540: the year's bill
    assert r.rent_at_utilization_cny == pytest.approx(hour.price_cny.value * 4380)  # ¥15.72 × 4,380 h = ¥68,854
    assert r.rent_at_utilization_cny != pytest.approx(r.rent_cny_per_year_full_use * 0.5)  # the old ¥45,270
    assert (r.rent_at_utilization_offer, r.rent_at_utilization_billing_unit, r.rent_at_utilization_units) == (
        hour.id, "hour", 4380)
    assert r.hours_in_use == 4380 and r.use_pattern == "spread"
    assert hour.id in r.rent_at_utilization_note and "billed per hour" in r.rent_at_utilization_note


def test_break_even_uses_the_same_bill_and_is_consistent(cat: Catalog) -> None:
    hour, month = _l20(cat)
    r = _rvb([hour, month], 0.5)
    be = r.break_even_utilization
    assert be is not None and be == pytest.approx(0.185, abs=0.001)  # hourly bills: not the old 28.4 %
    at, above = _rvb([hour, month], be), _rvb([hour, month], be + 1 / HOURS_PER_YEAR)
    assert at.rent_at_utilization_cny < at.buy_at_utilization_cny  # the last hour renting is cheaper ...
    assert above.rent_at_utilization_cny >= above.buy_at_utilization_cny  # ... and the next one owning is
    # rent(u*) == buy(u*) within the billing rounding: one hour's bill
    assert abs(at.rent_at_utilization_cny - at.buy_at_utilization_cny) <= hour.price_cny.value
    for u in (be + 0.01, 0.3, 0.5, 0.9, 1.0):  # "buying pays off above" holds everywhere above it
        x = _rvb([hour, month], u)
        assert x.cheaper == "buy" and x.rent_at_utilization_cny >= x.buy_at_utilization_cny, u
    assert _rvb([hour, month], be - 0.01).cheaper == "rent"


def test_a_monthly_offer_is_rented_all_year_when_use_is_spread_and_by_month_in_blocks(cat: Catalog) -> None:
    hour, month = _l20(cat)
    assert held_hours(month, 100.0) == HOURS_PER_YEAR and held_hours(hour, 100.0) == 100.0
    assert held_hours(month, 100.0, use_pattern="blocks") == 100.0
    only_month = _rvb([month], 0.5)
    assert only_month.rent_at_utilization_cny == pytest.approx(12 * month.price_cny.value)
    assert only_month.rent_at_utilization_units == 12
    blocks = _rvb([hour, month], 0.5, "blocks")  # 4,380 h = 6 whole months
    assert blocks.rent_at_utilization_cny == pytest.approx(6 * month.price_cny.value)
    assert blocks.rent_at_utilization_offer == month.id and blocks.rent_at_utilization_units == 6
    assert rent_bill(month, 4380.0, use_pattern="blocks").units_billed == 6
    assert rent_bill(month, 4381.0, use_pattern="blocks").units_billed == 7  # a month started is paid
    # blocks break-even: 3 months (2,190 h) rent for ¥22,635 < owning; from 2,191 h the 4th month (or the hours) cost more
    b = blocks.break_even_utilization
    assert b is not None and b * HOURS_PER_YEAR == pytest.approx(3 * HOURS_PER_MONTH)
    with pytest.raises(InputError, match="use-pattern"):
        _rvb([hour, month], 0.5, "weekends")


def test_an_eight_card_monthly_offer_splits_its_bill_per_card(cat: Catalog) -> None:
    npu = next(o for o in cat.offers if o.id == "omniyq-910b-8card-month")
    spread = _rvb([npu], 0.5, card=120_000, server=67_500)
    assert spread.rent_at_utilization_cny == pytest.approx(12 * npu.price_cny.value / 8)  # ¥22,500, not ¥11,250
    assert spread.rent_at_utilization_cards == 8 and spread.break_even_utilization is None
    assert spread.break_even_note.startswith("buying never pays off")
    assert _rvb([npu], 0.5, "blocks", card=120_000, server=67_500).rent_at_utilization_cny == pytest.approx(
        6 * npu.price_cny.value / 8)


def test_a_price_per_card_hour_stays_linear() -> None:
    r = _rvb(3.0, 0.5)
    assert r.rent_at_utilization_cny == pytest.approx(3.0 * HOURS_PER_YEAR * 0.5)
    assert r.rent_at_utilization_offer is None and "--rent-price" in r.rent_at_utilization_note
    with pytest.raises(InputError, match="rent-price"):
        _rvb([], 0.5)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SUANLI_TODAY": "2026-12-01", "COLUMNS": "400"}  # the price line (223 cells) on one line
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True, env=env)


def test_cli_names_the_offer_and_unit_of_the_rent_at_this_use() -> None:
    out = _run("rent-vs-buy", "--gpu", "l20", "--server-share", "0", "--json")
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["rent_at_utilization_cny"] == pytest.approx(15.72 * 4380)
    assert r["rent_at_utilization_offer"] == "ctyun-l20-1card-hour" and r["rent_at_utilization_billing_unit"] == "hour"
    assert r["rent_at_utilization_offer_facts"]["offer"] == "ctyun-l20-1card-hour"
    # the host's assumed share of the power (82 % of 275 W) counted: 18.8 %, not the card alone's 18.5 %
    assert r["break_even_utilization"] == pytest.approx(0.188, abs=0.001) and r["cheaper"] == "buy"
    assert r["rent_billing_unit"] == "month"  # the year at full use is still 12 monthly bills
    blocks = json.loads(_run("rent-vs-buy", "--gpu", "l20", "--server-share", "0", "--use-pattern", "blocks", "--json").stdout)
    assert blocks["rent_at_utilization_cny"] == pytest.approx(6 * 7545) and blocks["use_pattern"] == "blocks"
    zh = _run("--lang", "zh", "rent-vs-buy", "--gpu", "l20", "--server-share", "0")
    assert zh.returncode == 0, zh.stderr
    assert "ctyun-l20-1card-hour，按小时计费：4,380 小时 = ¥68,854" in zh.stdout and "45,270" not in zh.stdout
    assert "18.8%" in zh.stdout  # the break-even as a share, as the README says it (buyer review 2026-12-01)
    bad = _run("rent-vs-buy", "--gpu", "l20", "--use-pattern", "weekends")
    assert bad.returncode != 0 and "use-pattern" in bad.stderr and "Traceback" not in bad.stderr
