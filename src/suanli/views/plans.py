"""The JSON shape of a plan result (`suanli plan --json`, POST /api/plan, saved plans): `plan_json` builds it,
`PlanJson` types it (the API's response model)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from suanli.catalog.schema import Catalog
from suanli.i18n import render
from suanli.plan.request import PlanRequest
from suanli.plan.search import Plan, PlanResult, calendar_counts
from suanli.views.shape import MessageJson, Shape

__all__ = ["ParetoPoint", "PlanJson", "PlanRow", "SavedPlanJson", "WhyNot", "plan_json", "shows_calendar",
           "with_calibration_note"]


class PlanRow(Plan):
    """One ranked plan (`suanli.plan.search.Plan`), plus its memory per device by item when asked for."""

    breakdown_bytes: dict[str, float] | None = Field(
        None, description="memory per device by item, bytes (POST /api/plan with breakdown: true; null when the "
        "estimate failed)")


class ParetoPoint(Shape):
    """A configuration no other beats on both cost and time."""

    device: str
    gpus: int
    hours: float
    cost_cny: float
    replicas: int
    tpot_s: float | None = Field(description="time per output token (inference), else null")


class WhyNot(Shape):
    """A device that is not among the plans, and why (in the request's language; the message in reason_i18n)."""

    device: str
    reason: str
    reason_i18n: MessageJson
    reasons: list[str] = Field([], description="every reason that applies, most fundamental first (no framework runs "
                               "the task, each unpublished figure, no public price); `reason` joins them")
    reasons_i18n: list[MessageJson] = Field([], description="reasons as messages")


class PlanJson(Shape):
    """What `plan_json` returns and POST /api/plan answers (sentences rendered in the request's language by
    `i18n.localize`; the messages themselves in the `*_i18n` fields)."""

    model: str = Field(description="the model's catalog id")
    request: PlanRequest
    plans: list[PlanRow] = Field(description="ranked, best first; empty when nothing qualifies (see relax)")
    pareto: list[ParetoPoint] = Field(description="cost/time front, cheapest first")
    why_not: list[WhyNot]
    relax: list[str] = Field(description="when nothing qualifies: which constraint to relax, by how much")
    relax_i18n: list[MessageJson]
    assumptions: list[str]
    assumptions_i18n: list[MessageJson]
    warnings: list[str] = Field([], description="about the whole request, not one plan (a reasoning model planned at "
                                "the default output when output was not given)")
    warnings_i18n: list[MessageJson] = []
    configurations_evaluated: int
    search_seconds: float
    show_calendar_hours: bool = Field(False, description="the plans' calendar_hours (migration weeks, then set-up "
                                      "and compute) decided them and differ from their hours: a table shows them "
                                      "beside the hours, as `suanli plan`'s does (`shows_calendar`)")


class SavedPlanJson(PlanJson):
    """POST /api/plans: the plan answer and the id it was stored under."""

    saved_plan_id: int


def plan_json(r: PlanResult) -> dict[str, Any]:
    """The plan result as JSON; its shape is `PlanJson`."""
    return {
        "model": r.model_id,
        "request": r.request.model_dump(mode="json"),
        # dies_per_card and cards only where a card has several dies (the 910C): other devices' JSON as it was
        "plans": [{k: v for k, v in p.model_dump(mode="json").items()
                   if v is not None or k not in ("dies_per_card", "cards")} for p in r.plans],
        "pareto": r.pareto,
        "why_not": r.why_not,
        "relax": r.relax,
        "relax_i18n": r.relax_i18n,
        "assumptions": r.assumptions,
        "assumptions_i18n": r.assumptions_i18n,
        "warnings": r.warnings,
        "warnings_i18n": r.warnings_i18n,
        "configurations_evaluated": r.configurations_evaluated,
        "search_seconds": r.search_seconds,
        "show_calendar_hours": shows_calendar(r),
    }


def shows_calendar(r: PlanResult) -> bool:
    """Whether a plan table shows each plan's calendar hours beside its hours (`suanli plan`'s, the page's): the
    calendar decided the plans (a training deadline, objective fastest of a job: `search.calendar_counts`) and differs
    from the hours for one of them (migration weeks before the job starts)."""
    return calendar_counts(r.request) and any((p.calendar_hours or p.hours) > p.hours for p in r.plans)


def with_calibration_note(r: PlanResult, cat: Catalog) -> PlanResult:
    """The plan result with the calibration it used said last among its assumptions (`views.estimates.calibration_note`:
    the factors of the calibration file for the devices it ranked or ruled out), as `suanli estimate` labels them."""
    from suanli.views.estimates import calibration_note

    note = calibration_note(cat, {p.device for p in r.plans} | {str(w["device"]) for w in r.why_not})
    if note is None:
        return r
    return r.model_copy(update={"assumptions": [*r.assumptions, render(note)],
                                "assumptions_i18n": [*r.assumptions_i18n, note.to_json()]})
