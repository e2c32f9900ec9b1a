"""Code review: `suanli rent-vs-buy --utilization 1e-300` was accepted (plan.cost checked 0 < u ≤ 1) while tco
and views.bounds refused a utilization under 0.001; one bound now (`units.MIN_UTILIZATION`). And units.py's
BYTES_PER_PARAM, a dead copy disagreeing with estimate.precision, is gone."""

from __future__ import annotations

import pytest

from suanli import units
from suanli.errors import InputError
from suanli.plan.cost import cost_per_million_tokens, rent_vs_buy
from suanli.views import bounds


@pytest.mark.parametrize("u", [1e-300, 5e-4, 0.0, float("nan"), 1.5])
def test_rent_vs_buy_takes_the_tco_bound(u: float) -> None:
    with pytest.raises(InputError) as e:
        rent_vs_buy(2.0, 20_000.0, 0.0, 450.0, 1.3, 0.8, 0.0, 3.0, u)
    assert e.value.field == "utilization" and "0.001" in str(e.value)
    with pytest.raises(InputError):
        bounds.check_tco(None, u)
    with pytest.raises(InputError):
        cost_per_million_tokens(10.0, 100.0, u)


def test_one_bound_and_the_smallest_accepted() -> None:
    assert bounds.MIN_UTILIZATION is units.MIN_UTILIZATION == 1e-3
    assert rent_vs_buy(2.0, 20_000.0, 0.0, 450.0, 1.3, 0.8, 0.0, 3.0, units.MIN_UTILIZATION) is not None
    bounds.check_tco(None, units.MIN_UTILIZATION)


def test_no_second_bytes_per_param_table() -> None:
    assert not hasattr(units, "BYTES_PER_PARAM")  # estimate.precision.weight_bytes_per_param is the one table
