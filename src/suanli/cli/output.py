"""Shared rendering: a rich table by default, `--json` or `--csv` for scripts."""

from __future__ import annotations

import contextlib
import csv
import functools
import io
import json
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from enum import Enum
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

__all__ = ["Format", "Price", "col_headers", "console", "display_name", "display_note", "echo", "emit_json", "emit_rows", "env_lang_read", "err_console", "fit_columns", "lang", "line_pieces", "list_sep", "say", "say_json", "set_lang",
           "to_jsonable", "tr", "unquote", "wrap_cell"]

# Code quoted with backticks in the catalog (`suanli bench run`, `--offer-kinds listing,index`: the quotes let a
# Chinese sentence hold English code, tests/unit/i18n) prints without them: the terminal shows the code as it is
# typed (native reader's review 2026-12-01). One rule for both languages, only where the CLI prints text: a
# table, a line, an error, help (main._help_unquoted); --json, the API and the page keep the text as it is.
_CODE = re.compile(r"`([^`\n]+)`")


def unquote(text: str) -> str:
    """`text` with each pair of backticks around code dropped (the code kept)."""
    return _CODE.sub(r"\1", text) if "`" in text else text


class _Console(Console):
    """rich's console, every string it prints unquoted (`unquote`)."""

    def render_str(self, text: str, *args: Any, **kwargs: Any) -> Any:
        return super().render_str(unquote(text), *args, **kwargs)


# No emoji codes: suanli's texts hold none, and with them on rich searched every string printed for `:name:` and
# loaded its table of ~3,600 emoji (~2 ms of `suanli estimate`); a `:ok:` in a name the user typed prints as typed.
console = _Console(emoji=False)
err_console = _Console(stderr=True, emoji=False)

_lang: str | None = None  # set by `--lang`; else from LC_ALL / LC_MESSAGES / LANG
_env_lang: str | None = None  # the environment's language while a command runs (`env_lang_read`)


def lang() -> str:
    """The language of this run's output: `zh` or `en`."""
    if _lang is None:
        if _env_lang is not None:
            return _env_lang
        from suanli.i18n import lang_from_env

        return lang_from_env()
    return _lang


@contextlib.contextmanager
def env_lang_read() -> Iterator[None]:
    """While a command runs (`main.run`), LC_ALL / LC_MESSAGES / LANG are read once, not for each of the ~450 texts
    `suanli estimate` prints (~3 ms: each unset variable is a KeyError inside `os.environ.get`); `--lang` still
    decides, and after the command `lang()` reads the environment again."""
    global _env_lang
    saved = _env_lang
    from suanli.i18n import lang_from_env

    _env_lang = lang_from_env()
    try:
        yield
    finally:
        _env_lang = saved


def set_lang(value: str | None) -> None:
    global _lang
    _lang = value


def say(msg: Any) -> str:
    """A `Message` (or a plain string) in this run's language, as the CLI shows it (inputs named as flags)."""
    from suanli.i18n import render

    return render(msg, lang(), "cli")


def say_json(msg: Any, english: Any) -> str:
    """A message stored as JSON (`{"id", "params"}`, the core's `*_i18n` fields) in this run's language; the
    English text when there is none."""
    from suanli.i18n import Message

    if isinstance(msg, Mapping) and msg.get("id"):
        return say(Message.from_json(msg))
    return "" if english is None else str(english)


def tr(msg_id: str, /, **params: Any) -> str:
    """Catalog message `msg_id` in this run's language (labels, titles, headers: no literal text in commands)."""
    from suanli.i18n import t

    return t(msg_id, lang(), "cli", **params)


def list_sep() -> str:
    """What joins a list's items in this run's language: 、 in Chinese (类别、计费单位), ", " in English."""
    return "、" if lang() == "zh" else ", "


def label(msg_id: str) -> str:
    """A line's label (`cli.label.*`) with the space that follows it: none after Chinese's full-width colon."""
    text = tr(msg_id)
    return text if text.endswith("：") else text + " "


def display_name(obj: Any) -> str:
    """A device's or stack's name as this run shows it: the vendor's Chinese name (`name_zh`, 华为昇腾 910B) in
    Chinese output where the catalog has one, else its name."""
    zh = getattr(obj, "name_zh", None)
    return str(zh) if zh and lang() == "zh" else str(obj.name)


def display_note(obj: Any, field: str = "note") -> Any:
    """A catalog text field as this run shows it: its Chinese twin `<field>_zh` (note_zh, provider_zh,
    china_market_zh …) in Chinese output where the catalog has one, else the field itself (English output and
    JSON never change). Works on catalog rows and on mappings; `notes` (a list) returns its `notes_zh` list
    joined with the English one item by item where the Chinese list is shorter."""
    def get(name: str) -> Any:
        return obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)

    value = get(field)
    if lang() != "zh":
        return value
    zh = get(f"{field}_zh")
    if isinstance(value, list | tuple):
        zh = list(zh or ())
        return [zh[i] if i < len(zh) and zh[i] else v for i, v in enumerate(value)]
    return str(zh) if zh else value


def col_headers(columns: Sequence[str], prefix: str = "col") -> dict[str, str]:
    """Column headers in this run's language: `<prefix>.<column>` where the catalog has it (else the key)."""
    from suanli.i18n import messages

    cat = messages(lang())
    return {c: cat[f"{prefix}.{c}"] for c in columns if f"{prefix}.{c}" in cat}


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
    """`obj` as JSON on stdout, money rounded as the API rounds it (`views.money.round_money`: CNY amounts to the
    fen, prices per unit to 4 decimals), so --json and the API answer the same figures."""
    from suanli.views.money import round_money

    sys.stdout.write(json.dumps(round_money(to_jsonable(obj)), indent=2, ensure_ascii=False, sort_keys=False) + "\n")


class Price(float):
    """A price in a table cell with its decimals (`offers.price_decimals`, the rule plan's reason writes one by):
    2.00, 43.50 to the fen for an hour's price — never "2" under a ¥ header (buyer review 2026-12-03: `suanli
    offers` printed ¥2.00 as "2") — and 15,000 in whole yuan for a month's (buyer review 2026-12-02)."""

    decimals: int

    def __new__(cls, value: float, decimals: int = 2) -> Price:
        obj = super().__new__(cls, value)
        obj.decimals = decimals
        return obj


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, Price):
        return f"{v:,.{v.decimals}f}"
    if isinstance(v, bool):
        from suanli.i18n import t

        return t("bool.yes" if v else "bool.no", lang())
    if isinstance(v, int):  # a count with its thousands separated, as floats are (8,190,735,360 parameters)
        return f"{v:,}"
    if isinstance(v, float):
        if v != v:
            return ""
        if v != 0 and abs(v) < 1:
            return f"{v:.3g}"
        if abs(v) >= 100:
            return f"{v:,.0f}"
        return f"{v:,.2f}".rstrip("0").rstrip(".")
    if isinstance(v, list | tuple):
        return list_sep().join(_cell(x) for x in v)
    if hasattr(v, "params") and hasattr(v, "id"):  # a Message
        return say(v)
    return str(v)


# Where a line may break: one rule for table cells (`wrap_cell`) and wrapped paragraphs (rich's `_wrap.words`:
# help, notes under a table, errors, and every line a command prints: `echo`). At spaces, after "·" (layouts
# tp2·pp4; a separating " · " stays at the end of the line before it) and between CJK characters (Chinese has no
# spaces; UAX #14 allows a break there); never inside a name such as "rtx-4090", "llama-factory", an identifier
# (SUANLI_API_TOKEN, tpot_steady_s) or a flag, never at "," (1,600) or "/" (GB/s); in Chinese never inside a short
# word (up to 5 Han characters between spaces or punctuation: 华为昇腾, （按月）). In Chinese output also the usual no-break
# rules (native reader's review 2026-12-01): closing punctuation (，。、；：）」…) stays with what precedes it and an
# opening bracket or quote with what follows it, and a number stays with its unit (4,380 个小时, ¥150/卡时, 80 GiB).
_CJK = "\u2e80-\u9fff\u3000-\u303f\uf900-\ufaff\uff00-\uffef"
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_OPEN = "（“‘「『《【〔［｛"
_CLOSE = "，。、：；！？）”’」』》】〕］｝…—％"
# a number's unit: the longest first (个小时 before 个, GB/s before GB); a Chinese measure word glues its number
# to the word after it too (4 张卡, 3 个请求) only as far as the list names it
_UNITS_ZH = ("个小时|个月|个词元|张卡|卡时|小时|毫秒|分钟|字节|吉比特|人周|个|张|台|条|行|层|位|倍|项|次|秒|天|周|月|年|"
             "元|万|亿|卡|名|种|列")
_UNITS_EN = r"GiB|MiB|TiB|GB/s|TB/s|GB|TB|MB|TFLOPS|tokens/s|tokens|token|ms|[smhW]|kW|bit|B"
_GAP = 2  # columns are two cells apart (no edges, padding collapsed)


_ZH_STOP = rf"\s{_CJK}{_OPEN}{_CLOSE}"
_ZH_UNIT = rf"(?:{_UNITS_ZH}|(?:{_UNITS_EN})(?![^{_ZH_STOP}/),;:]))"
_ZH_PER = rf"(?:/(?:{_UNITS_ZH}|[{_HAN}]|(?:{_UNITS_EN})(?![^{_ZH_STOP}/),;:])))"  # ¥150/卡时, 元/卡时, GiB/卡


@functools.cache
def _zh_number() -> re.Pattern[str]:
    """A number with its unit, kept on one line in Chinese output: 4,380 个小时, ¥150/卡时, 80 GiB, 60%."""
    return re.compile(rf"[-+]?[¥$￥]?\d[\d,.]*(?: ?%)?(?![^{_ZH_STOP}/])(?: ?{_ZH_UNIT})?{_ZH_PER}?")


_DOT = r"(?:\s+·(?=\s|$))?"  # a separating " · " stays at the end of the line before it, never starts a line
_ZH_WORD = 5  # a run of up to 5 Han characters between spaces, brackets or punctuation is a word: never split


def _has_cjk(text: str) -> bool:
    """Whether `text` may hold a character of `_CJK` (one at or after its first, U+2E80): a class of those ranges costs
    `re` a pass over each of their ~30,000 characters when it compiles (~1 ms a class), so English output compiles
    them only for a text that has one."""
    return bool(text) and max(text) >= "\u2e80"


@functools.cache
def _breaker(zh: bool, cjk: bool) -> re.Pattern[str]:
    """The pieces a line breaks between, each with the spaces before (at the text's start) and after it. `cjk` False
    (English output of a text without `_CJK` characters, `_has_cjk`): the same pattern without its `_CJK` classes,
    which match nothing there."""
    if not zh and not cjk:
        return re.compile(rf"\s*(?:[^\s·]*·|[^\s·]+){_DOT}\s*")
    if not zh:  # English output as before: no glue, curly quotes and dashes part of their word
        return re.compile(rf"\s*(?:[{_CJK}]|[^\s·{_CJK}]*·|[^\s·{_CJK}]+){_DOT}\s*")
    stop, number, per = _ZH_STOP, _zh_number().pattern, _ZH_PER
    word = rf"[^{stop}·]*·|[^{stop}·]*/(?:{_UNITS_ZH}|[{_HAN}])|[^{stop}·]+"
    short = rf"(?<![{_HAN}])[{_HAN}]{{1,{_ZH_WORD}}}(?![{_HAN}]){per}?"  # 华为昇腾, （按月）: a short word whole
    number += rf"(?:(?<=[{_HAN}])[{_HAN}]{{1,3}}(?![{_HAN}]))?"  # 2 个副本: the counted word with its number
    return re.compile(rf"\s*[{_OPEN}]*(?:{number}|{word}|{short}|[{_HAN}]{per}?|[{_CJK}]|\S)[{_CLOSE}]*{_DOT}\s*")


def line_pieces(text: str) -> list[str]:
    """`text` (one line) as the pieces a line may break between, in this run's language (`_breaker`)."""
    zh = lang() == "zh"
    return _breaker(zh, zh or _has_cjk(text)).findall(text)


def _rich_words(text: str) -> Iterator[tuple[int, int, str]]:
    """rich's `_wrap.words` with this run's breaker: (start, end, word) with the spaces after the word (rich breaks
    only at spaces and folds a longer run at any character: a Chinese line started with ，or 个小时 apart)."""
    zh = lang() == "zh"
    for m in _breaker(zh, zh or _has_cjk(text)).finditer(text):
        yield m.start(), m.end(), m.group(0)


def _rstrip_end_cells(self: Any, size: int) -> None:
    """rich's `Text.rstrip_end` measuring in cells, not characters: the space after the last word of a wrapped
    line of Chinese (two cells a character) is dropped, not cropped with the word before it into "…"."""
    excess = cell_len(self.plain) - size
    if excess > 0 and (m := re.search(r"\s+$", self.plain)) is not None:
        self.right_crop(min(len(m.group(0)), excess))


def _use_breaker() -> None:
    """Every paragraph rich wraps in Chinese output breaks as a table cell does (`_breaker`); English as rich does
    (at spaces), a separating " · " kept at the end of the line before it."""
    import rich._wrap
    import rich.text

    english = rich._wrap.words

    def english_words(text: str) -> Iterator[tuple[int, int, str]]:
        last: tuple[int, int] | None = None
        for start, end, word in english(text):
            if last is not None and word.strip() == "·":
                last = (last[0], end)
                continue
            if last is not None:
                yield last[0], last[1], text[last[0]:last[1]]
            last = (start, end)
        if last is not None:
            yield last[0], last[1], text[last[0]:last[1]]

    def words(text: str) -> Iterable[tuple[int, int, str]]:
        return _rich_words(text) if lang() == "zh" else english_words(text)

    rich._wrap.words = words  # type: ignore[assignment]  # rich breaks lines only at spaces
    rich.text.Text.rstrip_end = _rstrip_end_cells  # type: ignore[method-assign]


_use_breaker()


def echo(text: str, *, err: bool = False) -> None:
    """One printed line or paragraph (rich markup allowed), wrapped at the terminal's width (COLUMNS) between the
    breaker's pieces (`_breaker`): a number keeps its unit, an identifier or flag stays whole, no Chinese line
    starts with ，。、；：）」 or "·". Every line a command prints goes through here (review 2026-12-01)."""
    (err_console if err else console).print(text, highlight=False)


_SEP_DOT = re.compile(r"(\s+)(·\s*)$")


def _pieces(text: str) -> list[str]:
    """A cell's pieces: the breaker's, a separating " · " its own piece again (`wrap_cell` keeps it at the end of a
    line or drops it at a break, so it widens no column)."""
    out: list[str] = []
    for piece in line_pieces(text):
        m = _SEP_DOT.search(piece) if piece.strip() != "·" else None
        out.extend([piece[:m.start(2)], m.group(2)] if m else [piece])
    return out


def _min_width(text: str) -> int:
    """The narrowest width at which `text` wraps without breaking a word."""
    return max((cell_len(x.strip()) for line in text.split("\n") for x in _pieces(line) if x.strip()), default=0)


def _max_width(text: str) -> int:
    return max((cell_len(line) for line in text.split("\n")), default=0)


_NUMBER = re.compile(r"[-+]?[¥$]?[\d,.]+[%kKMG]?")  # 1,600 · 46.53 · 15,000 · 64.7%: never cut, never wrapped
_HYPHEN = re.compile(r"[^-]*-|[^-]+")  # an id's parts, each keeping its '-': ascend-|910b, vllm-|ascend
def _is_number(piece: str) -> bool:
    """A number, or in Chinese output a number with its unit (80 GiB, 4,380 个小时): never cut, never wrapped."""
    x = piece.strip()
    return bool(_NUMBER.fullmatch(x) or (lang() == "zh" and _zh_number().fullmatch(x)))


@functools.cache
def _cjk_run() -> re.Pattern[str]:
    """A run of `_CJK` characters (compiled on first use: `_has_cjk`)."""
    return re.compile(rf"[{_CJK}]+")


_HEAD_CJK = 8  # a header word up to 8 cells (新价格, 撤回时间, GiB/卡) stays on one line
_HEAD_RUN = 12  # and a Chinese header word up to 6 characters (参考文章方法 | 中位数, not 参考文章方 | 法中位数)


def _head_min(text: str) -> int:
    """The narrowest width for a header: its words whole, and a short Chinese header whole (新价格 stacked one
    character a line at 80 columns, buyer review 2026-12-01)."""
    runs = [cell_len(x) for x in (_cjk_run().findall(text) if _has_cjk(text) else ())
            if cell_len(x) <= _HEAD_RUN]  # a longer one may wrap
    words = [cell_len(x) for x in text.split() if cell_len(x) <= _HEAD_CJK]  # GiB/卡 whole, not GiB/ over 卡
    return max([_min_width(text), *runs, *words])


def _hyphen_min(text: str) -> int:
    """The narrowest width at which `text` wraps with ids broken only after a '-' (ascend-|910b), numbers whole."""
    return max((cell_len(part) for line in text.split("\n") for x in _pieces(line) if x.strip()
                for part in ([x.strip()] if _is_number(x) else _HYPHEN.findall(x.strip()))),
               default=0)


def _cut_floor(text: str) -> int:
    """The narrowest width an ellipsis may cut `text`'s words to: 8 cells (a number stays whole)."""
    return max((cell_len(x.strip()) if _is_number(x) else min(8, cell_len(x.strip()))
                for line in text.split("\n") for x in _pieces(line) if x.strip()), default=0)


def _fold(piece: str, width: int) -> list[str]:
    """A word wider than `width`: broken after its '-' (an id: mtt-|s4000), and a part still too wide cut with
    an ellipsis (never split mid-word into two unmarked halves)."""
    out: list[str] = []
    line = ""
    for part in _HYPHEN.findall(piece):
        if line and cell_len(line + part) > width:
            out.append(line)
            line = ""
        if cell_len(part) > width:
            cut = next((i for i in range(len(part), 0, -1) if cell_len(part[:i]) <= width - 1), 0)
            part = part[:cut] + "…"
        line += part
    out.append(line)
    return out


def wrap_cell(text: str, width: int) -> str:
    """`text` wrapped to `width` cells between its pieces (`_breaker`: at spaces, after · _, between CJK characters
    but not before closing punctuation or between a number and its unit); a piece wider than `width` breaks
    after a '-' and else is cut with an ellipsis (`_fold`)."""
    out: list[str] = []
    for para in text.split("\n"):
        line = ""
        for piece in _pieces(para):
            if not line:
                piece = piece.lstrip()
            if line[-1:].isspace() and piece.strip() == "·" and cell_len((line + piece).rstrip()) > width:
                continue  # a separating dot that does not fit is dropped at the break, never starts a line
            if line and cell_len((line + piece).rstrip()) > width:
                out.append(line.rstrip())
                line = ""
                piece = piece.lstrip()
            if cell_len(piece.rstrip()) > width:  # only when the column had to go below its widest word
                *whole, last = _fold(piece.rstrip(), width)
                if line:
                    out.append(line.rstrip())
                out.extend(whole)
                line = ""
                piece = last + piece[len(piece.rstrip()):]
            line += piece
        out.append(line.rstrip())
    return "\n".join(out)


def _wrap_head(text: str, width: int) -> str:
    """A header wrapped at its spaces (TTFT|毫秒, not TTFT 毫|秒); a word wider than `width` as a cell wraps."""
    out: list[str] = []
    for word in text.split(" "):
        if out and cell_len(out[-1] + " " + word) <= width:
            out[-1] += " " + word
        else:
            out.extend(wrap_cell(word, width).split("\n") if cell_len(word) > width else [word])
    return "\n".join(out)


def fit_columns(cells: Sequence[Sequence[str]], width: int, drop_first: Sequence[int] = (),
                keep_always: Sequence[int] = (), drop_later: Sequence[int] = ()) -> tuple[list[int], list[int]]:
    """Column widths for a table of `cells` (header first) in `width` terminal cells, words kept whole:
    every column at its full width when that fits, after leaving out `drop_first` and then columns with one
    value in every row (all-zero first) if needed; else each at least its widest word, the rest shared by how
    much each lacks, after leaving out `drop_later` (the caller's less important columns, in order) if the
    words do not fit whole; else ids break after a '-', then the longest words are cut with an ellipsis
    (widest column first, not below 8 cells; numbers never); else columns go from the right. The first column
    and `keep_always` (the figure a table ranks by) never go. Returns (kept column indexes, their widths)."""
    n = len(cells[0]) if cells else 0
    hi = [max(_max_width(r[j]) for r in cells) for j in range(n)]
    keep = list(range(n))
    fixed = {0, *keep_always}

    def fits(bound: list[int]) -> bool:
        return sum(bound[k] for k in keep) + _GAP * (len(keep) - 1) <= width

    if fits(hi):  # every column at its full width: what the steps below come to, without measuring any word
        return keep, hi
    lo = [max([_head_min(cells[0][j]), *(_min_width(r[j]) for r in cells[1:])]) for j in range(n)]

    def drop(j: int) -> None:
        if j in keep and j not in fixed:
            keep.remove(j)

    # low-value columns (the caller's, then one value in every row) go before anything wraps
    constant = sorted((j for j in range(1, n) if len(cells) > 2 and len({r[j] for r in cells[1:]}) == 1),
                      key=lambda j: (cells[1][j] not in ("", "0"), -j))  # all-zero or empty first, then right to left
    for j in [*drop_first, *constant]:
        if fits(hi):
            break
        drop(j)
    for j in drop_later:  # then the caller's less important columns, before any word is broken
        if fits(lo):
            break
        drop(j)
    # and before the first column (the row's name: 华为昇腾 910B) wraps: a row's name whole over a low-value column
    # (zh review 2026-12-01: 华为昇 | 腾 beside a 软件栈 column)
    # and its short cells whole (2.57（按月）, not 2.57（按 | 月）), a long text column at its narrowest
    whole = [hi[0], *(max(lo[k], c) if (c := max(_max_width(r[k]) for r in cells[1:])) <= 2 * _HEAD_CJK else lo[k]
                      for k in range(1, n))] if len(cells) > 1 else lo
    for j in drop_later:
        if fits(whole):
            break
        drop(j)
    # then ids break after a '-', then the longest words are cut with an ellipsis, widest column first, down to
    # 8 cells (or the header's widest word; numbers whole); only then columns go from the right
    head = [_head_min(cells[0][j]) for j in range(n)]
    for floor in ([max([head[j], *(_hyphen_min(r[j]) for r in cells[1:])]) for j in range(n)],
                  [max([head[j], *(_cut_floor(r[j]) for r in cells[1:])]) for j in range(n)]):
        while not fits(lo):  # the widest word first (a long note's id before a source's)
            j = max(keep, key=lambda k: lo[k] if lo[k] > floor[k] else -1)
            if lo[j] <= floor[j]:
                break
            lo[j] -= 1
            hi[j] = max(hi[j], lo[j])
    for j in range(n - 1, 0, -1):
        if fits(lo) or len(keep) <= 1:
            break
        drop(j)
    room = width - _GAP * (len(keep) - 1)
    if sum(hi[k] for k in keep) <= room:
        return keep, [hi[k] for k in keep]
    w = {k: lo[k] for k in keep}
    spare = room - sum(w.values())
    # whole cells and short headers first (a longer header may wrap at its spaces: `list` over `¥/card-h`), then
    # whole headers; in each
    # pass whole columns first, the cheapest to complete first
    short_head = {k: _max_width(cells[0][k]) if _max_width(cells[0][k]) <= _HEAD_CJK else 0 for k in keep}  # ¥ total
    body = {k: max(lo[k], min(hi[k], max([short_head[k], *(_max_width(r[k]) for r in cells[1:])]))) for k in keep}
    # a short cell's value whole before a header is (目标 10 / 40 on one line over 样本内 | n)
    cells_whole = {k: max(lo[k], c) if (c := max(_max_width(r[k]) for r in cells[1:])) <= _HEAD_CJK else lo[k]
                   for k in keep}
    for goal in (cells_whole, body, hi):
        for k in sorted(keep, key=lambda k: goal[k] - w[k]):
            if 0 < goal[k] - w[k] <= spare:
                spare -= goal[k] - w[k]
                w[k] = goal[k]
        while spare > 0:  # then one cell at a time to the narrowest column still short of the goal
            short = [k for k in keep if w[k] < goal[k]]
            if not short:
                break
            k = min(short, key=lambda k: w[k])
            w[k] += 1
            spare -= 1
    return keep, [w[k] for k in keep]


def emit_rows(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str],
    fmt: Format = Format.table,
    title: str | None = None,
    headers: Mapping[str, str] | None = None,
    drop_first: Sequence[str] = (),
    keep_always: Sequence[str] = (),
    drop_later: Sequence[str] = (),
    styles: Mapping[str, Sequence[str]] | None = None,
) -> None:
    """Print rows as a table, JSON list or CSV with the given column order. A table fits the terminal with
    words whole (`fit_columns`); columns that cannot fit are named below it (`drop_first`: which go first;
    `drop_later`: which go before a word breaks; `keep_always`: never). `styles`: a column's rich style per row
    (migrate check's status colours), the cell's text printed as it is."""
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
    names = [unquote((headers or {}).get(c, c)) for c in columns]
    cells = [names, *[[unquote(_cell(r.get(c))) for c in columns] for r in rows]]
    def at(names_: Sequence[str]) -> list[int]:
        return [columns.index(c) for c in names_ if c in columns]

    keep, widths = fit_columns(cells, console.width, at(drop_first), at(keep_always), at(drop_later))
    table = Table(title=title, header_style="bold", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  collapse_padding=True, padding=(0, 1))
    for j, wd in zip(keep, widths):
        numeric = any(isinstance(r.get(columns[j]), int | float) and not isinstance(r.get(columns[j]), bool) for r in rows)
        table.add_column(_wrap_head(names[j], wd), width=wd, no_wrap=True, overflow="crop",
                         justify="right" if numeric else "left")
    for i, row in enumerate(cells[1:]):
        table.add_row(*(Text(wrap_cell(row[j], wd), style=styles[columns[j]][i]) if styles and columns[j] in styles
                        else wrap_cell(row[j], wd) for j, wd in zip(keep, widths)))
    console.print(table)
    if len(keep) < len(columns):
        from suanli.i18n import t

        left = list_sep().join(names[j] for j in range(len(columns)) if j not in keep)
        console.print("[dim]" + t("cli.columns_left_out", lang(), columns=left, width=console.width) + "[/dim]",
                      highlight=False)
