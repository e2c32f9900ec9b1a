"""The catalog: accelerators, models, sources, value per yuan, scenarios (read-only)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path as PathParam, Query, Request

from suanli.api.deps import catalog
from suanli.api.responses import FrameworkRow, ScenarioAnswer, ValueRow
from suanli.catalog import lookup
from suanli.catalog.schema import Source
from suanli.plan.scenarios import Scenario
from suanli.errors import InputError, NotFoundError, echoed
from suanli.i18n import Lang, Message, localize
from suanli.views import catalog as views
from suanli.web.messages import request_lang

router = APIRouter(prefix="/api", tags=["catalog"])
SCENARIOS_PATH = Path(__file__).resolve().parent.parent.parent / "data" / "scenarios.yaml"
_NAME = Annotated[str | None, Query(max_length=200)]
_PATH_NAME = Annotated[str, PathParam(min_length=1, max_length=200)]  # a longer name is a 422 in the one error shape


@router.get("/accelerators", response_model=list[views.AcceleratorRow], response_model_exclude_unset=True)
def accelerators(request: Request, vendor: _NAME = None, market: Literal["all", "domestic", "foreign"] = "all",
                 min_memory_gib: Annotated[float, Query(ge=0, le=1e6)] = 0.0,
                 sort: Literal[tuple(views.GPU_COLUMNS)] = "id") -> list[dict[str, Any]]:  # type: ignore[valid-type]
    """Accelerators with their default specs, sources, conflicting fields and stack (the same filters as
    `suanli gpus`: an unknown vendor or market is a 422)."""
    c = catalog(request)
    return views.accelerator_rows(c, views.select_accelerators(c, vendor, market, min_memory_gib, sort))


@router.get("/accelerators/{name}", response_model=views.AcceleratorDetail, response_model_exclude_unset=True)
def accelerator(request: Request, name: _PATH_NAME, lang: Annotated[Lang, Depends(request_lang)] = "en") -> dict[str, Any]:
    """One accelerator; in Chinese (?lang=zh / Accept-Language) its notes, market line and link name are the
    catalog's Chinese twins (note_zh …) where it has them."""
    c = catalog(request)
    zh = lang == "zh"
    return localize(views.accelerator_detail(c, lookup.accelerator(c, name), zh), lang)  # type: ignore[no-any-return]


@router.get("/models", response_model=list[views.ModelRow], response_model_exclude_unset=True)
def models(request: Request) -> list[dict[str, Any]]:
    return [views.model_row(m) for m in catalog(request).models]


@router.get("/models/{name:path}", response_model=views.ModelDetail, response_model_exclude_unset=True)
def model(request: Request, name: _PATH_NAME) -> dict[str, Any]:
    return views.model_detail(lookup.model(catalog(request), name))


@router.get("/frameworks", response_model=list[FrameworkRow], response_model_exclude_unset=True)
def frameworks(request: Request) -> list[dict[str, Any]]:
    """The frameworks and serving engines POST /api/plan's `framework` takes (frameworks.yaml), with their tasks and
    stacks: the page's framework choice."""
    return [{"id": f.id, "name": f.name, "tasks": list(f.tasks), "stacks": list(f.stacks), "engine": f.engine}
            for f in catalog(request).frameworks]


@router.get("/sources", response_model=list[Source], response_model_exclude_unset=True)
def sources(request: Request) -> list[dict[str, Any]]:
    return [s.model_dump(mode="json") for s in catalog(request).sources.values()]


@router.get("/value", tags=["cost"], response_model=list[ValueRow], response_model_exclude_unset=True)
def value(request: Request, precision: Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4"] = "bf16",
          region: Literal["any", "cn", "international"] = "cn",
          offer_kinds: Annotated[list[Literal["listing", "index", "reference", "contract"]],
                                 Query(min_length=1, max_length=4, description="repeat for several kinds")] = ["listing"],  # noqa: B006
          lang: Annotated[Lang, Depends(request_lang)] = "en") -> list[dict[str, Any]]:
    """Dense TFLOPS per CNY-per-card-hour (the seeds' 每元有效TFLOPS), priced from the offers of `region` (cn by
    default, as POST /api/plan) and `offer_kinds` (listings by default; `?offer_kinds=listing&offer_kinds=index`)."""
    from suanli.estimate.workload import PRECISIONS
    from suanli.plan.compare import value_table

    if precision not in PRECISIONS:
        raise InputError("precision", Message("err.is_not_one_of", value=echoed(precision), allowed=', '.join(PRECISIONS)))
    from suanli.views.dates import as_of

    # device names in the request's language (`?lang=` or Accept-Language: device_name_i18n, `i18n.localize`)
    return localize(value_table(catalog(request), precision, region=region, kinds=tuple(offer_kinds),  # type: ignore[no-any-return]
                                today=as_of()), lang)


def _scenarios() -> list[Any]:
    from suanli.catalog.load import read_yaml
    return [Scenario.model_validate(s) for s in (read_yaml(SCENARIOS_PATH) or {}).get("scenarios", [])]


@router.get("/scenarios", tags=["scenarios"], response_model=list[Scenario], response_model_exclude_unset=True)
def scenarios() -> list[dict[str, Any]]:
    return [s.model_dump(mode="json") for s in _scenarios()]


@router.get("/scenarios/{scenario_id}", tags=["scenarios"], response_model=ScenarioAnswer, response_model_exclude_unset=True)
def scenario(request: Request, scenario_id: _PATH_NAME, region: Literal["any", "cn", "international"] = "cn",
             offer_kinds: Annotated[list[Literal["listing", "index", "reference", "contract"]],
                                    Query(min_length=1, max_length=4)] = ["listing"],  # noqa: B006
             lang: Annotated[Lang, Depends(request_lang)] = "en") -> dict[str, Any]:
    """The seeds' answer beside the planner's; the explanation and the plans' sentences in the request's language
    (`?lang=` or Accept-Language, `i18n.localize`), the messages in `explanation_i18n` and the plans' `*_i18n`."""
    from suanli.plan.scenarios import run_scenario

    items = {s.id: s for s in _scenarios()}
    if scenario_id not in items:
        raise NotFoundError("scenario", scenario_id, list(items))
    from suanli.validate.bands import packaged_error_bands
    from suanli.views.dates import as_of

    # each plan's speed evidence (the planner's evidence warnings) and price freshness as POST /api/plan / the CLI
    r = run_scenario(catalog(request), items[scenario_id], region=region, kinds=tuple(offer_kinds), today=as_of(),
                     error_bands=packaged_error_bands())
    from suanli.views.scenarios import scenario_json

    return localize(scenario_json(r, region, offer_kinds), lang)  # the CLI's --json shape (views.scenarios)
