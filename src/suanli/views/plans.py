"""The JSON shape of a plan result (`suanli plan --json`, POST /api/plan, saved plans)."""

from __future__ import annotations

from typing import Any

from suanli.plan.search import PlanResult

__all__ = ["localized", "plan_json"]


def plan_json(r: PlanResult) -> dict[str, Any]:
    return {
        "model": r.model_id,
        "request": r.request.model_dump(mode="json"),
        "plans": [p.model_dump(mode="json") for p in r.plans],
        "pareto": r.pareto,
        "why_not": r.why_not,
        "relax": r.relax,
        "relax_i18n": r.relax_i18n,
        "assumptions": r.assumptions,
        "assumptions_i18n": r.assumptions_i18n,
        "configurations_evaluated": r.configurations_evaluated,
        "search_seconds": r.search_seconds,
    }


def localized(out: dict[str, Any], lang: str, surface: str = "web") -> dict[str, Any]:
    """A plan JSON with its sentences (reasons, warnings, why-not, relax, assumptions) rendered in `lang` from the
    planner's messages (`*_i18n`); the English text stays where no message was recorded."""
    from suanli.i18n import Message, render

    def r(msg: Any, text: Any) -> Any:
        return render(Message.from_json(msg), lang, surface) if isinstance(msg, dict) and msg else text  # type: ignore[arg-type]

    def many(msgs: Any, texts: list[Any]) -> list[Any]:
        return [r(m, x) for m, x in zip(msgs, texts)] if msgs and len(msgs) == len(texts) else texts

    o = dict(out)
    o["plans"] = [{**p, "reason": r(p.get("reason_i18n"), p.get("reason")),
                   "warnings": many(p.get("warnings_i18n"), p.get("warnings") or [])} for p in out.get("plans", [])]
    o["why_not"] = [{**w, "reason": r(w.get("reason_i18n"), w.get("reason"))} for w in out.get("why_not", [])]
    o["relax"] = many(out.get("relax_i18n"), out.get("relax") or [])
    o["assumptions"] = many(out.get("assumptions_i18n"), out.get("assumptions") or [])
    return o
