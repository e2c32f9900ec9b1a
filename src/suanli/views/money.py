"""Money at the response boundary: amounts in CNY to the fen (2 decimals), prices per unit to 4 decimals, so an
answer never carries float noise such as 3585.6000000000004 (buyer review 2026-12-01). One rule, by field name,
for every JSON answer of the API (`api.money.MoneyJSONResponse`); the figures inside suanli stay unrounded."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["AMOUNT_DECIMALS", "RATE_DECIMALS", "money_decimals", "round_money"]

AMOUNT_DECIMALS = 2  # a CNY amount to the fen (分), as a bill shows it
RATE_DECIMALS = 4  # CNY per card-hour / per 1M tokens / per TFLOPS: ¥0.0052 per 1M tokens keeps its figure

# total_cost_cny, cost_cny_max, budget_cny, capex_cny, rent_cny_per_year_full_use ...: an amount;
# cny_per_card_hour, effective_cny_per_card_hour, cny_per_million_tokens: a price per unit;
# effective_tflops_per_cny_hour (per yuan, not yuan) is neither
_RATE = re.compile(r"(^|_)cny_per_")
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


def round_money(obj: Any, decimals: int | None = None) -> Any:
    """`obj` (JSON-shaped: dicts, lists, numbers) with every float under a money key rounded (`money_decimals`);
    a list under such a key (a range: [lo, hi]) is rounded item by item; integers and other keys are unchanged."""
    if isinstance(obj, float):
        return round(obj, decimals) if decimals is not None and obj == obj and abs(obj) != float("inf") else obj
    if isinstance(obj, dict):
        return {k: round_money(v, money_decimals(k) if isinstance(k, str) else None) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [round_money(v, decimals) for v in obj]
    return obj
