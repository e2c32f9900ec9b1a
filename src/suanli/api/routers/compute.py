"""POST /api/estimate, /api/plan, /api/compare, /api/tco, /api/migrate, /api/migrate/check: each runs in a worker thread within
the per-request time budget (503 past it)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from suanli.api.deps import catalog, planning_catalog, run_bounded, store_of
from suanli.api.errors import PlanRefused, as_field, finite
from suanli.api.responses import CompareRow, MigrateAnswer, MigrateCheckAnswer, TcoRow
from suanli.api.schemas import CompareBody, EstimateBody, MigrateBody, MigrateCheckBody, PlanBody, TcoBody
from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.errors import InputError, NotFoundError, SuanliError
from suanli.i18n import Lang, Surface, localize
from suanli.views.estimates import EstimateJson
from suanli.views.plans import PlanJson
from suanli.web.messages import request_lang, request_surface

router = APIRouter(prefix="/api", tags=["compute"])


def _breakdowns(cat: Catalog, m: Any, req: Any, plans: list[dict[str, Any]]) -> None:
    """Each plan's memory per device by item: `suanli estimate` of the plan's own workload (`plan_workload`),
    whose needed bytes equal the plan's by construction (one model of the world, issue 10)."""
    from suanli.estimate.estimate import estimate
    from suanli.plan.search import Plan, plan_workload

    for p in plans:
        try:
            acc = lookup.accelerator(cat, p["device"])
            mem = estimate(cat, m, acc, plan_workload(Plan.model_validate(p), req)).memory
            p["breakdown_bytes"] = dict(mem.breakdown_bytes)
        except SuanliError:
            p["breakdown_bytes"] = None


def plan_answer(request: Request, body: PlanBody, lang: str | None = None, surface: Surface = "api") -> dict[str, Any]:
    """The plan for a body, from the cache when the same body met the same catalog revision on the same date (and,
    with `lang`, its sentences already rendered in that language by `i18n.localize` on `surface`: the API's hints and
    warnings name JSON fields, `output`; the page's, `surface="web"`, its form labels). Prices are judged fresh or stale on `suanli plan`'s date
    (`views.dates.as_of`: SUANLI_TODAY, else today), and that date is part of the cache key, so an answer cached
    yesterday is not served once a price has gone stale."""
    from suanli.plan.request import NAME_FIELDS, PlanRequest, catalog_names, with_rate_note
    from suanli.plan.search import plan
    from suanli.views.bounds import check_plan
    from suanli.views.dates import as_of
    from suanli.views.plans import plan_json, with_calibration_note

    # `output` left out stays unset in the request (the reasoning-model warning is for an output not given); so do
    # `seq` and `global_batch` (the training step's assumption marks each default that stood)
    unset = {f for f in ("output", "seq", "global_batch") if f not in body.model_fields_set}
    fields = body.model_dump(exclude={"breakdown", "name"} | unset)
    if any(fields.get(f) for f in NAME_FIELDS):  # vendors, stacks, already_on as `suanli plan` reads them (华为, CANN)
        fields = catalog_names(planning_catalog(request), fields, indexed=True)
    req = PlanRequest.model_validate(fields)
    check_plan(req)
    today = as_of()
    store, cache = store_of(request), request.app.state.plan_cache
    from suanli.views.estimates import calibration_sha256

    # the calibration file's content too: a new `suanli calibrate` changes the answer (views.estimates.calibrated)
    key = (store.revision(), today.isoformat(), calibration_sha256(), body.model_dump_json(exclude={"name"}), lang,
           surface, frozenset(unset))  # an output given answers without the reasoning-model warning; a default marked
    out = cache.get(key)
    if out is None:
        c = planning_catalog(request)
        m = lookup.model(c, req.model)
        from suanli.plan.search import PP_SIZES
        from suanli.validate.bands import packaged_error_bands
        from suanli.views.bounds import check_vpp

        if req.task != "inference":  # a pinned vpp no searched pp splits the layers for: one refusal, as `suanli plan`
            check_vpp(req.vpp, req.pp, m.num_layers, PP_SIZES)
        try:  # each plan's speed evidence; a rate derived from concurrent_users said first among the assumptions
            out = plan_json(with_calibration_note(with_rate_note(plan(c, m, req, today,
                                                                      error_bands=packaged_error_bands())), c))
        except InputError as e:  # the core says `gpu`; the request said devices
            if e.field == "gpu":  # a flag's name (requests-per-s) is the field's by the handler (errors.json_named)
                raise as_field(e, "devices") from None
            raise
        if body.breakdown:
            _breakdowns(c, m, body, out["plans"])
        out = finite(out)
        if lang is not None:
            out = localize(out, lang, surface)
        cache.put(key, out)
    return out


def names_first(cat: Catalog, body: Any, refused: set[tuple[Any, ...]], devices: str) -> None:
    """A body's model and device names looked up in `cat`, the catalog its endpoint searches, before the body's other
    refusals: an unknown one is said first, with its closest names (NotFoundError: 404), as `suanli plan`, `estimate`
    and `compare` do (f84a55b, buyer review 2026-12-03). POST /api/plan and /api/plans (`devices`, a list),
    /api/compare (`devices`) and /api/estimate (`gpu`, one name). `refused`: the locations (after "body") of what
    pydantic refused, a name refused as such (empty, too long; `("devices", 0)`) not looked up; a list refused as a
    whole (2–4 devices) still has its names looked up, as the CLI does. At most MAX_LIST_ITEMS devices
    (views.bounds.check_device_names, the CLI's one check)."""
    from suanli.views.bounds import check_device_names

    if not isinstance(body, dict):
        return
    if isinstance(body.get("model"), str) and ("model",) not in refused:
        lookup.model(cat, body["model"])
    given = body.get(devices)
    names = ([given] if isinstance(given, str) and (devices,) not in refused
             else [x for i, x in enumerate(given) if (devices, i) not in refused] if isinstance(given, list) else [])
    try:
        check_device_names(cat, names)  # as `suanli plan` / `compare` check their --gpu names
    except NotFoundError as e:  # the core says `gpu`; the request said devices
        raise as_field(e, devices) from None


@router.post("/estimate", response_model=EstimateJson, response_model_exclude_unset=True)
async def estimate_ep(request: Request, body: EstimateBody,
                      lang: Annotated[Lang, Depends(request_lang)] = "en") -> dict[str, Any]:
    """The estimate of `suanli estimate --json`, with the same calibration file applied and the same memory check
    (fits_tight, likely_short, headroom against the validated memory error); its sentences (memory_warning,
    memory_likely_short) in the request's language (`?lang=` or Accept-Language), their messages in `*_i18n`."""
    from suanli.views.estimates import (default_engine, engine_default_note, estimate_json,
                                       estimate_with_calibration, with_notes)
    from suanli.catalog.ranks import dies_per_card, ranks_of
    from suanli.estimate.estimate import check_ep_has_experts
    from suanli.estimate.workload import validated

    def run() -> dict[str, Any]:
        c = catalog(request)
        m = lookup.model(c, body.model)
        acc = lookup.accelerator(c, body.gpu)
        fields = body.model_dump(exclude={"model", "gpu"})
        note = None
        if "engine" not in body.model_fields_set:  # as `suanli estimate` without --engine, with its note
            fields["engine"] = default_engine(c, acc, body.task)
            note = engine_default_note(c, acc, m, body.task)
        if body.precision is None:  # unset or null: as `suanli estimate` without --precision (one default rule)
            from suanli.estimate.precision import default_precision

            fields["precision"] = default_precision(m, acc, next((s for s in c.stacks if s.id == acc.stack), None),
                                                    body.task)
        fields["gpus"] = ranks_of(acc, body.gpus)  # gpus counts cards, the workload ranks (a 910C: 2 a card)
        check_ep_has_experts(m, body.ep)  # a dense model's ep said as such, before the layout checks (as the CLI)
        w = validated(fields, dies_per_card(acc))  # the layout checked on the ranks, a refusal said in cards and dies
        if "engine" in body.model_fields_set and w.training:  # an engine serves: refused as `suanli estimate` does
            from suanli.plan.request import serving_task_refusal

            raise InputError("engine", serving_task_refusal(["engine"], w.task).i18n)
        e = with_notes(estimate_with_calibration(c, m, acc, w), [note])
        return estimate_json(c, e, asked=body.model)  # `suanli estimate --json`'s view (model.id: the checkpoint)

    return localize(await run_bounded(request, run, "estimate"), lang)


@router.post("/plan", response_model=PlanJson, response_model_exclude_unset=True)
async def plan_ep(request: Request, body: PlanBody, lang: Annotated[Lang, Depends(request_lang)] = "en",
                  surface: Annotated[Surface, Depends(request_surface)] = "api") -> dict[str, Any]:
    """Ranked plans with reasons, warnings, Pareto front and why-not, in the request's language (`?lang=` or
    Accept-Language; the messages themselves are in the `*_i18n` fields), inputs named by their JSON fields
    (`?surface=web`: the page's form labels). Saving is a write: POST /api/plans."""
    from suanli.i18n import t

    out = await run_bounded(request, lambda: plan_answer(request, body, lang, surface), "plan")
    alone = [m.get("id", "").endswith("_alone") for m in out.get("relax_i18n") or []]
    if not out["plans"] and alone and all(alone):
        # no plan meets the budget and the deadline together, nor either with the other relaxed: 422 with the
        # planner's hints for both (plan._relax), naming the request's fields (the page's form fields on its surface)
        raise PlanRefused(t("error.no_plan_both", lang), out["relax"], out["relax_i18n"])
    return out


@router.post("/compare", response_model=list[CompareRow], response_model_exclude_unset=True)
async def compare_ep(request: Request, body: CompareBody, lang: Annotated[Lang, Depends(request_lang)] = "en",
                     surface: Annotated[Surface, Depends(request_surface)] = "api") -> list[dict[str, Any]]:
    """Devices side by side; sentences (layout notes, unpriced, stale, estimate notes) in the request's language
    (`?lang=` or Accept-Language, `i18n.localize`), their messages in the `*_i18n` fields."""
    from suanli.plan.compare import compare_devices
    from suanli.views.dates import as_of

    def run() -> list[dict[str, Any]]:
        from suanli.validate.bands import packaged_error_bands

        c = catalog(request)
        try:
            rows = compare_devices(c, lookup.model(c, body.model), body.devices, body.task, body.gpus, body.precision,
                                   body.batch, body.tokens, body.zero, region=body.region, kinds=body.offer_kinds,
                                   tp=body.tp, pp=body.pp, recompute=body.recompute, global_batch=body.global_batch,
                                   requests_per_s=body.requests_per_s, tpot_s=body.tpot_s, ttft_s=body.ttft_s,
                                   today=as_of(), error_bands=packaged_error_bands(), input_tokens=body.input,
                                   output_tokens=body.output, concurrent_users=body.concurrent_users,
                                   asked=body.model,  # model_id: the checkpoint the job downloads
                                   hours=body.hours, days=body.days,  # serving: plan's period
                                   tokens_per_s_per_user=body.tokens_per_s_per_user)  # plan's meaning: 1 / TPOT
        except InputError as e:  # the core says `gpu`; the request said devices
            if e.field == "gpu":  # a flag's name (requests-per-s) is the field's by the handler (errors.json_named)
                raise as_field(e, "devices") from None
            raise
        from suanli.views.estimates import calibration_rows

        return calibration_rows(rows, c)  # the calibration each row used, as estimate labels it

    return localize(await run_bounded(request, run, "compare"), lang, surface)


@router.post("/tco", response_model=list[TcoRow], response_model_exclude_unset=True)
async def tco_ep(request: Request, body: TcoBody, lang: Annotated[Lang, Depends(request_lang)] = "en",
                 surface: Annotated[Surface, Depends(request_surface)] = "api") -> list[dict[str, Any]]:
    """Every offer's bill for the job; billing notes and stale warnings in the request's language (`i18n.localize`)."""
    from suanli.plan.compare import tco_rows
    from suanli.views.dates import as_of

    return localize(await run_bounded(request, lambda: tco_rows(catalog(request), body.gpu, body.hours, body.gpus, body.subsidy,
                                                       body.tokens_per_s, body.utilization, region=body.region,
                                                       kinds=body.offer_kinds, today=as_of()), "tco"), lang, surface)


@router.post("/migrate", response_model=MigrateAnswer, response_model_exclude_unset=True)
async def migrate_ep(request: Request, body: MigrateBody,
                     lang: Annotated[Lang, Depends(request_lang)] = "en",
                     surface: Annotated[Surface, Depends(request_surface)] = "api") -> dict[str, Any]:
    """Migration cost and pay-back; the weeks' reason, workload note and verdict in the request's language, inputs
    named by their JSON fields (`?surface=web`: the page's form labels, “Parallel-run weeks”). Prices are judged
    fresh or stale on `suanli migrate cost`'s date (`views.dates.as_of`: SUANLI_TODAY, else today)."""
    from suanli.plan.compare import ServingTargets, migration_cost
    from suanli.views.dates import as_of

    def run() -> dict[str, Any]:
        from suanli.validate.bands import packaged_error_bands

        from suanli.views.estimates import with_migration_calibration

        from suanli.migrate.libraries import resolve_uses

        libraries = resolve_uses(body.uses)  # as `migrate cost --uses` / `migrate check --uses`
        c = catalog(request)
        try:  # with the calibration file's factors the derived saving used, as `suanli migrate cost --json`
            return with_migration_calibration(migration_cost(
                c, lookup.model(c, body.model), body.to_gpu, body.from_gpu, body.monthly_spend, body.saving, body.task,
                body.engineers, body.engineer_week, body.subsidy, body.horizon_months, region=body.region,
                kinds=body.offer_kinds, today=as_of(), error_bands=packaged_error_bands(), asked=body.model,
                precision=body.precision,  # compare's serving targets, compare's field names
                targets=ServingTargets(body.requests_per_s, body.tpot_s, body.ttft_s, body.input, body.output,
                                       body.concurrent_users, body.max_gpus),
                libraries=libraries, gpus=body.gpus, parallel_weeks=body.parallel_weeks), c)
        except NotFoundError as e:  # the core says `gpu`; the request said to_gpu or from_gpu
            if e.field == "gpu":
                raise as_field(e, "to_gpu" if e.name == body.to_gpu else "from_gpu") from None
            raise

    return localize(await run_bounded(request, run, "migrate"), lang, surface)


@router.post("/migrate/check", response_model=MigrateCheckAnswer, response_model_exclude_unset=True)
async def migrate_check_ep(request: Request, body: MigrateCheckBody,
                           lang: Annotated[Lang, Depends(request_lang)] = "en",
                           surface: Annotated[Surface, Depends(request_surface)] = "api") -> dict[str, Any]:
    """Will the model run on Ascend? `suanli migrate check --json`: its aten operators traced (meta device, no
    weights; cached on the server) and checked against a shipped torch_npu operator list, the adapted-model lists,
    the libraries named in `uses`, the verdict and the migration weeks; sentences in the request's language. Needs
    the server's `torch` extra (without it: 422 naming `model`, as the CLI says)."""
    from suanli.i18n import Message
    from suanli.migrate.check import as_downloaded, check_answer, run_check
    from suanli.migrate.effort import list_use

    if body.model.strip().lower().endswith(".json"):  # run_check would read a file on the server
        raise InputError("model", Message("err.api_model_not_a_file", model=body.model))

    def run() -> dict[str, Any]:
        # the core names the CLI's flag (torch-npu); the answer the request's field (errors.json_named)
        report, _ = run_check(body.model, list_use(body.task), body.torch_npu, body.uses)
        return check_answer(as_downloaded(report, body.model, body.task))  # the checkpoint the task downloads

    return localize(await run_bounded(request, run, "migrate check"), lang, surface)  # type: ignore[no-any-return]
