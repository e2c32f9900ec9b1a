"""Physics check over the validation cases: no measured speed may beat the fastest the case's own encoding allows.

The bound of a speed case (decode, prefill, training, diffusion) is the estimator's own kernels on the case's workload
at the physical roof: the same byte and FLOP counts (`inference_step`, `training_step`, `diffusion_speed`) at 100 % of
the catalog's peak memory bandwidth and dense peak for the precision, with no engine or per-step overhead, and what an
engine may fuse or overlap (elementwise traffic, collectives, a training pipeline's bubble) costing nothing
(`speed.roof_rates`). A measurement above it cannot have run as encoded: a field of the case (a KV-cache or weight
precision, a batch, a length, a layout) or the catalog's peak is wrong (commit 4e3fe3d: TensorRT-LLM L40S rows encoded
with a 16-bit KV cache whose decode bytes alone, 51.9 TB at 864 GB/s, take longer than the measured run).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from suanli.catalog import lookup
from suanli.catalog.ranks import rank_view
from suanli.catalog.schema import Catalog
from suanli.errors import SuanliError
from suanli.estimate.diffusion import diffusion_speed
from suanli.estimate.speed import inference_speed, training_speed
from suanli.plan.request import PlanRequest
from suanli.plan.search import Layout
from suanli.validate.report import (
    _MEASURED_KEY,
    TIME_METRICS,
    VALIDATION_DIR,
    _model_for,
    _planner_case,
    case_workload,
    planner_layout,
    speed_values,
)

__all__ = ["SPEED_GROUPS", "PhysicsCheck", "beats_physics", "physics_checks", "roof_values"]

SPEED_GROUPS = ("decode-speed", "prefill-speed", "training-throughput", "diffusion-speed")


class PhysicsCheck(BaseModel):
    """One measured speed of a case against its physical bound."""

    model_config = ConfigDict(frozen=True)

    id: str
    group: str
    file: str
    source: str
    metric: str
    measured: float
    bound: float = Field(description="the metric at the roof: the most a rate, the least a time can be")
    margin: float = Field(description="the measured rate over the bound rate − 1 (times: bound / measured − 1); "
                                      "+ the measurement beats physics")

    @property
    def beats(self) -> bool:
        return self.margin > 0


def roof_values(cat: Catalog, case: dict[str, Any], directory: Path = VALIDATION_DIR,
                planned: tuple[Layout, PlanRequest] | None = None) -> dict[str, float]:
    """Every speed metric of a case's workload (`report.speed_values`) at the roof: inference and diffusion through
    their kernels on `roof_rates`; training at its step's FLOPs on the dense peak (`compute_s`, pipeline bubble left
    out: zero-bubble schedules exist), the rates scaled by step / compute. `planned`: the planner's layout for a case
    that states none (`report.planner_layout`), scored as `suanli validate` scores it."""
    m = _model_for(cat, case, directory)
    w = case_workload(case, "default", planned)
    acc = rank_view(lookup.accelerator(cat, case["device"]))  # a rank, as `estimate` reads a card of several dies
    if m.kind == "diffusion":
        return speed_values(case, w, None, None, diffusion_speed(cat, m, acc, w, roof=True))
    if not w.training:
        return speed_values(case, w, inference_speed(cat, m, acc, w, roof=True), None, None)
    t = training_speed(cat, m, acc, w, roof=True)
    scale = t.step_time_s / t.compute_s  # tokens/s and MFU go as 1 / step time
    t = t.model_copy(update={"train_tokens_per_s": t.train_tokens_per_s * scale, "mfu": t.mfu * scale,
                             "step_time_s": t.compute_s})
    return speed_values(case, w, None, t, None)


def _margin(metric: str, measured: float, bound: float) -> float:
    """+ where `measured` beats `bound`: a rate above it, a time below it (`report.TIME_METRICS`)."""
    return bound / measured - 1 if metric in TIME_METRICS else measured / bound - 1


def physics_checks(cat: Catalog, cases: list[dict[str, Any]], directory: Path = VALIDATION_DIR
                   ) -> tuple[list[PhysicsCheck], list[str]]:
    """Every speed metric every speed case states, against its bound (`roof_values`); and one line per case that
    could not be bounded (as `report.run_validation` skips it)."""
    checks: list[PhysicsCheck] = []
    skipped: list[str] = []
    for case in cases:
        group = case.get("group")
        if group not in SPEED_GROUPS:
            continue
        try:
            planned: tuple[Layout, PlanRequest] | None = None
            if _planner_case(case):
                layout, req, why = planner_layout(cat, case, directory)
                if layout is None:
                    skipped.append(f"{case.get('id')}: layout unstated: no layout fits: {why}")
                    continue
                planned = (layout, req)
            roof = roof_values(cat, case, directory, planned)
        except (SuanliError, KeyError, StopIteration) as e:
            skipped.append(f"{case.get('id')}: {type(e).__name__}: {e}")
            continue
        for metric in _MEASURED_KEY[group]:
            if metric not in case["measured"] or roof.get(metric) is None:
                continue
            measured, bound = float(case["measured"][metric]), float(roof[metric])
            checks.append(PhysicsCheck(id=case["id"], group=group, file=case.get("_file", ""), source=case["source"],
                                       metric=metric, measured=measured, bound=bound,
                                       margin=_margin(metric, measured, bound)))
    return checks, skipped


def beats_physics(checks: list[PhysicsCheck]) -> list[PhysicsCheck]:
    """The checks whose measurement beats its bound, the widest margin first."""
    return sorted((c for c in checks if c.beats), key=lambda c: -c.margin)
