"""Shared rendering: a rich table by default, `--json` or `--csv` for scripts."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

__all__ = ["Format", "console", "emit_json", "emit_rows", "err_console", "lang", "say", "set_lang", "to_jsonable"]

console = Console()
err_console = Console(stderr=True)

_lang: str | None = None  # set by `--lang`; else from LC_ALL / LC_MESSAGES / LANG


def lang() -> str:
    """The language of this run's output: `zh` or `en`."""
    if _lang is None:
        from suanli.i18n import lang_from_env

        return lang_from_env()
    return _lang


def set_lang(value: str | None) -> None:
    global _lang
    _lang = value


def say(msg: Any) -> str:
    """A `Message` (or a plain string) in this run's language, as the CLI shows it (inputs named as flags)."""
    from suanli.i18n import render

    return render(msg, lang(), "cli")


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


def to_jsonable(obj: Any) -> Any:
    if hasattr(obj, "model_dump") and not isinstance(obj, type):  # a pydantic model (not imported for `--help`)
        return obj.model_dump(mode="json", exclude_none=True)
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, float) and obj != obj:  # NaN is not JSON
        return None
    return obj


def emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(to_jsonable(obj), indent=2, ensure_ascii=False, sort_keys=False) + "\n")


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        from suanli.i18n import t

        return t("bool.yes" if v else "bool.no", lang())
    if isinstance(v, float):
        if v != v:
            return ""
        if v != 0 and abs(v) < 1:
            return f"{v:.3g}"
        if abs(v) >= 100:
            return f"{v:,.0f}"
        return f"{v:,.2f}".rstrip("0").rstrip(".")
    if isinstance(v, list | tuple):
        return ", ".join(_cell(x) for x in v)
    if hasattr(v, "params") and hasattr(v, "id"):  # a Message
        return say(v)
    return str(v)


def emit_rows(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str],
    fmt: Format = Format.table,
    title: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> None:
    """Print rows as a table, JSON list or CSV with the given column order."""
    if fmt is Format.json:
        emit_json([{c: r.get(c) for c in columns} for r in rows])
        return
    if fmt is Format.csv:
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        from suanli.views.tables import csv_safe  # = + - @ TAB CR neutralised for spreadsheets (issue 14)

        for r in rows:
            w.writerow({c: csv_safe(r.get(c)) for c in columns})
        sys.stdout.write(buf.getvalue())
        return
    table = Table(title=title, header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    needs = [max(max((len(_cell(r.get(c))) for r in rows), default=0), len((headers or {}).get(c, c))) + 3
             for c in columns]
    keep_whole = sum(needs) <= console.width  # whole columns only when the table fits the terminal
    for j, c in enumerate(columns):
        # right-align numbers; when the table fits, keep the id column and short columns whole
        numeric = any(isinstance(r.get(c), int | float) and not isinstance(r.get(c), bool) for r in rows)
        header = (headers or {}).get(c, c)
        widest = max((len(_cell(r.get(c))) for r in rows), default=0)
        short = keep_whole and widest <= 12
        table.add_column(header, overflow="fold", no_wrap=keep_whole and j == 0,
                         justify="right" if numeric else "left", min_width=max(widest, len(header)) if short else None)
    for r in rows:
        table.add_row(*(_cell(r.get(c)) for c in columns))
    console.print(table)
