"""The API's JSON answers with money rounded (`views.money.round_money`): the app's default response class, so
every route's amounts go through the one rule."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from suanli.api.errors import SafeJSONResponse
from suanli.views.money import round_money

__all__ = ["MoneyJSONResponse"]


class MoneyJSONResponse(SafeJSONResponse):
    """`SafeJSONResponse` (NaN and Infinity as null) with CNY amounts to 2 decimals and prices to 4."""

    def render(self, content: Any) -> bytes:
        if isinstance(content, BaseModel):
            content = content.model_dump(mode="json")
        return super().render(round_money(content))
