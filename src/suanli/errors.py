"""The one exception tree of suanli.

Every error a user can cause is a `SuanliError`; its message is one line that names the field and,
where it helps, the allowed values or the closest matches. Interfaces (CLI, API) print or return that
line and never a traceback.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

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
    "echoed",
    "error_label",
    "error_text",
    "nonfinite_at",
    "or_list",
    "shown_name",
    "unknown_name",
    "Invalid",
    "validation_message",
]


class SuanliError(Exception):
    """Base of every error suanli raises on purpose.

    `i18n`: the same sentence as a catalog `Message` where the raise site gives one (the English text, `str(e)`,
    is unchanged); interfaces show it in their language with `error_text`. A raise site may give the `Message`
    alone in place of the English text: `str(e)` is then its English rendering (`i18n/en.json`)."""

    i18n: Message | None = None
    detail: Message | str | None = None  # more than the one line: the CLI prints it dim on a second line


def _english(message: Message | str, i18n: Message | None) -> tuple[str, Message | None]:
    """(English text, message): a `Message` given as the text is rendered in English and kept as the message."""
    if isinstance(message, str):
        return message, i18n
    from suanli.i18n import render

    return render(message, "en"), i18n or message


class InputError(SuanliError, ValueError):
    """A value given by the user is not allowed. The message names the field and the allowed values."""

    def __init__(self, field: str, message: Message | str, i18n: Message | None = None) -> None:
        self.field = field
        text, self.i18n = _english(message, i18n)
        super().__init__(f"{field}: {text}")


class NotFoundError(InputError, LookupError):
    """A name (device, model, offer, stack) is not in the catalog; the message lists the closest names, else the
    known ones (`unknown_name`)."""

    def __init__(self, field: str, name: str, candidates: Iterable[str], known: Iterable[str] | None = None,
                 near: list[str] | None = None, ids: Mapping[str, str] | None = None, kind: str | None = None) -> None:
        """`kind`: what the name names in the sentence ("unknown vendor 'x'"), where the field that held it is
        named otherwise (`vendors`, a request's list of them); default the field."""
        self.name = name
        self.suggestions, i18n = unknown_name(kind or field, name, candidates, known, near, ids)
        super().__init__(field, i18n)


_LIST_ALL = 16  # up to this many known names are listed whole (the 15 frameworks); more: the first 8 and how many
SHOWN_CHARS = 80  # a name longer than this is echoed as its first 80 characters and "…" (as request validation does)
FUZZY_MAX_CHARS = 200  # past this no name is close (difflib is quadratic; no id is this long): the known names instead


def shown_name(name: str) -> str:
    """A name as an error line echoes it: at most `SHOWN_CHARS` characters, "…" where it was cut (a 60 KB name
    typed or sent does not come back three times)."""
    return name if len(name) <= SHOWN_CHARS else name[:SHOWN_CHARS] + "…"


def unknown_name(kind: str, name: str, candidates: Iterable[str], known: Iterable[str] | None = None,
                 near: list[str] | None = None, ids: Mapping[str, str] | None = None) -> tuple[list[str], Message]:
    """The one sentence for a name that is not known (a gpu, model, engine, framework, offer or stack id, in
    every command and the API): the closest `candidates` (ids and aliases — `ids`, each alias's id, suggests the
    id, each once; `did_you_mean`, difflib) when some are close — "unknown gpu 'h10'. Did you mean:
    h100-sxm, h20, a10?" — or `near`, what the caller knows to be meant (a vendor's devices for its name), else the
    known names (`known`: the ids, default the candidates), all of them up to 16, or the first 8 and their
    number — "unknown gpu 'xyz'; known: a10, a100-40g, … (84 in all)". The name is echoed as `shown_name` cuts it.
    Returns (suggestions, message)."""
    from suanli.i18n import Message as M

    pool = list(candidates)
    said = repr(shown_name(name))
    close = list(dict.fromkeys(near)) if near else did_you_mean(name, pool, ids=ids)
    if close:
        return close, M("error.unknown_hint", kind=kind, name=said, names=", ".join(close))
    names = sorted(dict.fromkeys(pool if known is None else known))
    if not names:
        return [], M("error.unknown", kind=kind, name=said)
    shown = names if len(names) <= _LIST_ALL else names[:8]
    more = M("error.unknown_more", n=len(names)) if len(shown) < len(names) else ""
    return [], M("error.unknown_known", kind=kind, name=said, names=", ".join(shown), more=more)


class CatalogError(SuanliError):
    """The packaged or imported catalog is inconsistent."""


class DataFileError(CatalogError):
    """A data file does not match its schema: names the file, the row and the field."""

    def __init__(self, path: str, row: str | None, field: str | None, message: Message | str) -> None:
        self.path, self.row, self.field = path, row, field
        where = path + (f", row {row}" if row is not None else "") + (f", field {field}" if field else "")
        text, said = _english(message, None)
        super().__init__(f"{where}: {text}")
        if said is not None:  # the file, row and field as they are; the sentence in the reader's language
            from suanli.i18n import Message as M

            self.i18n = M("error.data_file", path=path, row=M("error.data_file.row", row=row) if row is not None else "",
                          field_name=M("error.data_file.field", name=field) if field else "", message=said)


class EstimateError(SuanliError):
    """An estimate cannot be made for this combination (e.g. a task the model kind does not support)."""

    def __init__(self, message: Message | str, i18n: Message | None = None) -> None:
        text, self.i18n = _english(message, i18n)
        super().__init__(text)


class PlanError(SuanliError):
    """No plan satisfies the constraints; the message says which constraint to relax and by how much."""

    def __init__(self, message: Message | str, i18n: Message | None = None) -> None:
        text, self.i18n = _english(message, i18n)
        super().__init__(text)


class Invalid(ValueError):
    """A model validator's refusal (pydantic wraps it as a `value_error`), with its catalog message; `field`: the
    input it is about where the sentence does not start with `field: ` (a whole-model check: "gpus (1) must be a
    multiple of tp × pp …" is about `gpus`), so the API's error names it as the CLI does."""

    def __init__(self, message: Message | str, i18n: Message | None = None, field: str | None = None) -> None:
        text, self.i18n = _english(message, i18n)
        self.field = field
        super().__init__(text)


# pydantic's error types in their generic shapes (pydantic_core ErrorType): what is wrong, naming the limit
_PYDANTIC_SHAPES = {
    "missing": "error.v.missing", "extra_forbidden": "error.v.extra",
    "int_parsing": "error.v.int", "int_type": "error.v.int", "int_from_float": "error.v.int",
    "float_parsing": "error.v.number", "float_type": "error.v.number", "finite_number": "error.v.finite",
    "bool_parsing": "error.v.bool", "bool_type": "error.v.bool", "string_type": "error.v.string",
    "list_type": "error.v.list", "dict_type": "error.v.object", "model_type": "error.v.object",
    "model_attributes_type": "error.v.object", "json_invalid": "error.v.json", "json_type": "error.v.json",
    "greater_than": "error.v.gt", "greater_than_equal": "error.v.ge", "less_than": "error.v.lt",
    "less_than_equal": "error.v.le", "string_too_short": "error.v.too_short", "string_too_long": "error.v.too_long",
    "too_short": "error.v.too_short_list", "too_long": "error.v.too_long_list", "date_from_datetime_parsing":
    "error.v.date", "date_parsing": "error.v.date", "date_type": "error.v.date", "datetime_parsing": "error.v.datetime",
    "datetime_type": "error.v.datetime", "url_parsing": "error.v.url", "multiple_of": "error.v.multiple_of",
    # a list field takes a JSON array (pydantic reads it as a tuple or set); a pattern names itself; a number past
    # 64 bits in an integer field (1e30), where the field has no bound the body names first (api.schemas.JsonBody)
    "tuple_type": "error.v.list", "set_type": "error.v.list", "frozen_set_type": "error.v.list",
    "string_pattern_mismatch": "error.v.pattern", "int_parsing_size": "error.v.int_size",
}


def echoed(value: Any) -> str:
    """A refused input as every error quotes it (the CLI, the API, the offers importer): text quoted as it was given
    ('50'), anything else as its JSON (true, [1, 2], {"a": 1}; never a Python repr: True, {'a': 1}), at most
    `SHOWN_CHARS` characters and "…" where it was cut (`shown_name`)."""
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return shown_name(text)


def nonfinite_at(doc: Any, path: str = "") -> tuple[str, float] | None:
    """The first NaN or infinity in a parsed JSON document (Python's reader takes them; JSON has none), with its
    dotted path (`metrics.decode_tokens_per_s`, a list index as its number: `micro.matmul.1.tflops`), else None."""
    if isinstance(doc, float) and not math.isfinite(doc):
        return path, doc
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for k, v in items:
        found = nonfinite_at(v, f"{path}.{k}" if path else str(k))
        if found is not None:
            return found
    return None


def _plain_value(value: Any) -> Any:
    """A refusal's own `value` parameter bounded as `echoed` bounds it: text cut at `SHOWN_CHARS`, a list, object,
    boolean or null as its JSON; a number or a message as it is."""
    if isinstance(value, str):
        return shown_name(value)
    if value is None or isinstance(value, bool | list | tuple | dict | set):
        return echoed(sorted(value, key=str) if isinstance(value, set) else value)
    return value


def validation_message(err: Any) -> Message:
    """One pydantic error (an item of `ValidationError.errors()`) as a catalog message: the refusal's own message
    where a validator raised one with it (`Invalid`, or any error with an `i18n` message), else its generic shape —
    missing field, not one of the allowed values (named), out of range (the limit named), wrong type — else
    pydantic's English sentence as it is. The field is not part of it: callers name it.

    What was sent is echoed one way for every caller (`echoed`: at most 80 characters, JSON for anything but text,
    never a Python repr); a missing field echoes nothing (pydantic's `input` is then the whole body or row)."""
    from suanli.i18n import Message as M

    ctx = err.get("ctx") or {}
    said = getattr(ctx.get("error"), "i18n", None)
    if isinstance(said, M):
        if "value" not in said.params:
            return said
        return M(said.id, {**said.params, "value": _plain_value(said.params["value"])})
    kind = str(err.get("type") or "")
    if kind in ("literal_error", "enum"):
        return M("err.is_not_one_of", value=echoed(err.get("input")),
                 allowed=or_list(str(ctx.get("expected", ""))))
    shape = _PYDANTIC_SHAPES.get(kind)
    if shape is not None:
        # the limits stay numbers (the API's error_i18n.params); the sentences write them readably ({le:,~}:
        # 10,000,000,000,000, not 10000000000000.0)
        limits = {k: ctx[k] for k in ("gt", "ge", "lt", "le", "min_length", "max_length", "multiple_of", "pattern")
                  if k in ctx}
        sent = {} if kind == "missing" else {"value": echoed(err.get("input"))}
        return M(shape, **sent, **limits)
    return M("error.v.other", msg=str(err.get("msg", "")).removeprefix("Value error, "))


def or_list(expected: str) -> str | dict[str, str]:
    """pydantic's list of allowed values ("'any', 'cn' or 'international'") in each language, as a `Message`
    parameter takes data text: in Chinese each name as code, joined with 、 and the last with 或."""
    head, sep, last = expected.rpartition(" or ")
    if not sep:
        return expected
    names = [re.sub(r"^'(.*)'$", r"`\1`", x.strip()) for x in [*head.split(", "), last]]  # 'cn' → `cn`
    return {"en": expected, "zh": "、".join(names[:-1]) + " 或 " + names[-1]}


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


def did_you_mean(name: str, candidates: Iterable[str], n: int = 3, ids: Mapping[str, str] | None = None,
                 cutoff: float = 0.5) -> list[str]:
    """Closest candidate names to `name`: those it begins up to a separator, then by difflib ratio (case-insensitive,
    at least `cutoff`), best first, then the names that contain it; at most `n`, each once. `ids` (a name or alias → its id) suggests the ids: h100, h100-sxm and h100-80gb are
    one device. None for a name of one character (every short id is "close" to "0"; "x" is in
    mlu370-x8) or longer than `FUZZY_MAX_CHARS`."""
    key = name.strip().lower()
    if len(key) < 2 or len(key) > FUZZY_MAX_CHARS:
        return []
    pool: dict[str, str] = {}
    for c in candidates:
        pool.setdefault(c.lower(), (ids or {}).get(c, c))
    # a name the typed one begins up to a separator ("qwen3-235b" of qwen3-235b-a22b, after any "org/") is meant
    # before one that merely looks alike (qwen3-32b); "h10" is no such start of h100
    starts = [k for k in pool if any(part.startswith(key) and part[len(key):len(key) + 1] in ("", "-", "_", ".")
                                     for part in (k, k.rsplit("/", 1)[-1]))]
    close = difflib.get_close_matches(key, list(pool), n=max(1, len(pool)), cutoff=cutoff)
    contains = [k for k in pool if key in k and k not in close]
    return list(dict.fromkeys(pool[k] for k in starts + close + contains))[:n]
