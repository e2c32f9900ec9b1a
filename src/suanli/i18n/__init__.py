"""One message catalog for every user-facing sentence, in Chinese and English.

The messages are two JSON files beside this module (`zh.json`, `en.json`), one `{"id": "template"}` per
line, templates in `str.format` syntax (`"¥{cost:,.0f}"`). Core code returns `Message(id, params)` values
and every interface (CLI, API, page) renders them with `render`; plain text goes through `t`.

Rendering rules, the same everywhere:
- a parameter that is itself a `Message` is rendered first (durations, nested reasons);
- a parameter whose name is in `ENUM_PARAMS` (objective, billing, task, vendor, memory item …) whose value
  has a message `<prefix>.<value>` is shown as that message, so the core emits plain ids;
- the parameters `field`, `task_field`, `region_field` name an input by its request field (`budget_cny`), shown as
  `flag.<name>` on the CLI (`--budget`), `field.<name>` on the page (“预算（元）”) and the JSON field in the API
  (`api.field`: `budget_cny`) — one sentence, the input named as the interface that shows it takes it (`field_name`);
- money keeps its sign before the currency: `¥{saving:,.0f}` of −14,500 is "-¥14,500" (`sign_first`; amounts formatted
  in code: `yuan`).

Pure Python, stdlib only: the core may import it.
"""

from __future__ import annotations

import math

import json
import os
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "DEFAULT_LANG",
    "ENUM_PARAMS",
    "LANGS",
    "Lang",
    "Message",
    "Surface",
    "both",
    "cn_count",
    "device_name_message",
    "duration",
    "field_name",
    "lang_from_accept_language",
    "lang_from_env",
    "localize",
    "messages",
    "normalize_lang",
    "render",
    "sign_first",
    "span",
    "span_text",
    "t",
    "yuan",
]

Lang = Literal["zh", "en"]
Surface = Literal["cli", "web", "api"]
LANGS: tuple[Lang, ...] = ("zh", "en")
DEFAULT_LANG: Lang = "en"
_DIR = Path(__file__).resolve().parent

ENUM_PARAMS: dict[str, str] = {
    "objective": "objective",
    "task": "task",
    "billing": "billing",
    "billing_unit": "billing_unit",
    "vendor": "vendor",
    "item": "memory",
    "spec": "spec",
    "price_region": "price_region",
    "family": "family",  # an accelerator family (hopper, davinci): Hopper 架构, 达芬奇架构 in Chinese
    "memory_kind": "memory_kind",  # what a benchmark's peak memory measured (process-peak-rss: 进程峰值常驻内存)
    "region": "price_region",  # an offer's region (cn, international): 境外 in Chinese
    "price_kind": "price_kind",
    "kind": "kind",  # what an unknown name names (gpu, model, plan …): NotFoundError
    "recompute": "recompute",  # activation recompute: none, selective, full (a layout's words)
}
_FIELD_PARAMS = ("field", "task_field", "region_field")  # and every other `*_field` parameter (`_is_field`)


def _is_field(name: str) -> bool:
    """A parameter that names an input (`field`, `region_field`, `side_field` …): shown by `field_name`."""
    return name in _FIELD_PARAMS or name.endswith("_field")


@dataclass(frozen=True)
class Message:
    """A sentence to show a user, not yet in any language: a catalog id and its parameters."""

    id: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __init__(self, id: str, params: Mapping[str, Any] | None = None, /, **kw: Any) -> None:
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "params", {**(params or {}), **kw})

    def render(self, lang: str = DEFAULT_LANG, surface: Surface = "cli") -> str:
        return render(self, lang, surface)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Message:
        """The inverse of `to_json`: nested `{"id", "params"}` mappings become messages again (lists too)."""
        def back(v: Any) -> Any:
            if isinstance(v, Mapping) and set(v) == {"id", "params"}:
                return cls.from_json(v)
            if isinstance(v, list) and v and all(isinstance(x, Mapping) and set(x) == {"id", "params"} for x in v):
                return [cls.from_json(x) for x in v]
            return v

        return cls(str(d["id"]), {k: back(v) for k, v in dict(d.get("params") or {}).items()})

    def to_json(self) -> dict[str, Any]:
        """`{"id": …, "params": …}` with nested messages as dicts (for storage and the API)."""
        def out(v: Any) -> Any:
            if isinstance(v, Message):
                return v.to_json()
            if isinstance(v, list | tuple) and v and all(isinstance(x, Message) for x in v):
                return [x.to_json() for x in v]
            return v

        return {"id": self.id, "params": {k: out(v) for k, v in self.params.items()}}


@cache
def messages(lang: str) -> dict[str, str]:
    """The catalog of one language (`zh` or `en`)."""
    lang = normalize_lang(lang)
    with (_DIR / f"{lang}.json").open(encoding="utf-8") as f:
        data: dict[str, str] = json.load(f)
    return data


def normalize_lang(lang: str | None) -> Lang:
    """'zh', 'zh_CN.UTF-8', 'zh-Hans', '中文' → 'zh'; 'en', 'en-US', 'C', '' → 'en'; anything else → 'en'."""
    v = (lang or "").strip().lower()
    if v.startswith("zh") or v in ("中文", "chinese", "cn"):
        return "zh"
    return "en"


def lang_from_env(environ: Mapping[str, str] | None = None) -> Lang:
    """POSIX order: LC_ALL, then LC_MESSAGES, then LANG (the first one set and non-empty decides)."""
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        v = env.get(var)
        if v:
            return normalize_lang(v)
    return DEFAULT_LANG


def lang_from_accept_language(header: str | None) -> Lang:
    """The supported language with the highest q-value in an Accept-Language header (RFC 9110 §12.5.4)."""
    best: tuple[float, Lang] | None = None
    for i, part in enumerate((header or "").split(",")):
        tag, _, rest = part.strip().partition(";")
        tag = tag.strip().lower()
        if not tag:
            continue
        q = 1.0
        for p in rest.split(";"):
            k, _, v = p.strip().partition("=")
            if k == "q":
                try:
                    q = float(v)
                except ValueError:
                    q = 0.0
        lang: Lang | None = "zh" if tag.startswith("zh") else "en" if tag.startswith("en") else None
        if lang is None or q <= 0:
            continue
        if best is None or q > best[0]:
            best = (q, lang)
    return best[1] if best else DEFAULT_LANG


def _param(name: str, value: Any, lang: Lang, surface: Surface) -> Any:
    if isinstance(value, Message):
        return render(value, lang, surface)
    if isinstance(value, Mapping) and value and set(value) <= set(LANGS):
        return value.get(lang) or value.get("en") or next(iter(value.values()))  # data text given in both languages
    cat = messages(lang)
    if _is_field(name) and isinstance(value, str):
        return field_name(value, lang, surface)
    prefix = ENUM_PARAMS.get(name)
    if prefix is not None and isinstance(value, str):
        return _Label(cat.get(f"{prefix}.{value}", value), cat.get(f"{prefix}.{value}.count"))
    if isinstance(value, list | tuple) and all(isinstance(v, Message) for v in value):
        return ("；" if lang == "zh" else "; ").join(render(v, lang, surface) for v in value)
    return value


class _Label(str):
    """An enum parameter's label; `{billing_unit:count}` is its counting form after a number (`<prefix>.<value>.count`:
    1 个月, not 1 月 "January"; the label itself where there is none: only `billing_unit.month.count` today)."""

    counted: str

    def __new__(cls, text: str, count: str | None = None) -> _Label:
        obj = super().__new__(cls, text)
        obj.counted = count or text
        return obj

    def __format__(self, spec: str) -> str:
        return self.counted if spec == "count" else format(str(self), spec)


def field_name(name: str, lang: str = DEFAULT_LANG, surface: Surface = "cli") -> str:
    """An input as the interface that shows it names it (`name` is the request's own field, `output`): the CLI
    its flag (`flag.output`: --output), the page its form label in the page's language (`field.output`: “输出
    token”), the API its JSON field (`api.field`: `output`; `json.<name>` where one field is two, `hours`/`days`).
    A name without an entry for the interface stays as it is."""
    cat = messages(normalize_lang(lang))
    if surface == "api":
        return cat.get(f"json.{name}") or cat["api.field"].format(name=name)
    return cat.get(f"{'field' if surface == 'web' else 'flag'}.{name}", name)


def render(msg: Message | str, lang: str = DEFAULT_LANG, surface: Surface = "cli") -> str:
    """The message in `lang`; a plain string passes through unchanged (text that is not in the catalog yet).

    An id that is missing in `lang` falls back to English, then to the id itself; a template whose
    parameters do not match shows the template (never raises: a message must not hide the result)."""
    if isinstance(msg, str):
        return msg
    code = normalize_lang(lang)
    # an `<id>.api` entry words the sentence for the API (field and route names, not CLI flags and commands); an
    # `<id>.web` entry for the page, where the sentence points to a setting the page's form does not have
    api = f"{msg.id}.{surface}" if surface in ("api", "web") else None
    template = ((api and (messages(code).get(api) or messages("en").get(api)))
                or messages(code).get(msg.id) or messages("en").get(msg.id))
    if template is None:
        return msg.id
    params = {k: _param(k, v, code, surface) for k, v in msg.params.items()}
    if "}–" in template:  # a range whose two ends print alike is written once (`span_text`): "0 weeks", not "0–0 weeks"
        template = _one_value_ranges(template, params)
    try:
        out = (_zh_format(template, params) if code == "zh"
               else template.format(**params) if _plain_template(template) else _FORMATTER.format(template, **params))
    except (KeyError, IndexError, ValueError, TypeError):
        out = template
    out = sign_first(out)  # `¥{saving:,.0f}` of a negative saving: -¥20,000
    return _web_fields(out, code) if surface == "web" else _api_fields(out, code) if surface == "api" else out


# a template's range of two fields: {lo:g}–{hi:g} weeks, ¥{lo:,.0f}–¥{hi:,.0f} (the currency before each end)
_RANGE = re.compile(r"(¥?)\{(\w+(?::[^{}]*)?)\}–\1\{(\w+(?::[^{}]*)?)\}")


def _one_value_ranges(template: str, params: Mapping[str, Any]) -> str:
    """`template` with each range whose two ends format alike (`span_text`) cut to its first field."""
    def one(m: re.Match[str]) -> str:
        try:
            lo, hi = (_FORMATTER.format("{" + f + "}", **params) for f in (m.group(2), m.group(3)))
        except (KeyError, IndexError, ValueError, TypeError):
            return m.group(0)  # render shows the template as it is
        return m.group(1) + "{" + m.group(2) + "}" if span_text(lo, hi) == lo else m.group(0)

    return _RANGE.sub(one, template)


# an amount's sign as Python formats it after the currency the template writes before it (`¥{x:,.0f}` → ¥-20,000)
_YUAN_SIGN = re.compile(r"¥([-+])(?=\d)")


def sign_first(text: str) -> str:
    """Money with its sign before the currency, as a bill writes it: "¥-20,000" → "-¥20,000" ("+¥" likewise), in
    every language (the one rule `render` applies to every message and `yuan` to an amount formatted in code)."""
    return _YUAN_SIGN.sub(r"\1¥", text) if "¥" in text else text


def yuan(amount: float, spec: str = ",.0f") -> str:
    """An amount of CNY as every output writes it: ¥14,500, -¥14,500 (`spec`: its number format)."""
    return sign_first(f"¥{amount:{spec}}")


class _Formatter(string.Formatter):
    """`str.format` plus the catalog's own specs: `{n:cn_count}` a count in 万/亿/万亿 (1 亿, 316 万; `cn_count_e6` and
    `cn_count_e9` for a value given in millions or billions), `{h:,.1f~}` a number without a trailing ".0" (730 小时),
    `{m:dur_min}` minutes as a readable duration (572.3 → 9.5 小时), `{n:/card/cards}` a count and its noun by the
    count, the one English plural rule ("1 card", "8 cards"; a number spec before the first "/": `{n:,/card/cards}`;
    `{n:noun/replica/replicas}` the noun alone, for a count said earlier: "1 × 8-card replica"; a count given as text is
    one only as "1": span's "1–2" takes the plural; the nouns may be fields: `{units:/{billing_unit}/{billing_unit}s}`,
    "1 month", "12 months"), `{x:,.4g}` grouped
    significant figures without an exponent (12,350: `grouped_significant`).
    A template that uses none formats as before."""

    def format_field(self, value: Any, format_spec: str) -> Any:
        if "/" in format_spec:  # a count and its noun; text is one only as "1" (app.js `cell`: `p[k] == 1`)
            spec, one, many = format_spec.split("/", 2)
            noun = one if value == 1 or value == "1" else many
            return noun if spec == "noun" else f"{self.format_field(value, spec)} {noun}"
        if format_spec.startswith("cn_count") and isinstance(value, int | float):
            scale = {"cn_count": 1.0, "cn_count_e6": 1e6, "cn_count_e9": 1e9}.get(format_spec)
            if scale is not None:
                return cn_count(value * scale)
        if format_spec == "dur_min" and isinstance(value, int | float):
            return render(duration(value / 60), "zh")
        if format_spec.endswith("~") and isinstance(value, int | float):
            out = format(value, format_spec[:-1])
            return re.sub(r"\.0+$", "", out)
        if (m := _GROUPED_G.fullmatch(format_spec)) and isinstance(value, int | float) and math.isfinite(value):
            return grouped_significant(value, int(m.group(1) or 6))
        return super().format_field(value, format_spec)


# `{x:,.4g}`: significant figures with digit grouping (`_Formatter`, `grouped_significant`)
_GROUPED_G = re.compile(r",(?:\.(\d+))?g")


def grouped_significant(value: float, digits: int) -> str:
    """`value` to `digits` significant figures, digits grouped, never an exponent: 12,350 (Python's `,.4g` wrote
    1.235e+04 from 10,000 up), as the page writes it (app.js `cell`: Intl.NumberFormat maximumSignificantDigits,
    rounding half away from zero on the shortest decimal: ECMA-402 roundingMode "halfExpand")."""
    out = format(value, f",.{digits}g")
    if "e+" not in out:
        return out
    d = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    step = Decimal(1).scaleb(d.adjusted() - digits + 1)  # the last significant digit's place: 10, 100, …
    return f"{int(d.quantize(step, rounding=ROUND_HALF_UP)):,}"


@cache
def _plain_template(template: str) -> bool:
    """Whether `template` uses none of `_Formatter`'s own specs (nor a field inside a spec): `str.format`, in C,
    formats it exactly as `_Formatter` does, about five times faster (a plan renders hundreds of messages)."""
    try:
        specs = [spec or "" for _, name, spec, _ in string.Formatter().parse(template) if name is not None]
    except ValueError:
        return False
    return not any("{" in x or x.startswith("cn_count") or x == "dur_min" or x.endswith("~") or "/" in x
                   or _GROUPED_G.fullmatch(x) for x in specs)


class _Marked(_Formatter):
    """Each inserted value between \x01 and \x02, so `_zh_format` knows where the template's text meets a value."""

    def format_field(self, value: Any, format_spec: str) -> Any:
        return "\x01" + str(super().format_field(value, format_spec)) + "\x02"


_FORMATTER = _Formatter()
_MARKED = _Marked()
_HAN = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"  # CJK ideographs and full-width punctuation
_VALUE = re.compile("\x01([^\x01\x02]*)\x02")


@cache
def _zh_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """`_zh_format`'s patterns, compiled on the first Chinese message: a class of CJK ranges costs `re` a pass over
    each of its ~27,000 characters (~1.5 ms a class, ~4 ms the three; English output needs none).

    - a space between the template's Chinese and an inserted value that starts (ends) with Chinese: "8 张 {device}"
      with 华为昇腾 910B is "8 张华为昇腾 910B", "满足 {targets} 时" is "满足稳态 TPOT … ≤ 50 毫秒时";
    - an inserted list of names joined in code with ", " ("l20, l40s, rtx-4090", "GET, POST", "DeepSpeed,
      LLaMA-Factory (PEFT + DeepSpeed/FSDP)"): 、 in Chinese; not an interval ("(0, 3600]") nor English prose (". ",
      "; ", " or ")."""
    return (re.compile(f"(?<=[{_HAN}]) \x01(?=[{_HAN}])"), re.compile(f"(?<=[{_HAN}])\x02 (?=[{_HAN}])"),
            re.compile(f"^[\\[(]|[{_HAN}]|[.;:!?] | (?:or|and) |\\.$"))


def _name_list(m: re.Match[str]) -> str:
    v = m.group(1)
    return m.group(0) if ", " not in v or _zh_patterns()[2].search(v) else "\x01" + v.replace(", ", "、") + "\x02"


def _zh_format(template: str, params: Mapping[str, Any]) -> str:
    """A Chinese template formatted: no space between its Chinese text and a Chinese value, lists of names with 、."""
    space_before, space_after, _ = _zh_patterns()
    out = _MARKED.vformat(template, (), params)
    out = _VALUE.sub(_name_list, out)
    out = space_after.sub("\x02", space_before.sub("\x01", out))
    return out.replace("\x01", "").replace("\x02", "")


def cn_count(n: float) -> str:
    """A count as Chinese writes large numbers: 1 亿, 2 万亿, 100 万亿, 316 万, 689.8 亿 (four significant digits);
    below 10,000 as it is (5,000; 2.5)."""
    if not math.isfinite(n):
        return format(n)
    for unit, scale in (("万亿", 1e12), ("亿", 1e8), ("万", 1e4)):
        if abs(n) >= scale:
            v = n / scale
            return f"{v:,.0f} {unit}" if abs(v) >= 1e4 else f"{float(f'{v:.4g}'):,g} {unit}"
    return f"{n:,.0f}" if float(n).is_integer() else f"{n:,.4g}"


_FLAG = re.compile(r"--[a-z][a-z0-9-]*")


@cache
def _flag_fields(lang: Lang) -> dict[str, str]:
    """Each CLI flag (`flag.<name>`, "--offer-kinds") that the page has as a form field (`field.<name>`, “Prices”)."""
    cat = messages(lang)
    out: dict[str, str] = {}
    for k, v in cat.items():
        if k.startswith("flag.") and (label := cat.get("field." + k.removeprefix("flag."))):
            for flag in v.split("/"):
                if _FLAG.fullmatch(flag):
                    out.setdefault(flag, label)
    return out


# a flag with a value the page offers as a select's option: (flag, value) -> the option's label (`web.<id>`); the
# Prices select has listings alone or all kinds, so any list of kinds beyond listing is "All" there
_FLAG_VALUE = re.compile(r"(?:pass )?(--offer-kinds|--region) ([a-z]+(?:,[a-z]+)*)")
_OPTIONS = {("--offer-kinds", "listing"): "web.kinds_listing", ("--region", "cn"): "web.region_cn",
            ("--region", "any"): "web.region_any", ("--region", "international"): "web.region_international"}


def _web_option(m: re.Match[str], lang: Lang) -> str:
    flag, value = m.group(1), m.group(2)
    key = _OPTIONS.get((flag, value)) or ("web.kinds_all" if flag == "--offer-kinds" else None)
    cat = messages(lang)
    label = cat.get(f"field.{flag.removeprefix('--').replace('-', '_')}")
    if key is None or key not in cat or label is None:
        return m.group(0)
    return cat["web.note.kinds_all" if flag == "--offer-kinds" else "web.note.region"].format(field=label, value=cat[key])


def _web_fields(text: str, lang: Lang) -> str:
    """On the page a flag written into a sentence or a catalog note ("pass --offer-kinds listing,index") names the
    form field instead, with a value the page offers as the option's label ("set “Prices” to “All: listings, indexes,
    references”"); flags the page has no field for stay as they are."""
    if "--" not in text:
        return text
    fields = _flag_fields(lang)
    text = _FLAG_VALUE.sub(lambda m: _web_option(m, lang), text)
    return _FLAG.sub(lambda m: fields.get(m.group(0), m.group(0)), text)


@cache
def _flag_requests(lang: Lang) -> dict[str, str]:
    """Each CLI flag (`flag.<name>`, "--offer-kinds") and the request field it sets (`offer_kinds`)."""
    out: dict[str, str] = {}
    for k, v in messages(lang).items():
        if k.startswith("flag."):
            for flag in v.split("/"):
                if _FLAG.fullmatch(flag):
                    out.setdefault(flag, k.removeprefix("flag."))
    return out


def _api_option(m: re.Match[str], lang: Lang) -> str:
    flag, value = m.group(1), m.group(2)
    name = _flag_requests(lang).get(flag)
    if name is None:
        return m.group(0)
    values = value.split(",")  # offer_kinds is a JSON list, region one string
    as_json = json.dumps(values) if flag == "--offer-kinds" else json.dumps(value)
    return messages(lang)["api.note.set"].format(field=field_name(name, lang, "api"), value=as_json)


def _api_fields(text: str, lang: Lang) -> str:
    """In an API answer a flag written into a sentence or a catalog note ("pass --offer-kinds listing,index", data
    text a message carries as a parameter) names the request's JSON field instead, its value as JSON ("set
    `offer_kinds` to ["listing", "index"]"), as `_web_fields` names the page's form field; a flag that sets no request
    field stays as it is."""
    if "--" not in text:
        return text
    fields = _flag_requests(lang)
    text = _FLAG_VALUE.sub(lambda m: _api_option(m, lang), text)
    return _FLAG.sub(lambda m: field_name(fields[m.group(0)], lang, "api") if m.group(0) in fields else m.group(0),
                     text)


def localize(obj: Any, lang: str, surface: Surface = "api") -> Any:
    """A JSON answer in `lang`: every text field `x` beside a message field `x_i18n` (one `{"id", "params"}`, or a
    list of them as long as the list `x`) shows that message rendered on `surface`, at any depth; the `*_i18n` fields
    and everything else are unchanged. English is rendered too: the core's text names inputs as the CLI does
    (--output), the API names its JSON fields (`output`) and the page (`surface="web"`) its form labels (“Output
    tokens”). One rule for every API answer (plan, compare, tco, migrate, scenarios, value …).
    Catalog data text: a field `x` beside its Chinese twin `x_zh` (a string, or a list as long as the list `x`;
    note_zh, notes_zh, provider_zh … from the catalog) shows the twin in Chinese and the twin is dropped; `name_zh`
    stays (pages show both names)."""
    zh = normalize_lang(lang) != DEFAULT_LANG

    def msg(m: Any) -> bool:
        return isinstance(m, Mapping) and isinstance(m.get("id"), str) and "params" in m

    def walk(v: Any) -> Any:
        if isinstance(v, list):
            return [walk(x) for x in v]
        if not isinstance(v, Mapping):
            return v
        out = {k: walk(x) for k, x in v.items()}
        for k, m in v.items():
            base = k.removesuffix("_i18n")
            if base == k or base not in v:
                continue
            if msg(m):
                out[base] = render(Message.from_json(m), lang, surface)
            elif isinstance(m, list) and isinstance(v[base], list) and len(m) == len(v[base]) and all(map(msg, m)):
                out[base] = [render(Message.from_json(x), lang, surface) for x in m]
        for k, z in v.items():
            base = k.removesuffix("_zh")
            if not zh or base == k or base not in v or k == "name_zh":
                continue
            if isinstance(z, str) and z:
                out[base] = z
            elif isinstance(z, list) and isinstance(v[base], list) and len(z) == len(v[base]):
                out[base] = [x or y for x, y in zip(z, v[base])]
            out.pop(k, None)
        return out

    return walk(obj)


def t(msg_id: str, lang: str = DEFAULT_LANG, surface: Surface = "cli", /, **params: Any) -> str:
    """Render catalog message `msg_id` in `lang` with `params`."""
    return render(Message(msg_id, params), lang, surface)


def both(name: str, name_zh: str | None) -> str | dict[str, str]:
    """A catalog name as a message parameter: the English and the Chinese name where the data has both (rendered
    in each output's language), else the one name."""
    return {"en": name, "zh": name_zh} if name_zh else name


def device_name_message(name: str, name_zh: str | None) -> Message:
    """A device's name as an answer's `device_name_i18n`: the vendor's Chinese name in Chinese where the catalog has
    one (`name_zh`), else the one name — so `localize` shows it in the request's language like any other field."""
    return Message("device.name", name=both(name, name_zh))


def duration(hours: float) -> Message:
    """'2.5 h', '12 min' or '45 s' (as a message: '2.5 小时' in Chinese) — readable at any scale; 'not estimated'
    for NaN or infinity (a step time some rate is missing for), never 'nan s'."""
    if not math.isfinite(hours):
        return Message("duration.unknown")
    if hours >= 1:
        return Message("duration.h", n=hours)
    if hours * 60 >= 1:
        return Message("duration.min", n=hours * 60)
    return Message("duration.s", n=hours * 3600)


def span(lo: float, hi: float, spec: str = "g") -> str:
    """A low–high range as every answer writes it: "1–2", and one value where the two ends print alike ("1", not
    "1–1"; buyer review 2026-12-01); `spec`: the numbers' format."""
    return span_text(format(lo, spec), format(hi, spec))


def span_text(lo: str, hi: str) -> str:
    """`span` of two ends already written ("¥245,000", "¥245,000" → "¥245,000"; "¥0", "¥5" → "¥0–¥5"); `render`
    applies it to every range a template writes ({lo:g}–{hi:g} weeks), the page's app.js the same rule (its `span`)."""
    return lo if lo == hi else f"{lo}–{hi}"
