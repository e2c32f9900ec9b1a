"""Audit 2026-12-01 (5): the MIN_UTILIZATION check was written three times (views.bounds.check_tco,
plan.cost.cost_per_million_tokens, plan.cost.rent_vs_buy): one `plan.cost.check_utilization` now. And
`_per_card_bills` (rent-vs-buy's break-even grid) re-implemented `held_hours` and `job_cost`'s cards_rented: it
calls them, and agrees with `rent_bill` per card."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from suanli.catalog.schema import Catalog
from suanli.errors import InputError
from suanli.plan import cost
from suanli.plan.cost import _per_card_bills, check_utilization, rent_bill
from suanli.units import HOURS_PER_YEAR, MIN_UTILIZATION
from suanli.views import bounds

SRC = Path(cost.__file__).resolve().parents[1]


@pytest.mark.parametrize("u", [0.0, 5e-4, float("nan"), 1.0000001, float("inf")])
def test_check_utilization_refuses_outside_the_bound(u: float) -> None:
    with pytest.raises(InputError) as e:
        check_utilization(u)
    assert e.value.field == "utilization" and "0.001" in str(e.value)


def test_check_utilization_takes_the_bound_itself() -> None:
    check_utilization(MIN_UTILIZATION)
    check_utilization(1.0)


def test_the_bound_is_written_once() -> None:
    """Only check_utilization compares a utilization with MIN_UTILIZATION; check_tco, the cost per token and
    rent-vs-buy call it."""
    hits = [(p.relative_to(SRC), line) for p in SRC.rglob("*.py")
            for line in p.read_text(encoding="utf-8").splitlines()
            if re.search(r"MIN_UTILIZATION\s*<=", line)]
    assert hits == [(Path("plan/cost.py"), "    if not MIN_UTILIZATION <= utilization <= 1:")]
    for text in (Path(bounds.__file__).read_text(encoding="utf-8"), Path(cost.__file__).read_text(encoding="utf-8")):
        assert "check_utilization(utilization)" in text


def test_per_card_bills_call_held_hours_and_job_cost(cat: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    offers = [o for o in cat.offers if o.device == "l20"]
    held: list[Any] = []
    rented: list[Any] = []
    real_held, real_job = cost.held_hours, cost.job_cost

    def spy_held(*a: Any) -> Any:
        held.append(a)
        return real_held(*a)

    def spy_job(*a: Any) -> Any:
        rented.append(a)
        return real_job(*a)

    monkeypatch.setattr(cost, "held_hours", spy_held)
    monkeypatch.setattr(cost, "job_cost", spy_job)
    _per_card_bills(offers, np.arange(1.0, 11.0), HOURS_PER_YEAR, "spread")
    assert len(held) == len(offers) and len(rented) == len(offers)


@pytest.mark.parametrize("pattern", ["spread", "blocks"])
def test_per_card_bills_are_rent_bill_per_card(cat: Catalog, pattern: str) -> None:
    """Every priced offer (blocks rented whole among them: min_cards_per_order) at hours across the year."""
    offers = list(cat.offers)
    assert any(o.min_cards_per_order for o in offers)
    hours = np.array([1.0, 23.0, 24.0, 25.0, 169.0, 730.0, 731.0, 4380.0, HOURS_PER_YEAR])
    grid = _per_card_bills(offers, hours, HOURS_PER_YEAR, pattern)
    for i, o in enumerate(offers):
        for j, h in enumerate(hours):
            b = rent_bill(o, float(h), HOURS_PER_YEAR, pattern)
            assert grid[i, j] == pytest.approx(b.cost_cny / b.cards_rented, rel=1e-12), (o.id, h)
