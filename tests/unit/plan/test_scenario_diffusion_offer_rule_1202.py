"""Buyer review 2026-12-02 #6: `scenarios --id ai-painting` priced the RTX 4090 at 星海算力云's 26-month-old ¥1.78 (¥1,299
a month), naming no offer, date or staleness, while `tco` takes AutoDL's fresh ¥1.88 first and warns about the old
row. The image scenario now rents by plan's offer rule (`offers.can_rent`, then `compare.fresh_first`: a fresh
price before a stale one, then the cheapest) and says the offer (`offers.rent_message`) and a stale price's warning."""

from __future__ import annotations

import datetime as dt

import pytest

from suanli.api.routers.catalog import _scenarios
from suanli.i18n import Message, render
from suanli.plan.compare import tco_rows
from suanli.plan.scenarios import run_scenario

PAINTING = "ai-painting"


def _run(cat, today: dt.date):  # type: ignore[no-untyped-def]
    s = next(x for x in _scenarios() if x.id == PAINTING)
    return run_scenario(cat, s, today=today)


def test_a_fresh_price_is_taken_before_a_cheaper_stale_one_and_named(cat) -> None:  # type: ignore[no-untyped-def]
    today = dt.date(2026, 12, 1)
    r = _run(cat, today)
    p = r.explanation_i18n["params"]
    assert r.planner_device == "rtx-4090" and p["replicas"] == 1
    # tco's first row for the same card and hours is the offer plan would take: the same bill
    first = tco_rows(cat, "rtx-4090", p["hours"], p["replicas"], today=today)[0]
    assert first["stale"] is None and first["provider"] == "AutoDL"
    assert p["cny"] == pytest.approx(first["cost_cny"])
    assert p["cny"] > 730 * 1.78  # not 星海算力云's 2024-09-29 ¥1.78 (¥1,299)
    assert p["stale"] == "" and r.offer_kinds_used == ("listing",)
    assert "rent: AutoDL, ¥1.88 per card-hour (listing, 2026-08-13" in r.explanation
    zh = render(Message.from_json(r.explanation_i18n), "zh")
    assert "租用：AutoDL，每卡每小时 ¥1.88（挂牌，2026-08-13" in zh


def test_a_stale_price_used_for_want_of_a_fresh_one_is_warned(cat) -> None:  # type: ignore[no-untyped-def]
    r = _run(cat, dt.date(2027, 10, 1))  # every RTX 4090 price is then older than 12 months
    p = r.explanation_i18n["params"]
    assert p["stale"] and p["stale"]["id"] == "scn.stale"
    assert "; warning: price" in r.explanation and "check the platform's current price" in r.explanation
    assert "；注意：报价" in render(Message.from_json(r.explanation_i18n), "zh")
