"""Bounds on what one request may ask, shared by the CLI and the API (the API declares them on its request
models, the CLI checks a built request with `check_plan`). They keep one request's work bounded:
50,000 repeated devices cost 13 s of CPU before these limits (issue 14), `requests_per_s: 1e306` overflowed.
The limits are far above any real job, so no genuine request meets them."""

from __future__ import annotations

from typing import Any

from suanli.errors import InputError
from suanli.i18n import Message

__all__ = ["LIMITS", "MAX_LIST_ITEMS", "MAX_NAME_CHARS", "MIN_TOKENS_PER_S", "MIN_UTILIZATION", "check_plan", "check_tco"]

MAX_LIST_ITEMS = 64  # devices / vendors / stacks named in one request (the catalog has fewer than 64 devices)
MAX_NAME_CHARS = 200  # a model, device, vendor or stack name
#: numeric upper bounds of plan fields that the planner's own request model leaves open
LIMITS: dict[str, float] = {
    "requests_per_s": 1e6,  # a million requests a second is a very large fleet
    "ttft_s": 3600.0,
    "tpot_s": 3600.0,
    "budget_cny": 1e13,
    "engineer_cny_per_week": 1e9,
}


def _flag(field: str, flags: bool) -> str:
    return field.replace("_", "-") if flags else field


def check_plan(fields: Any, flags: bool = False) -> None:
    """Raise InputError naming the first field over its bound. `fields`: a PlanRequest or a mapping."""
    get = fields.get if isinstance(fields, dict) else (lambda k, d=None: getattr(fields, k, d))
    for key in ("devices", "vendors", "stacks"):
        items = get(key) or ()
        if isinstance(items, str):
            items = (items,)
        if len(items) > MAX_LIST_ITEMS:
            raise InputError(_flag(key, flags), Message("err.at_most_names_got", max_list_items=MAX_LIST_ITEMS, n_items=len(items)))
        for x in items:
            if isinstance(x, str) and len(x) > MAX_NAME_CHARS:
                raise InputError(_flag(key, flags), Message("err.a_name_is_at_most_characters", max_name_chars=MAX_NAME_CHARS))
    for key, hi in LIMITS.items():
        v = get(key)
        if isinstance(v, int | float) and not isinstance(v, bool) and v > hi:
            raise InputError(_flag(key, flags), Message("err.at_most_got", hi=hi, v=v))


#: lower bounds of the cost-per-token inputs: below them tokens × 3600 × utilization underflows to 0 (issue 14)
MIN_UTILIZATION = 1e-3
MIN_TOKENS_PER_S = 1e-3


def check_tco(tokens_per_s: float | None, utilization: float, flags: bool = False) -> None:
    """`suanli tco` and POST /api/tco: utilization in [0.001, 1], tokens per second ≥ 0.001 when given."""
    if not (utilization == utilization and MIN_UTILIZATION <= utilization <= 1):
        raise InputError("utilization", Message("err.must_be_in_got", min_utilization=MIN_UTILIZATION, utilization=utilization))
    if tokens_per_s is not None and not (tokens_per_s == tokens_per_s and MIN_TOKENS_PER_S <= tokens_per_s <= 1e12):
        raise InputError(_flag("tokens_per_s", flags), Message("err.must_be_in_e12_got", min_tokens_per_s=MIN_TOKENS_PER_S, tokens_per_s=tokens_per_s))
