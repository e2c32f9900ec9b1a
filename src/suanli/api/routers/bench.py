"""Benchmark results: read, and store one (token)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from suanli.api.deps import Token, store_of
from suanli.api.responses import BenchSaved
from suanli.api.routers.prices import LIST_PAGE, Limit, Offset
from suanli.api.schemas import BenchResultBody
from suanli.bench.results import BenchResult

router = APIRouter(prefix="/api", tags=["bench"])


@router.get("/bench-results", response_model=list[BenchResult], response_model_exclude_unset=True)
def bench_results(request: Request, accelerator: Annotated[str | None, Query(max_length=100)] = None,
                  limit: Limit = LIST_PAGE, offset: Offset = 0) -> list[dict[str, Any]]:
    """Stored benchmark results, oldest first, one page at a time; without the machine's host name (this read
    needs no token: the name stays in the store and `suanli bench` output)."""
    rows: list[dict[str, Any]] = store_of(request).bench_results(accelerator, limit=limit, offset=offset)
    return [public_bench_result(r) for r in rows]


def public_bench_result(r: dict[str, Any]) -> dict[str, Any]:
    """A stored result as the API shows it: `backend.host` (the machine's name, `platform.node()`) left out."""
    backend = r.get("backend")
    if isinstance(backend, dict) and "host" in backend:
        r = {**r, "backend": {k: v for k, v in backend.items() if k != "host"}}
    return r


@router.post("/bench-results", dependencies=[Token], response_model=BenchSaved)
def add_bench_ep(request: Request, body: BenchResultBody) -> dict[str, Any]:  # type: ignore[valid-type]
    """Store a benchmark result (`suanli bench run --json`'s object; needs the token)."""
    return {"id": store_of(request).save_bench_result(body)}
