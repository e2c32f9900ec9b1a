"""Buyer review 2026-12-01, found and left alone, fixed here: `migrate cost` said "billed per month: 1–1 month(s)" (a
range whose ends are equal: one value), and a move onto CUDA (a port of 0 weeks) still charged a month's test
instance "through the port's 0–0 weeks"; `migrate check`'s wording of the catalog range is in
tests/unit/migrate/test_basis_quoting_1201.py."""

from __future__ import annotations

import pytest

from suanli.catalog.schema import Catalog, Offer
from suanli.i18n import Message, render, span
from suanli.plan.cost import job_cost, migration_one_off
from suanli.units import HOURS_PER_WEEK


def _offer(cat: Catalog, offer_id: str) -> Offer:
    return next(o for o in cat.offers if o.id == offer_id)


def test_span_prints_equal_ends_once() -> None:
    assert span(1, 2) == "1–2" and span(1, 1) == "1" and span(0.0, 0.0) == "0"
    assert span(0.96, 1.04, ".1f") == "1.0" and span(0.8, 1.0, ".1f") == "0.8–1.0"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_test_instance_of_one_month_says_one_month(cat: Catalog, lang: str) -> None:  # the review's 910B case
    offer = _offer(cat, "omniyq-h800-8card-month")  # billed per month: a 1- and a 2-week port both bill 1 month
    assert offer.billing_unit == "month"
    items = {i.item: i for i in migration_one_off((1.0, 2.0), 2, 10_000.0, offer, 8, 600.0)}
    assert job_cost(offer, 8, 1 * HOURS_PER_WEEK).units_billed == job_cost(offer, 8, 2 * HOURS_PER_WEEK).units_billed
    text = render(Message.from_json(items["test_instance"].note_i18n), lang)
    if lang == "en":
        assert text.endswith("through the port's 1–2 weeks, billed per month: 1 month"), text
        assert "labour: 1–2 weeks × 2 engineers" in render(Message.from_json(items["labour"].note_i18n), lang)
    else:
        assert text.startswith("移植的 1–2 周里") and text.endswith("按月计费：1 个月"), text
    assert "1–1" not in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_port_no_test_instance(cat: Catalog, lang: str) -> None:
    offer = _offer(cat, "omniyq-h800-8card-month")
    items = {i.item: i for i in migration_one_off((0.0, 0.0), 2, 10_000.0, offer, 8, 600.0)}
    assert list(items) == ["labour", "parallel_run"]  # no month of an 8-card node for a port of no weeks
    assert items["labour"].cost_cny == (0.0, 0.0)
    labour = render(Message.from_json(items["labour"].note_i18n), lang)
    assert ("labour: 0 weeks ×" if lang == "en" else "人工：0 周 ×") in labour and "0–0" not in labour
