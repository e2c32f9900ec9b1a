"""The seeds' scenarios as runnable plan inputs: the planner's answer beside the seeds', and why they differ."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.errors import SuanliError
from suanli.plan.request import make_request
from suanli.plan.search import Plan, plan

__all__ = ["Scenario", "ScenarioResult", "run_scenario"]


class Scenario(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    title: str
    source: str
    seed_answer: tuple[str, ...]
    seed_reason: str
    plan: dict[str, Any]
    assumption: str


class ScenarioResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    scenario: Scenario
    planner: Plan | None
    planner_device: str | None
    seed_best: Plan | None
    agrees: bool
    explanation: str


def _cny(v: float) -> str:
    return f"¥{v:,.0f}" if v >= 100 else f"¥{v:,.2f}"


def _fields(s: Scenario) -> dict[str, Any]:
    f = dict(s.plan)
    if f.pop("no_migration", False):
        f["allow_migration"] = False
    return f


def run_scenario(cat: Catalog, s: Scenario, region: str = "cn", kinds: Sequence[str] = ("listing",)) -> ScenarioResult:
    """The planner's answer to one scenario, priced only from the usable offers (`region`, `kinds`)."""
    from suanli.catalog.offers import filter_catalog

    cat = filter_catalog(cat, region, kinds)
    fields = _fields(s)
    req = make_request(**fields)
    m = lookup.model(cat, req.model)
    if m.kind == "diffusion":
        return _diffusion(cat, s)
    mine = plan(cat, m, req)
    best = mine.plans[0] if mine.plans else None
    seed_ids = tuple(lookup.accelerator(cat, d).id for d in s.seed_answer)
    theirs = plan(cat, m, make_request(**{**fields, "devices": seed_ids}))
    seed_best = theirs.plans[0] if theirs.plans else None
    agrees = best is not None and best.device in seed_ids
    if best is None:
        why = "the planner finds no plan: " + "; ".join(mine.relax)
    elif agrees:
        why = f"agrees: {best.reason}"
    elif seed_best is None:
        reasons = {w["device"]: w["reason"] for w in theirs.why_not}
        why = (f"planner picks {best.gpus}× {best.device} ({_cny(best.total_cost_cny)}, {best.hours:,.1f} h); "
               f"the seeds' {', '.join(seed_ids)}: " + "; ".join(f"{d}: {reasons.get(d, 'no plan')}" for d in seed_ids))
    else:
        dc = seed_best.total_cost_cny / best.total_cost_cny - 1 if best.total_cost_cny else 0.0
        dh = seed_best.hours / best.hours - 1 if best.hours else 0.0
        why = (f"planner picks {best.gpus}× {best.device}: {_cny(best.total_cost_cny)} in {best.hours:,.1f} h; "
               f"the seeds' best, {seed_best.gpus}× {seed_best.device}, costs {_cny(seed_best.total_cost_cny)} "
               f"({dc:+.0%}) in {seed_best.hours:,.1f} h ({dh:+.0%})")
        if seed_best.migration_cost_cny > best.migration_cost_cny:
            why += f"; it includes {_cny(seed_best.migration_cost_cny)} of migration"
    return ScenarioResult(scenario=s, planner=best, planner_device=best.device if best else None,
                          seed_best=seed_best, agrees=agrees, explanation=why)


def _diffusion(cat: Catalog, s: Scenario) -> ScenarioResult:
    """Image generation: for each card that holds the pipeline, the replicas needed for the requested images
    per second (seconds per image from suanli.estimate.diffusion) and the cheapest rental for the period."""
    import math

    from suanli.estimate.estimate import estimate
    from suanli.estimate.workload import make_workload
    from suanli.plan.cost import cheapest_job_cost

    m = lookup.model(cat, s.plan["model"])
    w = make_workload(task="inference", precision="fp16")
    hours = float(s.plan.get("hours", 720))
    rps = float(s.plan.get("requests_per_s", 0.1))
    best: tuple[float, str, int, float] | None = None
    for acc in cat.accelerators:
        try:
            e = estimate(cat, m, acc, w)
        except SuanliError:
            continue
        if not e.memory.fits or e.diffusion is None:
            continue
        replicas = max(1, math.ceil(rps / e.diffusion.images_per_s))
        c = cheapest_job_cost(cat, acc.id, replicas, hours)
        if c is not None and (best is None or c.cost_cny < best[0]):
            best = (c.cost_cny, acc.id, replicas, e.diffusion.seconds_per_image)
    seed_ids = tuple(lookup.accelerator(cat, d).id for d in s.seed_answer)
    if best is None:
        return ScenarioResult(scenario=s, planner=None, planner_device=None, seed_best=None, agrees=False,
                              explanation="no priced card holds the model")
    agrees = best[1] in seed_ids
    why = (f"cheapest for {rps:g} images/s over {hours:,.0f} h: {best[2]}× {best[1]} at ¥{best[0]:,.0f} "
           f"({best[3]:.1f} s per image at the pipeline's default steps and resolution)")
    return ScenarioResult(scenario=s, planner=None, planner_device=best[1], seed_best=None, agrees=agrees,
                          explanation=why)
