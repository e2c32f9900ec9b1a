"""Bounds on what one request may ask, shared by the CLI and the API (the API declares them on its request
models, the CLI checks a built request with `check_plan`). They keep one request's work bounded:
50,000 repeated devices cost 13 s of CPU before these limits (issue 14), `requests_per_s: 1e306` overflowed.
The limits are far above any real job, so no genuine request meets them."""

from __future__ import annotations

import math
from typing import Any

from suanli.errors import InputError
from suanli.i18n import Message
from suanli.plan.cost import check_utilization
from suanli.units import MIN_UTILIZATION

__all__ = ["LIMITS", "MAX_ID", "MAX_LIST_ITEMS", "MAX_NAME_CHARS", "MAX_STALE_MONTHS", "MAX_TCO_GPUS", "MIN_TOKENS_PER_S",
           "MIN_UTILIZATION", "check_choice", "check_compare", "check_number", "check_plan", "check_stale_months",
           "check_tco", "check_vpp", "check_whole"]

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


#: lower bounds of the cost-per-token inputs: below them tokens × 3600 × utilization underflows to 0 (issue 14);
#: the utilization bound is the domain's (`units.MIN_UTILIZATION`, `plan.cost.check_utilization`, which rent-vs-buy
#: checks too)
MIN_TOKENS_PER_S = 1e-3


def check_device_names(cat: Any, devices: Any) -> None:
    """Each device name of a request (the first MAX_LIST_ITEMS distinct; more is check_plan's bound) looked up in
    `cat`, the catalog the command searches: an unknown one raises `lookup.accelerator`'s NotFoundError with its
    closest names, before the request's other refusals (`suanli plan`, `compare` and POST /api/plan, /api/compare,
    /api/estimate alike: api.routers.compute.names_first; buyer review 2026-12-02)."""
    from suanli.catalog import lookup

    for d in list(dict.fromkeys(x for x in devices if isinstance(x, str)))[:MAX_LIST_ITEMS]:
        lookup.accelerator(cat, d)


def check_tco(tokens_per_s: float | None, utilization: float, flags: bool = False, gpus: int | None = None) -> None:
    """`suanli tco` and POST /api/tco: utilization in [0.001, 1], tokens per second ≥ 0.001 when given, gpus 1–100,000
    (TcoBody's bound; `suanli tco` passes it)."""
    if gpus is not None:
        check_whole("gpus", gpus, 1, MAX_TCO_GPUS)
    check_utilization(utilization)  # the domain's one bound (NaN refused)
    if tokens_per_s is not None and not (tokens_per_s == tokens_per_s and MIN_TOKENS_PER_S <= tokens_per_s <= 1e12):
        raise InputError(_flag("tokens_per_s", flags), Message("err.must_be_in_e12_got", min_tokens_per_s=MIN_TOKENS_PER_S, tokens_per_s=tokens_per_s))


#: bounds the API declares on its bodies (api/schemas.py CompareBody, TcoBody, PriceBody; saved-plan ids as paths)
MAX_TOKENS = 1e18
MAX_COMPARE_GPUS = 4096
MAX_TCO_GPUS = 100_000
MAX_STALE_MONTHS = 1200.0
MAX_ID = 2**31 - 1  # a database row id (32-bit INTEGER)


def check_number(field: str, v: float, lo: float, hi: float) -> None:
    """A finite number above `lo` and at most `hi` (NaN and infinities refused), else InputError naming the field."""
    if not (isinstance(v, int | float) and math.isfinite(v) and lo < v <= hi):
        raise InputError(field, Message("err.must_be_above_at_most_got", lo=lo, hi=hi, v=v))


def check_whole(field: str, v: int, lo: int, hi: int) -> None:
    """A whole number from `lo` to `hi`, else InputError naming the field."""
    if not lo <= v <= hi:
        raise InputError(field, Message("err.must_be_whole_number_from_to_got", lo=lo, hi=hi, v=v))


def check_compare(tokens: float | None, gpus: int) -> None:
    """`suanli compare`: the bounds of POST /api/compare (tokens in (0, 1e18], gpus 1–4096)."""
    if tokens is not None:
        check_number("tokens", tokens, 0, MAX_TOKENS)
    check_whole("gpus", gpus, 1, MAX_COMPARE_GPUS)


def check_stale_months(v: float, flags: bool = False) -> None:
    """A price's age in months after which it is stale: in (0, 1200], as PriceBody's."""
    check_number(_flag("stale_months", flags), v, 0, MAX_STALE_MONTHS)


def check_vpp(vpp: int | None, pp: int | None, layers: int | None, pp_sizes: tuple[int, ...]) -> None:
    """A pinned virtual-pipeline size without a pinned pp: some searched pp (> 1) must split the layers into pp × vpp
    equal chunks (the planner's layout rule), else InputError naming the vpp sizes that run."""
    if vpp is None or vpp <= 1 or pp is not None or not layers:
        return
    pps = [p for p in pp_sizes if 1 < p <= layers]
    runs = [v for v in range(1, 65) if v == 1 or any(layers % (p * v) == 0 for p in pps)]
    if vpp not in runs:
        raise InputError("vpp", Message("err.vpp_does_not_split_layers", layers=layers, vpp=vpp,
                                        pps=", ".join(map(str, pps)), allowed=", ".join(map(str, runs))))


def check_choice(field: str, value: str, allowed: tuple[str, ...] | list[str], message_id: str) -> None:
    """`value` among `allowed`, else InputError naming the field, the allowed values and the closest one."""
    if value in allowed:
        return
    from suanli.errors import did_you_mean

    near = did_you_mean(value, allowed, n=1)
    hint: Message | str = Message("err.did_you_mean", name=near[0]) if near else ""
    raise InputError(field, Message(message_id, value=value, allowed=", ".join(allowed), hint=hint))
