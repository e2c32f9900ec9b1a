"""FastAPI app factory: read endpoints for the catalog and the store, POST endpoints for estimate, plan,
compare, tco and migrate, token-protected import/update endpoints, and the web page at `/`.

Errors are JSON `{"error": one line, "field": name or null, "errors": [...]}`: a name not in the catalog is
404, any other bad input 422 (suanli's InputError, EstimateError, PlanError and pydantic validation alike);
bad input never produces a 500.
"""

from __future__ import annotations

import collections
import hmac
import json
import math
import os
import threading
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, File, Header, Query, Request, UploadFile
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict

from suanli import __version__
from suanli.api.schemas import CompareBody, EstimateBody, MigrateBody, PlanBody, PriceBody, TcoBody
from suanli.catalog import lookup
from suanli.catalog.load import read_yaml
from suanli.catalog.schema import Catalog
from suanli.errors import DataFileError, InputError, NotFoundError, SuanliError
from suanli.estimate.workload import Workload

__all__ = ["Settings", "create_app"]

SCENARIOS_PATH = Path(__file__).resolve().parent.parent / "data" / "scenarios.yaml"
MAX_UPLOAD_BYTES = 20 * 2**20


class Settings(BaseModel):
    """How the service runs. `from_env()` reads SUANLI_DATABASE_URL and SUANLI_API_TOKEN."""

    model_config = ConfigDict(frozen=True)

    database_url: str | None = None
    api_token: str | None = None
    plan_cache_size: int = 256
    web: bool = True

    @classmethod
    def from_env(cls) -> Settings:
        return cls(database_url=os.environ.get("SUANLI_DATABASE_URL") or None,
                   api_token=os.environ.get("SUANLI_API_TOKEN") or None)


def _finite(obj: Any) -> Any:
    """JSON has no NaN or Infinity: such numbers become null."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    if isinstance(obj, BaseModel):
        return _finite(obj.model_dump(mode="json"))
    return obj


class SafeJSONResponse(JSONResponse):
    def render(self, content: Any) -> bytes:
        return json.dumps(_finite(content), ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def _err(status: int, message: str, field: str | None = None, errors: list[Any] | None = None) -> SafeJSONResponse:
    return SafeJSONResponse({"error": message, "field": field, "errors": errors or []}, status_code=status)


class _PlanCache:
    """Identical plan requests against the same catalog revision return the stored answer (LRU)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._d: collections.OrderedDict[tuple[Any, str], dict[str, Any]] = collections.OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: tuple[Any, str]) -> dict[str, Any] | None:
        with self._lock:
            v = self._d.get(key)
            if v is not None:
                self._d.move_to_end(key)
                self.hits += 1
            else:
                self.misses += 1
            return v

    def put(self, key: tuple[Any, str], value: dict[str, Any]) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._d[key] = value
            self._d.move_to_end(key)
            while len(self._d) > self.size:
                self._d.popitem(last=False)


def _breakdowns(cat: Catalog, m: Any, req: PlanBody, plans: list[dict[str, Any]]) -> None:
    """Each plan's memory per device by item (the estimator's breakdown for the plan's configuration)."""
    from suanli.estimate.estimate import estimate
    from suanli.estimate.workload import make_workload

    for p in plans:
        try:
            acc = lookup.accelerator(cat, p["device"])
            if req.task == "inference":
                w = make_workload(task="inference", precision=p["precision"], batch=p["micro_batch"], input=req.input,
                                  output=req.output, tp=p["tp"], gpus=p["tp"] * p["pp"], engine="vllm")
            else:
                w = make_workload(task=req.task, precision=p["precision"], batch=p["micro_batch"], seq=req.seq,
                                  tp=p["tp"], pp=p["pp"], gpus=p["gpus"], zero=p["zero"] or 0,
                                  recompute=p["recompute"] or "none", grad_accum=p["grad_accum"] or 1)
            mem = estimate(cat, m, acc, w).memory
            p["breakdown_bytes"] = dict(mem.breakdown_bytes)
            total = sum(v for k, v in mem.breakdown_bytes.items() if k != "kv_cache_pool_unused")
            if abs(total - p["memory_per_gpu_bytes"]) > 0.01 * p["memory_per_gpu_bytes"]:
                p["breakdown_note"] = (f"the estimator's breakdown totals {total / 2**30:,.1f} GiB per card, the planner's "
                                       f"{p['memory_per_gpu_bytes'] / 2**30:,.1f} GiB")
        except SuanliError:
            p["breakdown_bytes"] = None


def _offline_docs(app: FastAPI) -> None:
    """/docs from Swagger UI files shipped in the `swagger-ui-bundle` wheel, not from a CDN."""
    from fastapi.openapi.docs import get_swagger_ui_html
    from swagger_ui_bundle import swagger_ui_path

    app.mount("/docs-static", StaticFiles(directory=swagger_ui_path), name="docs-static")

    @app.get("/docs", include_in_schema=False)
    def docs() -> Response:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} — docs",
            swagger_js_url="/docs-static/swagger-ui-bundle.js",
            swagger_css_url="/docs-static/swagger-ui.css",
            swagger_favicon_url="/docs-static/favicon-32x32.png",
        )


def create_app(settings: Settings | None = None) -> FastAPI:
    """The API and web page over a store opened (migrated and seeded) now."""
    from suanli.store import open_store
    from suanli.store.importer import OfferImportError

    settings = settings or Settings.from_env()
    store = open_store(settings.database_url)
    cache = _PlanCache(settings.plan_cache_size)
    app = FastAPI(
        title="suanli (算力) API",
        version=__version__,
        description="Which GPU or NPU to rent for an AI job, how many, how long, at what cost. "
        "Every number has a source; errors are JSON naming the field.",
        default_response_class=SafeJSONResponse,
        docs_url=None,  # served below from the swagger-ui-bundle package: no CDN, works offline
        redoc_url=None,  # ReDoc loads from a CDN: left out so that nothing the service serves needs the network
    )
    _offline_docs(app)
    app.state.store = store
    app.state.settings = settings
    app.state.plan_cache = cache

    # -- errors ---------------------------------------------------------------------------------------
    @app.exception_handler(OfferImportError)
    async def _import_error(_: Request, e: OfferImportError) -> Response:
        return _err(422, str(e), e.field, [x.as_dict() for x in e.errors])

    @app.exception_handler(NotFoundError)
    async def _not_found(_: Request, e: NotFoundError) -> Response:
        return _err(404, str(e), e.field, [{"field": e.field, "suggestions": e.suggestions}])

    @app.exception_handler(InputError)
    async def _input(_: Request, e: InputError) -> Response:
        return _err(422, str(e), e.field)

    @app.exception_handler(DataFileError)
    async def _data(_: Request, e: DataFileError) -> Response:
        return _err(422, str(e), e.field)

    @app.exception_handler(SuanliError)
    async def _suanli(_: Request, e: SuanliError) -> Response:
        return _err(422, str(e))

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, e: RequestValidationError) -> Response:
        errs = []
        for x in e.errors():
            loc = [str(p) for p in x.get("loc", ()) if not str(p).startswith("function-")]
            errs.append({"field": ".".join(loc[1:] if loc and loc[0] in ("body", "query", "path") else loc) or None,
                         "in": loc[0] if loc else None, "message": str(x.get("msg", "")).removeprefix("Value error, ")})
        first = errs[0] if errs else {"field": None, "message": "invalid request"}
        msg = (f"{first['field']}: " if first["field"] else "") + first["message"]
        return _err(422, msg, first["field"], errs)

    # -- auth -----------------------------------------------------------------------------------------
    def require_token(authorization: Annotated[str | None, Header()] = None,
                      x_api_token: Annotated[str | None, Header()] = None) -> None:
        if not settings.api_token:
            raise _Refused(403, "writes are disabled: the server has no SUANLI_API_TOKEN configured")
        given = x_api_token or (authorization[7:] if authorization and authorization.lower().startswith("bearer ") else None)
        if not given or not hmac.compare_digest(given.encode(), settings.api_token.encode()):
            raise _Refused(401, "missing or wrong API token (send 'Authorization: Bearer TOKEN' or 'X-API-Token')")

    @app.exception_handler(_Refused)
    async def _refused(_: Request, e: _Refused) -> Response:
        return _err(e.status, e.message, "token")

    Token = Depends(require_token)

    def cat() -> Catalog:
        return store.catalog()

    # -- read -----------------------------------------------------------------------------------------
    @app.get("/api/health", tags=["meta"])
    def health() -> dict[str, Any]:
        return {"ok": True, "version": __version__}

    @app.get("/api/info", tags=["meta"])
    def info() -> dict[str, Any]:
        i = store.info()
        c = cat()
        return {**i, "version": __version__, "writes_enabled": bool(settings.api_token), "catalog_as_of": c.as_of,
                "plan_cache": {"size": cache.size, "hits": cache.hits, "misses": cache.misses}}

    @app.get("/api/accelerators", tags=["catalog"])
    def accelerators(vendor: str | None = None, market: str = "all", min_memory_gib: float = 0.0) -> list[dict[str, Any]]:
        from suanli.cli.catalog_cmd import accelerator_row

        if market not in ("all", "domestic", "foreign"):
            raise InputError("market", f"{market!r} is not one of all, domestic, foreign")
        c = cat()
        rows = []
        for a in c.accelerators:
            if vendor and a.vendor != vendor.lower():
                continue
            if market != "all" and a.domestic != (market == "domestic"):
                continue
            r = accelerator_row(a)
            if (r["memory_gib"] or 0) < min_memory_gib:
                continue
            r["conflicts"] = [f for f in type(a.specs).model_fields
                              if getattr(a.specs, f) is not None and getattr(a.specs, f).conflicting]
            r["stack"] = a.stack
            rows.append(r)
        return rows

    @app.get("/api/accelerators/{name}", tags=["catalog"])
    def accelerator(name: str) -> dict[str, Any]:
        from suanli.cli.catalog_cmd import accelerator_detail

        c = cat()
        return accelerator_detail(c, lookup.accelerator(c, name))

    @app.get("/api/models", tags=["catalog"])
    def models() -> list[dict[str, Any]]:
        from suanli.estimate.params import param_count

        out = []
        for m in cat().models:
            p = param_count(m)
            out.append({"id": m.id, "aliases": list(m.aliases), "family": m.family, "kind": m.kind,
                        "params": p.total, "active_params": p.active, "max_context": m.max_context,
                        "source": m.source})
        return out

    @app.get("/api/models/{name:path}", tags=["catalog"])
    def model(name: str) -> dict[str, Any]:
        from suanli.estimate.params import param_count

        m = lookup.model(cat(), name)
        p = param_count(m)
        return {"id": m.id, "params": p.total, "active_params": p.active, "breakdown": p.model_dump(mode="json"),
                "architecture": m.model_dump(mode="json", exclude_none=True)}

    @app.get("/api/sources", tags=["catalog"])
    def sources() -> list[dict[str, Any]]:
        return [s.model_dump(mode="json") for s in cat().sources.values()]

    @app.get("/api/offers", tags=["prices"])
    def offers(device: str | None = None, provider: str | None = None, billing_unit: str | None = None) -> list[dict[str, Any]]:
        c = cat()
        dev = lookup.accelerator(c, device).id if device else None
        units = ("second", "minute", "hour", "day", "week", "month", "year")
        if billing_unit is not None and billing_unit not in units:
            raise InputError("billing_unit", f"{billing_unit!r} is not one of {', '.join(units)}")
        return [
            {**o.model_dump(mode="json"), "price_cny": o.price_cny.value,
             "price_cny_max": o.price_cny_max.value if o.price_cny_max else None}
            for o in c.offers
            if (dev is None or o.device == dev) and (provider is None or provider.lower() in o.provider.lower())
            and (billing_unit is None or o.billing_unit == billing_unit)
        ]

    @app.get("/api/offers/{offer_id}/history", tags=["prices"])
    def offer_history(offer_id: str) -> list[dict[str, Any]]:
        rows = store.price_history(offer_id=offer_id)
        if not rows:
            raise NotFoundError("offer", offer_id, [o.id for o in cat().offers])
        return rows

    @app.get("/api/prices", tags=["prices"])
    def prices(device: str | None = None, offer: str | None = None,
               limit: Annotated[int, Query(ge=1, le=100_000)] = 10_000) -> list[dict[str, Any]]:
        dev = lookup.accelerator(cat(), device).id if device else None
        return store.price_history(offer_id=offer, device=dev, limit=limit)

    @app.get("/api/imports", tags=["prices"])
    def imports() -> list[dict[str, Any]]:
        return store.imports()

    @app.get("/api/value", tags=["cost"])
    def value(precision: str = "bf16") -> list[dict[str, Any]]:
        from suanli.estimate.workload import PRECISIONS
        from suanli.plan.compare import value_table

        if precision not in PRECISIONS:
            raise InputError("precision", f"{precision!r} is not one of {', '.join(PRECISIONS)}")
        return value_table(cat(), precision)

    def _scenarios() -> list[Any]:
        from suanli.plan.scenarios import Scenario

        return [Scenario.model_validate(s) for s in (read_yaml(SCENARIOS_PATH) or {}).get("scenarios", [])]

    @app.get("/api/scenarios", tags=["scenarios"])
    def scenarios() -> list[dict[str, Any]]:
        return [s.model_dump(mode="json") for s in _scenarios()]

    @app.get("/api/scenarios/{scenario_id}", tags=["scenarios"])
    def scenario(scenario_id: str) -> dict[str, Any]:
        from suanli.plan.scenarios import run_scenario

        items = {s.id: s for s in _scenarios()}
        if scenario_id not in items:
            raise NotFoundError("scenario", scenario_id, list(items))
        r = run_scenario(cat(), items[scenario_id])
        return {"id": r.scenario.id, "title": r.scenario.title, "source": r.scenario.source,
                "seed_answer": list(r.scenario.seed_answer), "seed_reason": r.scenario.seed_reason,
                "plan_input": r.scenario.plan, "assumption": r.scenario.assumption,
                "planner_answer": r.planner_device,
                "planner_plan": r.planner.model_dump(mode="json") if r.planner else None,
                "seed_best_plan": r.seed_best.model_dump(mode="json") if r.seed_best else None,
                "agrees": r.agrees, "explanation": r.explanation}

    @app.get("/api/plans", tags=["plans"])
    def saved_plans() -> list[dict[str, Any]]:
        return store.plans()

    @app.get("/api/plans/{plan_id}", tags=["plans"])
    def saved_plan(plan_id: Annotated[int, PathParam(ge=1, le=2**62)]) -> dict[str, Any]:
        return store.plan(plan_id)

    @app.get("/api/bench-results", tags=["bench"])
    def bench_results(accelerator: str | None = None) -> list[dict[str, Any]]:
        return store.bench_results(accelerator)

    # -- compute --------------------------------------------------------------------------------------
    @app.post("/api/estimate", tags=["compute"])
    def estimate_ep(body: EstimateBody) -> dict[str, Any]:
        from suanli.estimate.estimate import estimate
        from suanli.validate.bands import packaged_error_bands

        c = cat()
        m = lookup.model(c, body.model)
        acc = lookup.accelerator(c, body.gpu)
        w = Workload.model_validate(body.model_dump(exclude={"model", "gpu"}))
        return estimate(c, m, acc, w, packaged_error_bands()).contract()

    @app.post("/api/plan", tags=["compute"])
    def plan_ep(body: PlanBody) -> dict[str, Any]:
        from suanli.cli.plan_cmd import plan_json
        from suanli.plan.request import PlanRequest
        from suanli.plan.search import plan

        req = PlanRequest.model_validate(body.model_dump(exclude={"breakdown", "save", "name"}))
        rev = store.revision()
        key = (rev, body.model_dump_json(exclude={"save", "name"}))
        out = cache.get(key)
        if out is None:
            c = cat()
            m = lookup.model(c, req.model)
            out = plan_json(plan(c, m, req))
            if body.breakdown:
                _breakdowns(c, m, body, out["plans"])
            out = _finite(out)
            cache.put(key, out)
        if body.save:
            pid = store.save_plan(out["model"], out["request"], out, body.name)
            out = {**out, "saved_plan_id": pid}
        return out

    @app.post("/api/compare", tags=["compute"])
    def compare_ep(body: CompareBody) -> list[dict[str, Any]]:
        from suanli.plan.compare import compare_devices

        c = cat()
        return compare_devices(c, lookup.model(c, body.model), body.devices, body.task, body.gpus, body.precision,
                               body.batch, body.tokens, body.zero)

    @app.post("/api/tco", tags=["compute"])
    def tco_ep(body: TcoBody) -> list[dict[str, Any]]:
        from suanli.plan.compare import tco_rows

        return tco_rows(cat(), body.gpu, body.hours, body.gpus, body.subsidy, body.tokens_per_s, body.utilization)

    @app.post("/api/migrate", tags=["compute"])
    def migrate_ep(body: MigrateBody) -> dict[str, Any]:
        from suanli.plan.compare import migration_cost

        c = cat()
        return migration_cost(c, lookup.model(c, body.model), body.to_gpu, body.from_gpu, body.monthly_spend,
                              body.saving, body.task, body.engineers, body.engineer_week, body.subsidy,
                              body.horizon_months)

    # -- write (token) --------------------------------------------------------------------------------
    @app.post("/api/offers/import", tags=["prices"], dependencies=[Token])
    async def import_ep(file: Annotated[UploadFile, File(description="CSV or YAML offers file")],
                        format: str | None = None) -> dict[str, Any]:
        data = await file.read(MAX_UPLOAD_BYTES + 1)
        if len(data) > MAX_UPLOAD_BYTES:
            raise InputError("file", f"larger than {MAX_UPLOAD_BYTES // 2**20} MiB")
        import anyio

        return dict(await anyio.to_thread.run_sync(
            lambda: store.import_offers_bytes(data, file.filename or "upload", fmt=format, via="api")))

    @app.post("/api/offers/{offer_id}/prices", tags=["prices"], dependencies=[Token])
    def add_price_ep(offer_id: str, body: PriceBody) -> dict[str, Any]:
        return dict(store.add_price(offer_id, body.price_cny, body.date, body.source,
                                    price_cny_max=body.price_cny_max, note=body.note, via="api"))

    @app.post("/api/bench-results", tags=["bench"], dependencies=[Token])
    def add_bench_ep(body: dict[str, Any]) -> dict[str, Any]:
        from pydantic import ValidationError

        from suanli.bench.results import BenchResult

        try:
            r = BenchResult.model_validate(body)
        except ValidationError as e:
            err = e.errors()[0]
            raise InputError(".".join(str(p) for p in err["loc"]) or "body", err["msg"]) from None
        return {"id": store.save_bench_result(r)}

    # -- web page -------------------------------------------------------------------------------------
    if settings.web:
        static = Path(str(resources.files("suanli") / "web" / "static"))
        if static.is_dir():
            app.mount("/static", StaticFiles(directory=static), name="static")

            @app.get("/", include_in_schema=False)
            def index() -> FileResponse:
                return FileResponse(static / "index.html", media_type="text/html; charset=utf-8")

    return app


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        self.status, self.message = status, message
        super().__init__(message)
