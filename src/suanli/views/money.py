"""Money at the response boundary: amounts in CNY to the fen (2 decimals), prices per unit to 4 decimals, so an
answer never carries float noise such as 3585.6000000000004 (buyer review 2026-12-01). One rule, by field name,
for every JSON answer: the API's (`api.money.MoneyJSONResponse`) and the CLI's --json (`cli.output.emit_json`); the
figures inside suanli stay unrounded.

A message's parameters (`*_i18n`: `{"id", "params"}`) are money by the message, not by their names (`lo`, `cost`,
`price` mean other things elsewhere): a parameter its English text writes after "¥" (`¥{cost:,.0f}`) is a CNY amount,
2 decimals, or a price per unit, 4, where "/" or " per " follows it or the range it closes (`¥{rent:.2f}/card-h`,
`¥{lo}–¥{hi} per card-hour`); other parameters keep their name's rule."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

__all__ = ["AMOUNT_DECIMALS", "RATE_DECIMALS", "message_money_params", "money_decimals", "round_money"]

AMOUNT_DECIMALS = 2  # a CNY amount to the fen (分), as a bill shows it
RATE_DECIMALS = 4  # CNY per card-hour / per 1M tokens / per TFLOPS: ¥0.0052 per 1M tokens keeps its figure

# total_cost_cny, cost_cny_max, budget_cny, capex_cny, buy_cny_per_year, rent_cny_per_year_full_use,
# rent_cny_per_card_year, engineer_cny_per_week ...: an amount (a year's or a week's money, to the fen);
# cny_per_card_hour, effective_cny_per_card_hour, cost_cny_per_hour, cny_per_million_tokens,
# cny_per_million_output_tokens, electricity_cny_per_kwh: a price per unit; effective_tflops_per_cny_hour (per yuan,
# not yuan) is neither
_RATE = re.compile(r"(^|_)cny_per_(card_)?(hour|million_(output_)?tokens|kwh)($|_)")
_AMOUNT = re.compile(r"(^|_)cny($|_)")
_NOT_MONEY = re.compile(r"_per_cny")


def money_decimals(key: str) -> int | None:
    """The decimals a field named `key` is rounded to: 2 for a CNY amount, 4 for a CNY price per unit, None
    for anything else."""
    if _NOT_MONEY.search(key):
        return None
    if _RATE.search(key):
        return RATE_DECIMALS
    if _AMOUNT.search(key):
        return AMOUNT_DECIMALS
    return None


# ¥{name...} and a range's further ¥{name...} after it, then "/" or " per " where a price per unit
_YUAN_PARAM = re.compile(r"¥\{(\w+)[^}]*\}((?:\s*[–-]\s*¥\{\w+[^}]*\})*)(/|\s+per\b)?")
_PARAM_NAME = re.compile(r"\{(\w+)")


@cache
def message_money_params(msg_id: str) -> dict[str, int]:
    """The money parameters of catalog message `msg_id` and their decimals, read from its English text: written
    after "¥", a price per unit (RATE_DECIMALS) where "/" or " per " follows it or its range, else an amount
    (AMOUNT_DECIMALS). An unknown id has none."""
    from suanli.i18n import messages

    text = messages("en").get(msg_id)
    out: dict[str, int] = {}
    for m in _YUAN_PARAM.finditer(text if isinstance(text, str) else ""):
        decimals = RATE_DECIMALS if m.group(3) else AMOUNT_DECIMALS
        for name in [m.group(1), *_PARAM_NAME.findall(m.group(2))]:
            out[name] = decimals
    return out


def _params(msg_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """A message's parameters rounded: its money ones by the message (`message_money_params`), others by name."""
    money = message_money_params(msg_id)
    return {k: round_money(v, money[k] if k in money else money_decimals(k)) for k, v in params.items()}


def round_money(obj: Any, decimals: int | None = None) -> Any:
    """`obj` (JSON-shaped: dicts, lists, numbers) with every float under a money key rounded (`money_decimals`);
    a list under such a key (a range: [lo, hi]) is rounded item by item; a message (`{"id", "params"}`) has its
    money parameters rounded (`message_money_params`); integers and other keys are unchanged."""
    if isinstance(obj, float):
        return round(obj, decimals) if decimals is not None and obj == obj and abs(obj) != float("inf") else obj
    if isinstance(obj, dict):
        if isinstance(obj.get("id"), str) and isinstance(obj.get("params"), dict) and len(obj) == 2:
            return {"id": obj["id"], "params": _params(obj["id"], obj["params"])}
        return {k: round_money(v, money_decimals(k) if isinstance(k, str) else None) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [round_money(v, decimals) for v in obj]
    return obj
