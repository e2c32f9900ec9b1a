"""FastAPI app factory: routers by resource (`suanli.api.routers`), one error shape (`suanli.api.errors`), the
guard in front of everything (`suanli.api.guard`: hosts, token before body, body size, security headers),
/docs offline (`suanli.api.docs`) and the web page at `/`.

The routers call the same library as the CLI (`suanli.views`, the core); the API never imports the CLI.
"""

from __future__ import annotations

import gc
import os
import threading
from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from suanli import __version__
from suanli.api.errors import ERROR_RESPONSES, finite, install_handlers
from suanli.api.money import MoneyJSONResponse

__all__ = ["DESCRIPTION", "Settings", "create_app", "finite"]


class Settings(BaseModel):
    """How the service runs. `from_env()` reads SUANLI_DATABASE_URL, SUANLI_API_TOKEN and
    SUANLI_ALLOWED_HOSTS (comma-separated) and SUANLI_COMPUTE_BUDGET_S."""

    model_config = ConfigDict(frozen=True)

    database_url: str | None = None
    api_token: str | None = None
    plan_cache_size: int = 256
    web: bool = True
    allowed_hosts: tuple[str, ...] | None = Field(None, description="Host headers accepted (None: any)")
    compute_budget_s: float = Field(10.0, gt=0, description="per-request time budget of the compute endpoints")
    compute_slots: int = Field(default_factory=lambda: max(1, os.cpu_count() or 1), ge=1,
                               description="compute requests run at once")

    @classmethod
    def from_env(cls) -> Settings:
        hosts = os.environ.get("SUANLI_ALLOWED_HOSTS")
        budget = os.environ.get("SUANLI_COMPUTE_BUDGET_S")
        return cls(database_url=os.environ.get("SUANLI_DATABASE_URL") or None,
                   api_token=os.environ.get("SUANLI_API_TOKEN") or None,
                   allowed_hosts=tuple(h.strip() for h in hosts.split(",") if h.strip()) if hosts else None,
                   **({"compute_budget_s": float(budget)} if budget else {}))


DESCRIPTION = ("Which GPU or NPU to rent for an AI job, how many, how long, at what cost. Every number has a source. "
               "Every non-2xx answer is `{{error, field, errors, error_i18n}}`. Writes need the server's "
               "SUANLI_API_TOKEN as `Authorization: Bearer TOKEN` (or `X-API-Token: TOKEN`; 401 without it, 403 when "
               "the server has none; checked before the body is read): {writes}.")


def create_app(settings: Settings | None = None) -> FastAPI:
    """The API and web page over a store opened (migrated and seeded) now."""
    from suanli.api.deps import PlanCache, token_routes
    from suanli.api.docs import install_docs
    from suanli.api.guard import Guard
    from suanli.api.routers import bench, catalog, compute, cost, meta, plans, prices
    from suanli.store import open_store

    settings = settings or Settings.from_env()
    app = FastAPI(
        title="suanli (算力) API",
        version=__version__,
        description=DESCRIPTION,  # its list of writes filled in below, from the routes
        default_response_class=MoneyJSONResponse,  # money to the fen at the boundary (views.money)
        docs_url=None,  # served by install_docs from a package: no CDN, works offline
        redoc_url=None,
        responses=ERROR_RESPONSES,  # type: ignore[arg-type]
    )
    app.state.store = open_store(settings.database_url)
    app.state.settings = settings
    app.state.plan_cache = PlanCache(settings.plan_cache_size)
    app.state.compute_slots = threading.BoundedSemaphore(settings.compute_slots)
    install_handlers(app)
    for r in (meta.router, catalog.router, prices.router, compute.router, cost.router, plans.router, bench.router):
        app.include_router(r)
    # the writes the description names are the routes that depend on the token, the same that carry `security`
    app.description = DESCRIPTION.format(writes=", ".join(f"`{m} {p}`" for m, p in token_routes(app)))
    install_docs(app)
    if settings.web:
        static = Path(str(resources.files("suanli") / "web" / "static"))
        if static.is_dir():
            app.mount("/static", StaticFiles(directory=static), name="static")
            from suanli.web.messages import router as messages_router  # the page's (and everyone's) message catalog

            app.include_router(messages_router)

            @app.get("/", include_in_schema=False)
            def index() -> FileResponse:
                return FileResponse(static / "index.html", media_type="text/html; charset=utf-8")

    app.add_middleware(Guard, api_token=settings.api_token, allowed_hosts=settings.allowed_hosts)  # type: ignore[arg-type]
    # the catalog, the models and the modules live as long as the process: load the catalog now and move
    # everything so far out of the collector's reach, so a full collection walks only per-request objects
    # (a gen-2 pass over the catalog stalled a plan request ~90 ms; gc.freeze, Python docs "gc")
    app.state.store.catalog()
    gc.collect()
    gc.freeze()
    return app
