"""Every value checked against its column before it reaches the database, so SQLite and PostgreSQL give the
same one-line 4xx instead of a driver error (PostgreSQL refuses NUL bytes, over-long VARCHARs, integers past
32 bits and NaN in JSON; SQLite stores them or overflows at 64 bits).

`check_row(table_class, values, where)` reads the column types from the SQLAlchemy model: String(n) → at most
n characters, no NUL; Text → no NUL; Integer → signed 32-bit; Float → finite; DateTime → years 1970–2200;
JSON → nested strings without NUL, finite numbers, integers within 64 bits, depth ≤ 64. `check_date` bounds
the `YYYY[-MM[-DD]]` strings of prices (never after today).
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from sqlalchemy import JSON, DateTime, Float, Integer, String, Text

from suanli.errors import InputError
from suanli.i18n import Message

__all__ = ["INT32_MAX", "check_date", "check_row", "check_text", "check_value"]

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
MIN_YEAR, MAX_YEAR = 1970, 2200
MAX_JSON_DEPTH = 64


def check_text(field: str, v: str, max_chars: int | None = None) -> None:
    if "\x00" in v:
        raise InputError(field, Message("err.contains_a_nul_character_u0000_which"))
    if max_chars is not None and len(v) > max_chars:
        raise InputError(field, Message("err.at_most_characters_got", max_chars=max_chars, n_v=len(v)))
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(field, Message("err.contains_an_unpaired_surrogate_not_valid")) from None


def _check_json(field: str, v: Any, depth: int = 0) -> None:
    if depth > MAX_JSON_DEPTH:
        raise InputError(field, Message("err.nests_deeper_than_levels", max_json_depth=MAX_JSON_DEPTH))
    if isinstance(v, str):
        check_text(field, v)
    elif isinstance(v, bool) or v is None:
        return
    elif isinstance(v, int):
        if abs(v) > INT64_MAX:
            raise InputError(field, Message("err.does_not_fit_a_bit_integer", v=v))
    elif isinstance(v, float):
        if not math.isfinite(v):
            raise InputError(field, Message("err.is_not_a_finite_number", v=v))
    elif isinstance(v, dict):
        for k, x in v.items():
            check_text(f"{field}.{k}" if isinstance(k, str) and len(k) < 80 else field, str(k))
            _check_json(f"{field}.{k}" if isinstance(k, str) and len(k) < 80 else field, x, depth + 1)
    elif isinstance(v, list | tuple):
        for x in v:
            _check_json(field, x, depth + 1)


def check_value(field: str, column_type: Any, v: Any) -> None:
    """One value against one SQLAlchemy column type; InputError naming the field when it does not fit."""
    if v is None:
        return
    if isinstance(column_type, String | Text):  # String(n) is VARCHAR(n); Text is unbounded
        if not isinstance(v, str):
            raise InputError(field, Message("err.must_be_text_got", name=type(v).__name__))
        check_text(field, v, getattr(column_type, "length", None))
    elif isinstance(column_type, Integer):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InputError(field, Message("err.must_be_a_whole_number_got", v=v))
        if not -INT32_MAX - 1 <= v <= INT32_MAX:
            raise InputError(field, Message("err.is_outside_the_bit_range_the", v=v, int32_max=INT32_MAX))
    elif isinstance(column_type, Float):
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(float(v)):
            raise InputError(field, Message("err.must_be_a_finite_number_got_2", v=v))
    elif isinstance(column_type, DateTime):
        if not isinstance(v, dt.datetime):
            raise InputError(field, Message("err.must_be_a_date_and_time", v=v))
        if not MIN_YEAR <= v.year <= MAX_YEAR:
            raise InputError(field, Message("err.year_is_outside", y=v.year, min_year=MIN_YEAR, max_year=MAX_YEAR))
    elif isinstance(column_type, JSON):
        _check_json(field, v)


def check_row(table: Any, values: dict[str, Any], where: str = "") -> None:
    """Every value of `values` against the column of the same name in the mapped class `table`."""
    cols = table.__table__.columns
    for name, v in values.items():
        if name in cols:
            check_value(f"{where}{name}", cols[name].type, v)


def check_date(field: str, date: str, allow_future: bool = False) -> None:
    """A price date `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, a real calendar date from 1970 on, never after today."""
    check_text(field, date, 10)
    parts = date.split("-")
    try:
        nums = [int(p) for p in parts]
        if len(parts) > 3 or any(not p.isdigit() for p in parts) or len(parts[0]) != 4:
            raise ValueError
        y, m, d = (nums + [1, 1])[:3]
        dt.date(y, m, d)
    except ValueError:
        raise InputError(field, Message("err.is_not_a_date_yyyy_yyyy", date=date)) from None
    if not MIN_YEAR <= y <= MAX_YEAR:
        raise InputError(field, Message("err.year_is_outside", y=y, min_year=MIN_YEAR, max_year=MAX_YEAR))
    if not allow_future and date > dt.date.today().isoformat()[: len(date)]:
        raise InputError(field, Message("err.is_in_the_future_prices_are", date=date))
