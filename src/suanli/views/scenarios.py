"""The JSON shape of a scenario's answer (`suanli scenarios --json`, GET /api/scenarios/{id}): `scenario_json`
builds it for both, so the CLI's JSON carries the same `explanation_i18n` message as the API's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from suanli.i18n import Message, both
from suanli.plan.scenarios import ScenarioResult

__all__ = ["scenario_json"]


def scenario_json(r: ScenarioResult, region: str, kinds: Sequence[str]) -> dict[str, Any]:
    """One scenario run (`plan.scenarios.run_scenario`): the seeds' answer beside the planner's, the English
    `explanation` and the same sentence as a message (`explanation_i18n`, None where the result has none), the
    assumption with its Chinese twin as a message (`assumption_i18n`), and the
    price basis (`region`, `offer_kinds`) it was planned on."""
    return {"id": r.scenario.id, "title": r.scenario.title, "source": r.scenario.source,
            "seed_answer": list(r.scenario.seed_answer), "seed_reason": r.scenario.seed_reason,
            "plan_input": r.scenario.plan, "assumption": r.scenario.assumption,
            "assumption_i18n": Message("scn.text", text=both(r.scenario.assumption, r.scenario.assumption_zh)).to_json(),
            "planner_answer": r.planner_device,
            "planner_plan": r.planner.model_dump(mode="json") if r.planner else None,
            "seed_best_plan": r.seed_best.model_dump(mode="json") if r.seed_best else None,
            "agrees": r.agrees, "explanation": r.explanation, "explanation_i18n": r.explanation_i18n or None,
            "region": region, "offer_kinds": list(kinds)}
