"""GET /api/health and /api/info."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from suanli import __version__
from suanli.api.deps import catalog, settings_of, store_of
from suanli.api.responses import Info

router = APIRouter(prefix="/api", tags=["meta"])


class Health(BaseModel):
    ok: bool
    version: str


@router.get("/health")
def health() -> Health:
    return Health(ok=True, version=__version__)


@router.get("/info", response_model=Info, response_model_exclude_unset=True)
def info(request: Request) -> dict[str, Any]:
    """Database kind and revision, catalog versions and row counts. The URL is redacted (no password, no
    query secrets, no host path)."""
    i = store_of(request).info(public=True)
    cache = request.app.state.plan_cache
    return {**i, "version": __version__, "writes_enabled": bool(settings_of(request).api_token),
            "catalog_as_of": catalog(request).as_of,
            "plan_cache": {"size": cache.size, "hits": cache.hits, "misses": cache.misses}}
