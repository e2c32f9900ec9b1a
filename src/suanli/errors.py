"""The one exception tree of suanli.

Every error a user can cause is a `SuanliError`; its message is one line that names the field and,
where it helps, the allowed values or the closest matches. Interfaces (CLI, API) print or return that
line and never a traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from suanli.i18n import Message

__all__ = [
    "CatalogError",
    "DataFileError",
    "EstimateError",
    "InputError",
    "NotFoundError",
    "PlanError",
    "SuanliError",
    "did_you_mean",
    "error_label",
    "error_text",
]


class SuanliError(Exception):
    """Base of every error suanli raises on purpose.

    `i18n`: the same sentence as a catalog `Message` where the raise site gives one (the English text, `str(e)`,
    is unchanged); interfaces show it in their language with `error_text`."""

    i18n: Message | None = None
    detail: Message | str | None = None  # more than the one line: the CLI prints it dim on a second line


class InputError(SuanliError, ValueError):
    """A value given by the user is not allowed. The message names the field and the allowed values."""

    def __init__(self, field: str, message: str, i18n: Message | None = None) -> None:
        self.field = field
        self.i18n = i18n
        super().__init__(f"{field}: {message}")


class NotFoundError(InputError, LookupError):
    """A name (device, model, offer, stack) is not in the catalog; the message lists the closest names."""

    def __init__(self, field: str, name: str, candidates: Iterable[str]) -> None:
        self.name = name
        self.suggestions = did_you_mean(name, candidates)
        hint = f" Did you mean: {', '.join(self.suggestions)}?" if self.suggestions else ""
        from suanli.i18n import Message

        i18n = (Message("error.unknown_hint", kind=field, name=repr(name), names=", ".join(self.suggestions))
                if self.suggestions else Message("error.unknown", kind=field, name=repr(name)))
        super().__init__(field, f"unknown {field} {name!r}.{hint}", i18n)


class CatalogError(SuanliError):
    """The packaged or imported catalog is inconsistent."""


class DataFileError(CatalogError):
    """A data file does not match its schema: names the file, the row and the field."""

    def __init__(self, path: str, row: str | None, field: str | None, message: str) -> None:
        self.path, self.row, self.field = path, row, field
        where = path + (f", row {row}" if row is not None else "") + (f", field {field}" if field else "")
        super().__init__(f"{where}: {message}")


class EstimateError(SuanliError):
    """An estimate cannot be made for this combination (e.g. a task the model kind does not support)."""


class PlanError(SuanliError):
    """No plan satisfies the constraints; the message says which constraint to relax and by how much."""

    def __init__(self, message: str, i18n: Message | None = None) -> None:
        self.i18n = i18n
        super().__init__(message)


def error_text(e: BaseException, lang: str, surface: str = "cli") -> str:
    """The error's one line in `lang`: `field: ` and its message rendered where the raise site gave one (the
    field keeps its name, as the flag or JSON field it is), else the English text."""
    msg = getattr(e, "i18n", None)
    if msg is None:
        return str(e)
    from suanli.i18n import render

    text = render(msg, lang, surface)  # type: ignore[arg-type]
    field = getattr(e, "field", None)
    return f"{field}: {text}" if isinstance(e, InputError) and field else text


def error_label(lang: str) -> str:
    """The one label every command's error line starts with ("error", "错误"); the CLI colours it."""
    from suanli.i18n import t

    return t("error.prefix", lang)


def did_you_mean(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Closest candidate names to `name` (difflib ratio, case-insensitive), best first."""
    pool = {c.lower(): c for c in candidates}
    key = name.lower()
    close = difflib.get_close_matches(key, list(pool), n=n, cutoff=0.5)
    contains = [c for k, c in pool.items() if key and key in k and k not in close]
    return [pool[c] for c in close] + contains[: max(0, n - len(close))]
