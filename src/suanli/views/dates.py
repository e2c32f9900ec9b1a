"""The date prices are judged against for freshness, one source for the CLI and the API."""

from __future__ import annotations

import datetime as dt
import os
from suanli.i18n import Message

__all__ = ["as_of"]


def as_of() -> dt.date:
    """The date prices are judged against for freshness: today, or `SUANLI_TODAY` (YYYY-MM-DD) for outputs that
    must reproduce (golden files, a report dated in the past). `suanli` commands and the API's answers read it."""
    v = os.environ.get("SUANLI_TODAY")
    if not v:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(v)
    except ValueError:
        from suanli.errors import InputError

        raise InputError("SUANLI_TODAY", Message("err.is_not_a_date_yyyy_mm", v=v)) from None
