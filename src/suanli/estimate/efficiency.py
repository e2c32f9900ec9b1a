"""Look up empirical efficiency factors (achieved / peak) kept as catalog data with their sources."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from suanli.catalog.schema import Accelerator, Catalog, EfficiencyFactor
from suanli.errors import EstimateError
from suanli.i18n import Message

__all__ = ["Efficiency", "efficiency"]


class Efficiency(BaseModel):
    model_config = ConfigDict(frozen=True)

    metric: str
    value: float
    source: str
    factor_id: str
    note: str | None = None


def _score(f: EfficiencyFactor, acc: Accelerator, precision: str, engine: str, framework: str | None = None
           ) -> int | None:
    """Specificity of a factor for this case; None when it does not apply. A row naming a framework applies only
    under that framework and ranks below a precision match, so a framework row fitted on one precision (``*``)
    does not displace a precision-specific row of the family."""
    if f.device is not None and acc.id not in f.device_ids:
        return None
    if f.family not in ("*", acc.family):
        return None
    if f.precision not in ("*", precision):
        return None
    if f.engine not in ("*", engine):
        return None
    if f.framework is not None and framework not in f.framework_ids:
        return None
    return (
        (16 if f.device is not None else 0)
        + (8 if f.family != "*" else 0)
        + (4 if f.precision != "*" else 0)
        + (2 if f.framework is not None else 0)
        + (1 if f.engine != "*" else 0)
    )


def efficiency(
    cat: Catalog,
    acc: Accelerator,
    metric: str,
    precision: str = "*",
    engine: str = "*",
    overrides: tuple[EfficiencyFactor, ...] = (),
    framework: str | None = None,
    calibrated: bool = True,
) -> Efficiency:
    """The most specific factor for (device, family, precision, framework, engine); `overrides` (e.g. calibrated
    from measurements) win over catalog factors of equal or lower specificity. `framework` (a training workload's
    frameworks.yaml id, None when unstated) selects rows that name it; rows naming a framework never apply to
    None. The catalog's `calibration` (the user's calibration file) counts as overrides after `overrides`, unless
    `calibrated` is False (where the catalog's own factor is wanted)."""
    best: tuple[int, int, EfficiencyFactor] | None = None
    for rank, pool in ((1, (*overrides, *cat.calibration) if calibrated else overrides), (0, cat.efficiency)):
        for f in pool:
            if f.metric != metric:
                continue
            s = _score(f, acc, precision, engine, framework)
            if s is not None and (best is None or (s, rank) > best[:2]):
                best = (s, rank, f)
    if best is None:
        raise EstimateError(Message("err.no_efficiency_factor_applies_to_add", metric=metric, acc_id=acc.id))
    f = best[2]
    return Efficiency(metric=metric, value=f.value, source=f.source, factor_id=f.id, note=f.note)
