"""Cells bound for spreadsheets: a value that starts with = + - @ TAB or CR is a formula to Excel and
LibreOffice (CSV/formula injection, OWASP). Such text cells get a leading apostrophe; numbers stay numbers."""

from __future__ import annotations

from typing import Any

__all__ = ["FORMULA_PREFIXES", "csv_safe"]

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: Any) -> Any:
    """The value with formula prefixes neutralised (strings only; a negative number is left as a number)."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value
