"""Look up empirical efficiency factors (achieved / peak) kept as catalog data with their sources."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from suanli.catalog.schema import ASSUMED, Accelerator, Catalog, EfficiencyFactor
from suanli.errors import EstimateError
from suanli.i18n import Message, render

__all__ = ["Basis", "Efficiency", "basis", "efficiency", "efficiency_value"]

Basis = Literal["measured", "inherited", "family-median", "family", "general", "assumed"]


class Efficiency(BaseModel):
    model_config = ConfigDict(frozen=True)

    metric: str
    value: float
    source: str
    factor_id: str
    note: str | None = None
    note_i18n: dict[str, Any] | None = Field(None, description="note as a message (a derived factor's, or a data "
                                             "file's note with its Chinese twin); null where the note has no Chinese")
    basis: Basis = Field("assumed", description=(
        "where the value comes from for this device: `measured` on it, `inherited` from the variant it is a version "
        "of (same die and peak), `family-median` of its family's measured devices, `family` (a row set for its "
        "family or a list of devices), `general` (one row for every device, e.g. an engine's overhead), `assumed` "
        "(no source, or no measured device in its family: the median of all measured devices)"))
    basis_devices: list[str] = Field(default_factory=list, description="the devices the value came from: the measured one, the "
                                           "parent, the median's members, the row's device list; empty otherwise")
    provenance: str = Field("", description="basis, devices and source as one line (English; ?lang= renders it)")
    provenance_i18n: dict[str, Any] | None = Field(None, description="provenance as a message (id, params)")


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
    if f.framework is not None and framework not in f.framework_ids and not (framework is None and
                                                                             f.framework_unstated):
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
    `calibrated` is False (where the catalog's own factor is wanted). Memoized on the identity of its inputs
    (catalogs, devices and factors are frozen): the planner asks for the same factor for every layout group."""
    key = (id(cat), id(acc), metric, precision, engine, tuple(map(id, overrides)), framework, calibrated)
    hit = _MEMO.get(key)
    if hit is not None and hit[0] is cat and hit[1] is acc and all(a is b for a, b in zip(hit[2], overrides)):
        return hit[3]
    out = _efficiency(cat, acc, metric, precision, engine, overrides, framework, calibrated)
    if len(_MEMO) > _MEMO_SIZE:
        _MEMO.clear()
    _MEMO[key] = (cat, acc, overrides, out)  # the inputs held, so that no other object takes their ids
    return out


# efficiency's memo: inputs' identities → (catalog, device, overrides, result); its built results by what they state
_MEMO: dict[tuple[Any, ...], tuple[Catalog, Accelerator, tuple[EfficiencyFactor, ...], Efficiency]] = {}
_BUILT: dict[tuple[Any, ...], tuple[EfficiencyFactor, Efficiency]] = {}
_MEMO_SIZE = 8192


def _efficiency(cat: Catalog, acc: Accelerator, metric: str, precision: str, engine: str,
                overrides: tuple[EfficiencyFactor, ...], framework: str | None, calibrated: bool) -> Efficiency:
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
    b, devices = basis(f, acc)
    said = _provenance(f, acc, b, devices)
    # one factor states the same on many devices (a family row): built once per statement
    key = (metric, id(f), b, devices, said.id, tuple(sorted(said.params.items())))
    hit = _BUILT.get(key)
    if hit is not None and hit[0] is f:
        return hit[1]
    out = Efficiency(metric=metric, value=f.value, source=f.source, factor_id=f.id, note=f.note,
                     note_i18n=f.note_message, basis=b,
                     basis_devices=list(devices), provenance=render(said), provenance_i18n=said.to_json())
    if len(_BUILT) > _MEMO_SIZE:
        _BUILT.clear()
    _BUILT[key] = (f, out)
    return out


def basis(f: EfficiencyFactor, acc: Accelerator) -> tuple[Basis, tuple[str, ...]]:
    """Where factor `f` comes from when applied to `acc`, and the devices it came from: the one rule every estimate
    (CLI text, --json, API) states its efficiency factors by. A derived row says how it was derived (the variant's
    parent, a family median; the median of all measured devices, reached only by a device whose family has none, is
    an assumption about it); a row naming only this device is its measurement; a row for a family or a device list
    holds for the group; a row for every device is general; a row without a source is assumed."""
    if f.derived == "inherited":
        return "inherited", f.derived_from
    if f.derived == "median":
        return ("family-median" if f.family == acc.family and f.family != "*" else "assumed"), f.derived_from
    if f.source == ASSUMED:
        return "assumed", ()
    if f.device_ids == (acc.id,):
        return "measured", (acc.id,)
    if f.device_ids or f.family != "*":
        return "family", f.device_ids
    return "general", ()


def efficiency_value(metric: str, value: float) -> Message | str:
    """A factor's value as estimate and plan print it: a time (`*_s`: an engine's step overhead) in ms, or µs below
    1 ms (2.6 ms, 16 µs, never 0.00); a share to 2 decimals (0.70)."""
    if metric.endswith("_s"):
        return (Message("cli.est.ms", ms=value * 1e3) if abs(value) >= 1e-3 or value == 0
                else Message("cli.est.us", us=value * 1e6))
    return f"{value:.2f}"


def _provenance(f: EfficiencyFactor, acc: Accelerator, b: Basis, devices: tuple[str, ...]) -> Message:
    """`basis` as the sentence the estimate prints beside the factor."""
    names = ", ".join(devices)
    if b == "measured":
        return Message("est.basis.measured", device=acc.id, source=f.source)
    if b == "inherited":
        return Message("est.basis.inherited", device=names, source=f.source)
    if b == "family-median":
        return Message("est.basis.family_median", devices=names, source=f.source)
    if b == "family":
        if devices:
            return Message("est.basis.devices", devices=names, source=f.source)
        return Message("est.basis.family", family=f.family, source=f.source)
    if b == "general":
        return Message("est.basis.general", source=f.source)
    if devices:  # the median of all measured devices, for a device whose family has none
        return Message("est.basis.assumed_median", family=acc.family, n=len(devices), source=f.source)
    return Message("est.basis.assumed")
