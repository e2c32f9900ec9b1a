"""The plan's "N offers price it" line (`quality.offers_range`, the one place it is built): where the cheapest and the
dearest offer bill in different units, each end names its offer and billing unit, and a unit longer than an hour
says whole units are billed — a 4.7 h job's ¥35,000 on a monthly offer is a whole month, not the top of a price
range for the same rental. Ends in one unit keep the short form."""

from __future__ import annotations

import datetime as dt

import pytest

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.plan.quality import offers_range
from suanli.plan.request import make_request
from suanli.plan.search import plan

TODAY = dt.date(2026, 11, 30)


def _offer(cat, unit: str):  # type: ignore[no-untyped-def]
    return next(o for o in cat.offers if o.billing_unit == unit and o.kind == "listing")


def test_one_billing_unit_keeps_the_short_form(cat) -> None:  # type: ignore[no-untyped-def]
    hourly = _offer(cat, "hour")
    msg = offers_range(3, 25.0, hourly, 60.0, hourly)
    assert msg is not None and msg.id == "plan.reason.offers_range"
    assert render(msg, "en") == f"3 offers price it, ¥25–¥60; the cheapest, {hourly.id}, is a listing price"


def test_mixed_units_name_each_end_and_its_unit(cat) -> None:  # type: ignore[no-untyped-def]
    hourly, monthly = _offer(cat, "hour"), _offer(cat, "month")
    msg = offers_range(2, 24.9, hourly, 35000.0, monthly)
    assert msg is not None and msg.id == "plan.reason.offers_range_units"
    assert render(msg, "en") == (f"2 offers price it: from ¥25 ({hourly.id}, a listing price, billed per hour) "
                                 f"to ¥35,000 ({monthly.id}, billed per month: whole months billed)")
    zh = render(msg, "zh")
    assert zh == (f"2 个报价可租用：最低 ¥25（{hourly.id}，挂牌报价，按小时计费），"
                  f"最高 ¥35,000（{monthly.id}，按月计费：不足一个月按一个月计）")


def test_one_offer_and_none(cat) -> None:  # type: ignore[no-untyped-def]
    hourly = _offer(cat, "hour")
    one = offers_range(1, 25.0, hourly, 25.0, hourly)
    assert one is not None and one.id == "plan.reason.offers_one"
    assert offers_range(0, float("inf"), hourly, float("-inf"), hourly) is None


@pytest.fixture(scope="module")
def lora(cat):  # type: ignore[no-untyped-def]
    return plan(cat, lookup.model(cat, "qwen2.5-7b"), make_request(model="qwen2.5-7b", task="lora", tokens=1e8),
                TODAY)


def test_a_plan_row_says_its_monthly_end_is_a_whole_month(lora) -> None:  # type: ignore[no-untyped-def]
    rows = {p.device: p for p in lora.plans}
    a800 = rows["a800"]
    assert f"2 offers price it: from ¥{a800.cost_cny:,.0f} ({a800.offer}, a listing price, billed per hour) to ¥" \
        in a800.reason
    assert a800.reason.endswith("billed per month: whole months billed)")
    assert "不足一个月按一个月计" in render(Message.from_json(a800.reason_i18n), "zh")  # type: ignore[arg-type]
    # both ends hourly: the short form, its floor the plan's cost
    r4090 = rows["rtx-4090"]
    assert f"2 offers price it, ¥{r4090.cost_cny:,.0f}–¥" in r4090.reason and "whole" not in r4090.reason
