"""scripts/fit_engine_factors.py: a trial value must outrank exactly the catalog row it refits. The trial factors were
built from the Param's own selectors (family only), so rows that name devices or a framework (mfu-ampere's A100 list,
mfu-rtx-4090's torchtune, mfu-910b's mindspeed) outranked every trial and the refit printed the old errors for any
value (found 2026-12-02 while refitting the training efficiencies)."""

from __future__ import annotations

from typing import Any

import pytest
from script_module import load_script  # tests/script_module.py: the one loader

from suanli.catalog.load import packaged_catalog
from suanli.errors import EstimateError
from suanli.estimate.efficiency import efficiency


fit = load_script("fit_engine_factors")


@pytest.mark.parametrize("factor_id", sorted({p.id for f in fit.FITS for p in f.params}))
def test_trial_value_outranks_the_row_it_refits(factor_id: str) -> None:
    cat = packaged_catalog()
    row = next((f for f in cat.efficiency if f.id == factor_id), None)
    assert row is not None, f"{factor_id}: a fit names a factor the catalog lacks"
    param = next(p for f in fit.FITS for p in f.params if p.id == factor_id)
    trial = fit._factor(param, 0.123, cat)
    assert (trial.metric, trial.device, trial.family, trial.precision, trial.engine, trial.framework) == (
        row.metric, row.device, row.family, row.precision, row.engine, row.framework)
    # on every device where the catalog picks this row, the trial wins over it
    framework = row.framework if isinstance(row.framework, str) else (row.framework[0] if row.framework else None)
    precision = row.precision if row.precision not in (None, "*") else "bf16"
    engine = row.engine or "*"
    def picks(acc: Any) -> bool:  # a metric without a default row (eager_step_overhead_s) applies to no other device
        try:
            return efficiency(cat, acc, row.metric, precision, engine, framework=framework).factor_id == row.id
        except EstimateError:
            return False

    picked = [a for a in cat.accelerators if picks(a)]
    assert picked, f"{factor_id}: no device picks the row"
    for acc in picked:
        got = efficiency(cat, acc, row.metric, precision, engine, overrides=(trial,), framework=framework)
        assert got.value == pytest.approx(0.123), acc.id
