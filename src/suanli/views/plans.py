"""The JSON shape of a plan result (`suanli plan --json`, POST /api/plan, saved plans)."""

from __future__ import annotations

from typing import Any

from suanli.plan.search import PlanResult

__all__ = ["plan_json"]


def plan_json(r: PlanResult) -> dict[str, Any]:
    return {
        "model": r.model_id,
        "request": r.request.model_dump(mode="json"),
        "plans": [p.model_dump(mode="json") for p in r.plans],
        "pareto": r.pareto,
        "why_not": r.why_not,
        "relax": r.relax,
        "configurations_evaluated": r.configurations_evaluated,
        "search_seconds": r.search_seconds,
    }
