"""Benchmark results: read, and store one (token)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from suanli.api.deps import Token, store_of
from suanli.api.responses import BenchSaved
from suanli.api.schemas import BenchResultBody
from suanli.bench.results import BenchResult

router = APIRouter(prefix="/api", tags=["bench"])


@router.get("/bench-results", response_model=list[BenchResult], response_model_exclude_unset=True)
def bench_results(request: Request, accelerator: Annotated[str | None, Query(max_length=100)] = None) -> list[dict[str, Any]]:
    return store_of(request).bench_results(accelerator)  # type: ignore[no-any-return]


@router.post("/bench-results", dependencies=[Token], response_model=BenchSaved)
def add_bench_ep(request: Request, body: BenchResultBody) -> dict[str, Any]:  # type: ignore[valid-type]
    """Store a benchmark result (`suanli bench run --json`'s object; needs the token)."""
    return {"id": store_of(request).save_bench_result(body)}
