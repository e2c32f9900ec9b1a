"""The base of the JSON shapes that the views build as dicts (`PlanJson`, `EstimateJson`, `AcceleratorRow`, …)
and the API declares as response models, so /openapi.json documents every answer and FastAPI validates it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["MessageJson", "Shape"]


class Shape(BaseModel):
    """A JSON shape: every key the view writes is named and typed. A key the shape does not name is kept, never
    dropped (`extra="allow"`); the shape tests (`tests/unit/api/test_responses.py`) fail on one.

    Only the API validates with them (and /openapi.json documents them), so their validators and schemas are
    built on first use (`defer_build`), not when a CLI command imports the view beside them."""

    model_config = ConfigDict(extra="allow", defer_build=True)


class MessageJson(Shape):
    """A user-facing sentence as data (`suanli.i18n.Message.to_json`): render it with `id` from the message
    catalog (GET /api/messages) and `params`; a parameter may itself be such a message (or a list of them)."""

    id: str = Field(description="message id in the catalog, e.g. why.over_budget")
    params: dict[str, Any] = Field(default_factory=dict, description="the message's named values")
