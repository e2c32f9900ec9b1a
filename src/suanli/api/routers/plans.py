"""Saved plans: list and read them; saving one is a write (POST /api/plans with the token)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi import Path as PathParam

from suanli.api.deps import Token, run_bounded, store_of
from suanli.api.responses import SavedPlan, SavedPlanRow
from suanli.api.routers.prices import LIST_PAGE, Limit, Offset
from suanli.api.schemas import SavePlanBody
from suanli.views.plans import SavedPlanJson

router = APIRouter(prefix="/api", tags=["plans"])


@router.get("/plans", response_model=list[SavedPlanRow], response_model_exclude_unset=True)
def saved_plans(request: Request, limit: Limit = LIST_PAGE, offset: Offset = 0) -> list[dict[str, Any]]:
    """Saved plans (their requests), oldest first, one page at a time."""
    return store_of(request).plans(limit=limit, offset=offset)  # type: ignore[no-any-return]


@router.get("/plans/{plan_id}", response_model=SavedPlan, response_model_exclude_unset=True)
def saved_plan(request: Request, plan_id: Annotated[int, PathParam(ge=1, le=2**31 - 1)]) -> dict[str, Any]:
    return store_of(request).plan(plan_id)  # type: ignore[no-any-return]


@router.post("/plans", dependencies=[Token], response_model=SavedPlanJson, response_model_exclude_unset=True)
async def save_plan_ep(request: Request, body: SavePlanBody) -> dict[str, Any]:
    """Plan (the body of POST /api/plan, plus `name`) and store the result; needs the token. Returns the
    plan with `saved_plan_id`."""
    from suanli.api.routers.compute import plan_answer

    out = await run_bounded(request, lambda: plan_answer(request, body), "plan")
    store = store_of(request)
    import anyio

    pid = await anyio.to_thread.run_sync(lambda: store.save_plan(out["model"], out["request"], out, body.name))
    return {**out, "saved_plan_id": pid}
