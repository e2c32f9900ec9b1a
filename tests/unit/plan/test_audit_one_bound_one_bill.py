"""Audit 2026-12-01 (5): the MIN_UTILIZATION check was written three times (views.bounds.check_tco,
plan.cost.cost_per_million_tokens, plan.cost.rent_vs_buy): one `plan.cost.check_utilization` now, so tco, the
cost per million tokens and rent-vs-buy refuse the same values naming `utilization`. And `_per_card_bills`
(rent-vs-buy's break-even grid) re-implemented `held_hours` and `job_cost`'s cards_rented: it calls them, and
agrees with `rent_bill` per card, for every priced offer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from suanli.catalog.schema import Catalog
from suanli.errors import InputError
from suanli.plan.compare import tco_rows
from suanli.plan.cost import _per_card_bills, check_utilization, cost_per_million_tokens, rent_bill, rent_vs_buy
from suanli.units import HOURS_PER_YEAR, MIN_UTILIZATION
from suanli.views import bounds


@pytest.mark.parametrize("u", [0.0, 5e-4, float("nan"), 1.0000001, float("inf")])
def test_check_utilization_refuses_outside_the_bound(u: float) -> None:
    with pytest.raises(InputError) as e:
        check_utilization(u)
    assert e.value.field == "utilization" and "0.001" in str(e.value)


def test_check_utilization_takes_the_bound_itself() -> None:
    check_utilization(MIN_UTILIZATION)
    check_utilization(1.0)


REFUSED = [5e-4, float("nan")]


@pytest.mark.parametrize("u", REFUSED)
def test_tco_cost_per_token_and_rent_vs_buy_refuse_it_naming_utilization(cat: Catalog, u: float) -> None:
    """Each place a utilization enters refuses the same values with the same field: the tco rows' cost per
    million tokens, `cost_per_million_tokens` itself, rent-vs-buy at a price and over offers, and tco's bounds."""
    offers = [o for o in cat.offers if o.device == "l20"]
    calls: list[Callable[[], object]] = [
        lambda: tco_rows(cat, "l20", 10.0, 1, tokens_per_s=100.0, utilization=u),
        lambda: cost_per_million_tokens(10.0, 100.0, u),
        lambda: rent_vs_buy(2.0, 20_000.0, 0.0, 450.0, 1.3, 0.8, 0.0, 3.0, u),
        lambda: rent_vs_buy(offers, 20_000.0, 0.0, 450.0, 1.3, 0.8, 0.0, 3.0, u),
        lambda: bounds.check_tco(None, u),
    ]
    for call in calls:
        with pytest.raises(InputError) as e:
            call()
        assert e.value.field == "utilization" and "0.001" in str(e.value)


@pytest.mark.parametrize("u", ["5e-4", "nan"])
@pytest.mark.parametrize("args", [["tco", "--gpu", "l20", "--hours", "10"],
                                  ["tco", "--gpu", "l20", "--hours", "10", "--tokens-per-s", "100"],
                                  ["rent-vs-buy", "--gpu", "l20", "--server-share", "0"]])
def test_the_commands_refuse_it_in_one_line_naming_utilization(
        args: list[str], u: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    from suanli.cli.main import run
    from suanli.cli.output import set_lang

    monkeypatch.setattr("sys.argv", ["suanli", "--lang", "en", *args, "--utilization", u])
    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "300")
    try:
        with pytest.raises(SystemExit) as ex:
            run()
    finally:
        set_lang(None)
    err = capsys.readouterr().err
    assert ex.value.code == 2 and len(err.strip().splitlines()) == 1, err
    assert "utilization: must be in [0.001, 1]" in err, err


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
