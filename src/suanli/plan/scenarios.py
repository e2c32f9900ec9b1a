"""The seeds' scenarios as runnable plan inputs: the planner's answer beside the seeds', and why they differ."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog, Offer
from suanli.errors import SuanliError
from suanli.estimate.estimate import ErrorBand
from suanli.i18n import Message, render, yuan
from suanli.plan.request import make_request
from suanli.plan.search import Plan, plan
from suanli.units import HOURS_PER_MONTH

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
    assumption_zh: str | None = None  # the assumption in Chinese (the API's `assumption` with lang=zh)


class ScenarioResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    scenario: Scenario
    planner: Plan | None
    planner_device: str | None
    seed_best: Plan | None
    agrees: bool
    explanation: str  # English
    explanation_i18n: dict[str, Any] = {}  # the same as a message (`Message.to_json`)
    offer_kinds_used: tuple[str, ...] = ()  # the kinds of the offers its figures were priced from (`offers.kinds_priced`)


def _cny(v: float) -> str:
    return "¥0" if v == 0 else yuan(v, ",.0f" if abs(v) >= 100 else ",.2f")  # the sign first: -¥14,500


def _migration(best: Plan, seed_best: Plan | None) -> Message | str:
    """What of each side's total is migration, in one clause (buyer review 2026-12-01: the planner's ¥5,037 held
    ¥5,000 of migration and only the seeds' side said so): both sides where a seeds' plan exists, "" when neither
    total includes any."""
    if seed_best is None:
        return Message("scn.migration_planner", cny=_cny(best.migration_cost_cny)) if best.migration_cost_cny > 0 else ""
    if best.migration_cost_cny <= 0 and seed_best.migration_cost_cny <= 0:
        return ""
    return Message("scn.migration", cny=_cny(best.migration_cost_cny), seed_cny=_cny(seed_best.migration_cost_cny))


def _cards(p: Plan) -> tuple[int, Message | str]:
    """A plan's cards and device as its line names them: a card of several dies (the 910C) the cards rented and
    '(16 dies)' (`plan.device_dies`, the plan's own words); else its gpus and device id."""
    if p.cards is None:
        return p.gpus, p.device
    return p.cards, Message("plan.device_dies", device=p.device, ranks=p.gpus)


def _msg(d: Any, text: str) -> Message:
    """A planner sentence as its message (`*_i18n`), else its English text (as a message that shows it)."""
    return Message.from_json(d) if isinstance(d, dict) and d else Message("scn.text", text=text)


def _result(s: Scenario, why: Message, **kw: Any) -> ScenarioResult:
    return ScenarioResult(scenario=s, explanation=render(why), explanation_i18n=why.to_json(), **kw)


def _fields(s: Scenario) -> dict[str, Any]:
    f = dict(s.plan)
    if f.pop("no_migration", False):
        f["allow_migration"] = False
    return f


def run_scenario(cat: Catalog, s: Scenario, region: str = "cn", kinds: Sequence[str] = ("listing",),
                 today: dt.date | None = None, error_bands: Mapping[str, ErrorBand] | None = None) -> ScenarioResult:
    """The planner's answer to one scenario, priced only from the usable offers (`region`, `kinds`), on the date
    `today` (price freshness) and with the validated `error_bands` (`suanli validate --write`'s, as `plan` takes
    them: each plan's speed-evidence warnings), as `suanli plan` and POST /api/plan pass them."""
    from suanli.catalog.offers import filter_catalog

    cat = filter_catalog(cat, region, kinds)
    fields = _fields(s)
    req = make_request(**fields)
    m = lookup.model(cat, req.model)
    if m.kind == "diffusion":
        return _diffusion(cat, s, today)
    bands = dict(error_bands or {})
    mine = plan(cat, m, req, today, error_bands=bands)
    best = mine.plans[0] if mine.plans else None
    seed_ids = tuple(lookup.accelerator(cat, d).id for d in s.seed_answer)
    theirs = plan(cat, m, make_request(**{**fields, "devices": seed_ids}), today, error_bands=bands)
    seed_best = theirs.plans[0] if theirs.plans else None
    agrees = best is not None and best.device in seed_ids
    why: Message
    if best is None:
        relax = ([_msg(d, x) for d, x in zip(mine.relax_i18n, mine.relax)] if len(mine.relax_i18n) == len(mine.relax)
                 else [_msg(None, x) for x in mine.relax])
        why = Message("scn.no_plan", relax=Message("scn.list", items=relax))
    elif agrees:
        why = Message("scn.agrees", reason=_msg(best.reason_i18n, best.reason))
    elif seed_best is None:
        reasons = {w["device"]: _msg(w.get("reason_i18n"), w["reason"]) for w in theirs.why_not}
        why = Message("scn.seeds_no_plan", gpus=_cards(best)[0], device=_cards(best)[1], cost=_cny(best.total_cost_cny),
                      hours=best.hours, migration=_migration(best, None), seeds=", ".join(seed_ids),
                      reasons=Message("scn.list", items=[
                          Message("scn.device_reason", device=d, reason=reasons.get(d, Message("scn.no_plan_short")))
                          for d in seed_ids]))
    else:
        dc = seed_best.total_cost_cny / best.total_cost_cny - 1 if best.total_cost_cny else 0.0
        dh = seed_best.hours / best.hours - 1 if best.hours else 0.0
        why = Message("scn.differs", gpus=_cards(best)[0], device=_cards(best)[1], cost=_cny(best.total_cost_cny),
                      hours=best.hours, seed_gpus=_cards(seed_best)[0], seed_device=_cards(seed_best)[1],
                      seed_cost=_cny(seed_best.total_cost_cny), dc=dc, seed_hours=seed_best.hours, dh=dh,
                      migration=_migration(best, seed_best))
    return _result(s, why, planner=best, planner_device=best.device if best else None, seed_best=seed_best,
                   agrees=agrees, offer_kinds_used=tuple(p.offer_kind for p in (best, seed_best) if p is not None))


def _diffusion(cat: Catalog, s: Scenario, today: dt.date | None = None) -> ScenarioResult:
    """Image generation: for each card that holds the pipeline, the replicas needed for the requested images
    per second (seconds per image from suanli.estimate.diffusion) and the rental for the period by plan's offer
    rule: offers that can rent the one-card replicas (`offers.can_rent`), a fresh price before a stale one on
    `today`, then the cheapest (`compare.fresh_first`); the cheapest device's offer is named (`offers.rent_message`)
    and a stale price warned (`offers.stale_message`), as a plan names and warns them (buyer review 2026-12-02 #6:
    a 26-month-old ¥1.78 was taken over AutoDL's fresh ¥1.88, silently)."""
    import math

    from suanli.catalog.offers import can_rent, rent_message, stale_message
    from suanli.catalog.ranks import cards_of
    from suanli.estimate.estimate import estimate
    from suanli.estimate.workload import make_workload
    from suanli.plan.compare import fresh_first
    from suanli.plan.cost import job_cost

    m = lookup.model(cat, s.plan["model"])
    w = make_workload(task="inference", precision="fp16")
    hours = float(s.plan.get("hours", HOURS_PER_MONTH))
    rps = float(s.plan.get("requests_per_s", 0.1))
    day = today or dt.date.today()
    best: tuple[float, str, int, float, Offer] | None = None
    for acc in cat.accelerators:
        try:
            e = estimate(cat, m, acc, w)
        except SuanliError:
            continue
        if not e.memory.fits or e.diffusion is None:
            continue
        replicas = max(1, math.ceil(rps / e.diffusion.images_per_s))  # one a rank (a 910C: one a die)
        cards = cards_of(acc, replicas)  # the cards rented for them (catalog.ranks: a 910C holds 2)
        # each replica a one-card pipeline (tp 1): separate instances serve it, as plan rents serving replicas
        rentable = [o for o in cat.offers
                    if o.device == acc.id and bool(can_rent(o, acc.max_cards_per_node, cards, 1, True))]
        found = fresh_first(((c.cost_cny, o, c) for o in rentable for c in (job_cost(o, cards, hours),)), day)
        if found is not None and (best is None or found[0] < best[0]):
            best = (found[0], acc.id, cards, e.diffusion.seconds_per_image, found[1])
    seed_ids = tuple(lookup.accelerator(cat, d).id for d in s.seed_answer)
    if best is None:
        return _result(s, Message("scn.no_card"), planner=None, planner_device=None, seed_best=None, agrees=False)
    agrees = best[1] in seed_ids
    stale = stale_message(best[4], day)
    why = Message("scn.diffusion", rps=rps, hours=hours, replicas=best[2], device=best[1], cny=best[0], s=best[3],
                  rent=rent_message(best[4]), stale=Message("scn.stale", warning=stale) if stale else "")
    return _result(s, why, planner=None, planner_device=best[1], seed_best=None, agrees=agrees,
                   offer_kinds_used=(best[4].kind,))
