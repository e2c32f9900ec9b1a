"""Benchmark results: read, and store one (token)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from suanli.api.deps import Token, store_of
from suanli.errors import InputError

router = APIRouter(prefix="/api", tags=["bench"])


@router.get("/bench-results")
def bench_results(request: Request, accelerator: Annotated[str | None, Query(max_length=100)] = None) -> list[dict[str, Any]]:
    return store_of(request).bench_results(accelerator)  # type: ignore[no-any-return]


@router.post("/bench-results", dependencies=[Token])
def add_bench_ep(request: Request, body: dict[str, Any]) -> dict[str, Any]:
    """Store a benchmark result (`suanli bench run --json`'s object; needs the token)."""
    from pydantic import ValidationError

    from suanli.bench.results import BenchResult

    try:
        r = BenchResult.model_validate(body)
    except ValidationError as e:
        err = e.errors()[0]
        raise InputError(".".join(str(p) for p in err["loc"]) or "body", err["msg"]) from None
    return {"id": store_of(request).save_bench_result(r)}
