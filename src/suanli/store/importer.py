"""Parse and validate an offers file (CSV or YAML) completely before anything is written.

CSV: one offer per line, a header naming the columns (`CSV_COLUMNS`; `id, provider, device, cards,
billing_unit, price_cny, date, source` are required). `price_cny` is the price of the whole instance
(`cards` cards) for one `billing_unit`, as in the catalog. An unknown `source` id is registered as a
price-list source titled by the optional `source_title` column (else "imported from FILE").

YAML: the catalog's own format — a mapping with an `offers:` list (and optionally `sources:`), or a bare
list of offers; `price_cny` may be a plain number (it then takes the row's source and date). JSON is read as YAML.

`kind`: a row without one is `contract` (`IMPORT_KIND`: the buyer's own quote or negotiated price, rentable by
that buyer, never part of a plausibility band); a row claiming `listing` (a public price) needs its page, a `url` or
a source with one, as the catalog's listings do. A row whose source is a third party's (`Source.third_party`) is
second-hand (`catalog.offers.mark_second_hand`, the rule the catalog's own offers follow).

Every error names the file, the line and the field; all rows are checked and the first errors reported.
"""

from __future__ import annotations

import datetime as dt

import csv
import hashlib
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from dataclasses import field as dataclass_field
from pathlib import PurePath
from typing import Any

import yaml
from pydantic import ValidationError

from suanli.catalog import lookup
from suanli.catalog.schema import ASSUMED, Catalog, Offer, Source
from suanli.errors import DataFileError, NotFoundError, SuanliError, echoed
from suanli.i18n import Message

__all__ = [
    "CSV_COLUMNS",
    "IMPORT_KIND",
    "MAX_ROWS",
    "OfferImportError",
    "ParsedImport",
    "IDENTITY_FIELDS",
    "RowError",
    "identity_change",
    "offer_fingerprint",
    "parse_offers",
    "stale_note",
]

CSV_COLUMNS = (
    "id", "provider", "device", "cards", "billing_unit", "price_cny", "price_cny_max", "min_units",
    "whole_machine_only", "kind", "instance", "scope", "intra_node_link", "inter_node_network",
    "inter_node_gbit_per_s", "public_network_mbit_per_s", "max_cards_per_order", "stock", "url", "region", "date", "source", "note",
    "source_title", "source_url", "second_hand",
)
CSV_REQUIRED = ("id", "provider", "device", "cards", "billing_unit", "price_cny", "date", "source")
MAX_ROWS = 100_000
#: the kind of an imported row that names none: a buyer's own price list holds quotes and negotiated prices, not
#: public listings (a row claiming `listing` must give its page, as the catalog's listings do)
IMPORT_KIND = "contract"
_LEGACY_INSTANCE = ("bare-metal", "container", "vm", "unknown")  # `kind` before issue 11 (Offer._legacy_kind)
MAX_REPORTED = 20


@dataclass(frozen=True)
class RowError:
    line: int | None
    field: str | None
    message: str
    i18n: Message | None = dataclass_field(default=None, compare=False)  # `message` as a catalog message

    def as_dict(self, lang: str = "en") -> dict[str, Any]:
        """The row's problem; `message` in `lang` where the error has its message (the API's request language)."""
        text = self.i18n.render(lang, "api") if self.i18n is not None and lang != "en" else self.message
        return {"line": self.line, "field": self.field, "message": text}


def _row(line: int | None, col: str | None, msg_id: str, **params: Any) -> RowError:
    """A row error from its catalog message (`import.err.*`): English text beside the message."""
    m = Message(msg_id, params)
    return RowError(line, col, m.render("en"), m)


def _row_said(line: int | None, col: str | None, text: str, said: Message | None) -> RowError:
    """A row error from another error's text and message (pydantic, a look-up), English where it has none."""
    if said is not None:  # plain data only (an exception as a parameter would not be JSON: error_i18n)
        said = Message(said.id, {k: v if v is None or isinstance(v, str | int | float | bool | Message | dict | list)
                                 else str(v) for k, v in said.params.items()})
    return RowError(line, col, text, said if said is not None else Message("import.text", text=text))


def _at(e: RowError) -> Message | None:
    if e.line is not None and e.field:
        return Message("import.at.line_field", line=e.line, col=e.field)
    if e.line is not None:
        return Message("import.at.line", line=e.line)
    return Message("import.at.field", col=e.field) if e.field else None


class OfferImportError(DataFileError):
    """Rows of an offers file are invalid. `errors` holds every problem found (up to MAX_REPORTED)."""

    def __init__(self, path: str, errors: list[RowError]) -> None:
        self.path, self.errors = path, errors
        first = errors[0]
        self.row = None if first.line is None else str(first.line)
        self.field = first.field

        def where(e: RowError) -> str:
            return (f"line {e.line}" if e.line is not None else "") + (f", field {e.field}" if e.field else "")

        msg = f"{path}, {where(first)}: {first.message}".replace(", , ", ", ")
        if len(errors) > 1:
            rest = "; ".join(where(e) for e in errors[1:6])
            msg += f" (and {len(errors) - 1} more: {rest}{' …' if len(errors) > 6 else ''})"
        SuanliError.__init__(self, msg)
        # the same line as a message (buyer review 2026-12-01: `--lang zh` and ?lang=zh read it in Chinese)
        said = first.i18n if first.i18n is not None else Message("import.text", text=first.message)
        rest_at = [a for a in (_at(e) for e in errors[1:6]) if a is not None]
        more = (Message("import.more", n=len(errors) - 1, rest=rest_at, cont=" …" if len(errors) > 6 else "")
                if len(errors) > 1 else "")
        at = _at(first)
        self.i18n = (Message("import.error", path=path, at=at, message=said, more=more) if at is not None
                     else Message("import.error.file", path=path, message=said, more=more))


@dataclass
class ParsedImport:
    filename: str
    format: str
    file_sha256: str
    offers: list[Offer]
    lines: list[int | None]
    new_sources: list[Source] = field(default_factory=list)


def offer_fingerprint(o: Offer) -> str:
    """SHA-256 of the offer's canonical JSON without the values left at their defaults (nested ones too): the same
    row imported twice has the same fingerprint, and so does a file written before an optional field with a
    default was added to the offer schema (migration 0003 re-keyed the rows stored with the old, full-JSON
    fingerprint)."""
    blob = json.dumps(o.model_dump(mode="json", exclude_defaults=True), sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def stale_note(offers: Sequence[Offer], today: dt.date | None = None) -> Message | None:
    """One line when rows of an import are older than the staleness threshold (`catalog.offers.is_stale`, the rule
    answers warn by, on `views.dates.as_of`: SUANLI_TODAY or today): how many, and the oldest with its date and age.
    None when every row is fresh. The import still writes them: an old price is history, not an error."""
    from suanli.catalog.offers import DEFAULT_STALE_MONTHS, offer_age_months, stale_offers
    from suanli.views.dates import as_of

    day = today or as_of()
    old = stale_offers(offers, day, DEFAULT_STALE_MONTHS)
    if not old:
        return None
    return Message("import.warn.stale", n=len(old), months=DEFAULT_STALE_MONTHS, offer=old[0].id,
                   date=str(old[0].date), age=offer_age_months(old[0], day))


def _format_error(path: str, message: Any) -> OfferImportError:
    """An upload of an unknown file type: the import's own error (422 in the API), not a packaged-data fault
    (a bare DataFileError, 500)."""
    text = message.render() if hasattr(message, "render") else str(message)
    return OfferImportError(path, [RowError(None, "format", text, message if isinstance(message, Message) else None)])


def _fmt(filename: str, fmt: str | None) -> str:
    if fmt:
        f = fmt.lower().lstrip(".")
    else:
        f = PurePath(filename).suffix.lower().lstrip(".")
    if f in ("yml", "yaml", "json"):
        return "yaml"  # JSON is YAML
    if f in ("csv", "tsv"):
        return f
    raise _format_error(filename, Message("err.unknown_file_type_use_csv_yaml", v=f or '(none)'))


# a CSV cell is text, so a boolean column takes these spellings (case-insensitive; the README's offers import); in
# YAML or JSON a boolean is the file's own true/false, never text ("yes" is refused, not read as true)
_TRUE = {"true", "yes", "1", "y", "t"}
_FALSE = {"false", "no", "0", "n", "f", ""}
_BOOL_FIELDS = tuple(n for n, f in Offer.model_fields.items() if f.annotation is bool)  # whole_machine_only, …


def _csv_rows(text: str, filename: str, delimiter: str) -> tuple[list[tuple[int, dict[str, Any]]], list[RowError]]:
    errors: list[RowError] = []
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return [], [_row(None, None, "import.err.no_header")]
    except csv.Error as e:
        return [], [_row(1, None, "import.err.csv", error=str(e))]
    header = [h.strip().lstrip("\ufeff") for h in header]
    unknown = [h for h in header if h not in CSV_COLUMNS]
    for h in unknown:
        errors.append(_row(1, h, "import.err.column", allowed=", ".join(CSV_COLUMNS)))
    for r in CSV_REQUIRED:
        if r not in header:
            errors.append(_row(1, r, "import.err.required"))
    dup = {h for h in header if header.count(h) > 1}
    for h in sorted(dup):
        errors.append(_row(1, h, "import.err.column_twice"))
    if errors:
        return [], errors
    rows: list[tuple[int, dict[str, Any]]] = []
    line = 1
    try:
        for cells in reader:
            line = reader.line_num
            if not cells or all(not c.strip() for c in cells):
                continue
            if len(cells) != len(header):
                errors.append(_row(line, None, "import.err.cells", n=len(cells), columns=len(header)))
                continue
            rows.append((line, {h: c.strip() for h, c in zip(header, cells) if c.strip() != ""}))
            if len(rows) > MAX_ROWS:
                errors.append(_row(line, None, "import.err.rows", n=MAX_ROWS))
                break
    except csv.Error as e:
        errors.append(_row(line + 1, None, "import.err.csv", error=str(e)))
    return rows, errors


def _csv_to_offer(raw: dict[str, Any], line: int) -> tuple[dict[str, Any], list[RowError]]:
    errs: list[RowError] = []
    out: dict[str, Any] = {}
    for k, v in raw.items():
        if k in ("source_title", "source_url"):
            continue
        if k in ("cards", "min_units", "max_cards_per_order", "stock"):
            try:
                out[k] = int(v)
            except ValueError:
                errs.append(_row(line, k, "import.err.int", value=echoed(v)))
        elif k in _SOURCED_FIELDS:
            try:
                num = float(v.replace(",", ""))
            except ValueError:
                errs.append(_row(line, k, "import.err.number", value=echoed(v)))
                continue
            if not (num == num) or num in (float("inf"), float("-inf")) or num < 0:
                errs.append(_row(line, k, "import.err.finite", value=echoed(v)))
                continue
            out[k] = num
        elif k in _BOOL_FIELDS:
            if v.lower() not in _TRUE | _FALSE:
                errs.append(_row(line, k, "import.err.bool", value=echoed(v)))
            out[k] = v.lower() in _TRUE
        else:
            out[k] = v
    return out, errs


def _yaml_rows(text: str) -> tuple[list[tuple[int | None, Any]], list[dict[str, Any]], list[RowError]]:
    """Rows of the `offers` list with their line numbers, and the file's `sources`."""
    from suanli.errors import InputError
    from suanli.views.files import yaml_shape_ok

    try:
        yaml_shape_ok(text, "the file", "file")  # depth and aliases bounded before any node is built
    except InputError as e:
        try:  # a parse error: the line and the parser's own text, framed in the reader's language
            for _ in yaml.parse(text, Loader=yaml.SafeLoader):
                pass
        except yaml.YAMLError as y:
            mark = getattr(y, "problem_mark", None)
            return [], [], [_row(mark.line + 1 if mark else None, None, "import.err.yaml",
                                 error=str(getattr(y, "problem", None) or y))]
        return [], [], [_row_said(None, None, str(e).removeprefix("file: the file "), e.i18n)]
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        return [], [], [_row(mark.line + 1 if mark else None, None, "import.err.yaml",
                             error=str(getattr(e, "problem", None) or e))]
    if doc is None:
        return [], [], [_row(None, None, "import.err.empty")]
    sources: list[Any] = []
    if isinstance(doc, list):
        offers_node, offers = node, doc
    elif isinstance(doc, dict) and node is not None:
        extra = [k for k in doc if k not in ("offers", "sources")]
        if extra:
            line = next((k.start_mark.line + 1 for k, _ in node.value if k.value == str(extra[0])), None)
            return [], [], [_row(line, str(extra[0]), "import.err.section")]
        offers = doc.get("offers") or []
        sources = doc.get("sources") or []
        offers_node = next((v for k, v in node.value if k.value == "offers"), None)
        if not isinstance(offers, list) or not isinstance(sources, list):
            return [], [], [_row(None, "offers" if not isinstance(offers, list) else "sources", "import.err.list")]
    else:
        return [], [], [_row(1, None, "import.err.top")]
    lines: list[int | None] = []
    if offers_node is not None and isinstance(offers_node, yaml.SequenceNode):
        lines = [item.start_mark.line + 1 for item in offers_node.value]
    lines += [None] * (len(offers) - len(lines))
    return list(zip(lines, offers)), sources, []


# the offer's numbers a file may give plainly: each becomes a value sourced by the row's own source (CSV and YAML)
_SOURCED_FIELDS = ("price_cny", "price_cny_max", "inter_node_gbit_per_s", "public_network_mbit_per_s")


def _sourced_price(raw: dict[str, Any], key: str) -> None:
    v = raw.get(key)
    if isinstance(v, int | float) and not isinstance(v, bool):
        raw[key] = {"value": float(v), "source": raw.get("source")}  # the offer's own date applies


def _source_numbers(raw: dict[str, Any]) -> None:
    for key in _SOURCED_FIELDS:
        _sourced_price(raw, key)


IDENTITY_FIELDS = ("device", "provider", "cards", "billing_unit")


def _source_url(sid: str, cat: Catalog, new_sources: dict[str, Source],
                titles: dict[str, tuple[str | None, str | None]]) -> str | None:
    """The URL of a row's source: the catalog's, the file's `sources:` or the CSV's `source_url` column."""
    src = cat.sources.get(sid) or new_sources.get(sid)
    return (src.url if src is not None else None) or titles.get(sid, (None, None))[1]


def identity_change(have: Offer | dict[str, Any], new: Offer) -> tuple[str, str] | None:
    """(field, message) when `new` carries an existing offer id with another device, provider, card count or
    billing unit (what the id names: a later row may change the price, not the offer), else None."""
    moved = identity_message(have, new)
    return (moved[0], moved[1].render("en")) if moved is not None else None


def identity_message(have: Offer | dict[str, Any], new: Offer) -> tuple[str, Message] | None:
    """`identity_change` with its message (`import.err.identity`)."""
    for f in IDENTITY_FIELDS:
        old_v = have.get(f) if isinstance(have, dict) else getattr(have, f)
        new_v = getattr(new, f)
        if old_v is not None and str(old_v) != str(new_v):
            return f, Message("import.err.identity", id=repr(new.id), col=f, old=repr(str(old_v)),
                              new=repr(str(new_v)))
    return None


def parse_offers(data: bytes | str, filename: str, cat: Catalog, known_sources: set[str] = frozenset(),  # type: ignore[assignment]
                 fmt: str | None = None, reference_offers: Sequence[Offer] | None = None,
                 force: bool = False) -> ParsedImport:
    """Validate every row of an offers file; raise `OfferImportError` listing the problems, else the offers.

    `known_sources`: source ids already in the store besides the catalog's. `reference_offers` (default: the
    catalog's): the prices a new one is compared with — a row whose CNY per card-hour lies outside its device's
    plausibility band (`catalog.offers.plausibility_band`, 1/5× to 5× the median) is an error unless `force`.
    The same offer id twice in one file is an error."""
    from suanli.catalog.offers import PLAUSIBLE_FACTOR, card_hour_price, mark_second_hand, plausibility_band
    from suanli.errors import validation_message

    refs = list(cat.offers if reference_offers is None else reference_offers)
    ref_by_id = {o.id: o for o in refs}
    bands: dict[tuple[str, str], Any] = {}
    raw_bytes = data.encode("utf-8") if isinstance(data, str) else data
    sha = hashlib.sha256(raw_bytes).hexdigest()
    f = _fmt(filename, fmt)
    try:
        text = raw_bytes.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise OfferImportError(filename, [_row(None, None, "import.err.utf8", reason=e.reason, at=e.start)]) from None
    errors: list[RowError] = []
    rows: list[tuple[int | None, Any]] = []
    file_sources: list[dict[str, Any]] = []
    titles: dict[str, tuple[str | None, str | None]] = {}
    if f in ("csv", "tsv"):
        csv_rows, errors = _csv_rows(text, filename, "," if f == "csv" else "\t")
        for csv_line, raw in csv_rows:
            conv, errs = _csv_to_offer(raw, csv_line)
            errors.extend(errs)
            if not errs:
                _source_numbers(conv)
                rows.append((csv_line, conv))
                if conv.get("source"):
                    titles.setdefault(conv["source"], (raw.get("source_title"), raw.get("source_url")))
    else:
        rows, file_sources, errors = _yaml_rows(text)
        for _, raw in rows:
            if isinstance(raw, dict):
                _source_numbers(raw)
                if "date" in raw and raw["date"] is not None and not isinstance(raw["date"], str):
                    raw["date"] = str(raw["date"])  # YAML reads 2025-06-01 as a date
    new_sources: dict[str, Source] = {}
    for i, s in enumerate(file_sources):
        if isinstance(s, dict) and s.get("date") is not None:
            s = {**s, "date": str(s["date"])}
        try:
            src = Source.model_validate(s)
        except ValidationError as e:
            err = e.errors()[0]
            errors.append(_row_said(None, "sources[" + str(i + 1) + "]." + ".".join(str(p) for p in err["loc"]),
                                    err["msg"], validation_message(err)))
            continue
        if src.id not in cat.sources:
            new_sources[src.id] = src
    if len(rows) > MAX_ROWS:
        errors.append(_row(None, None, "import.err.rows", n=MAX_ROWS))
    offers: list[Offer] = []
    lines: list[int | None] = []
    seen_rows: dict[str, int | None] = {}
    for line, raw in rows:
        if not isinstance(raw, dict):
            errors.append(_row(line, None, "import.err.mapping"))
            continue
        # YAML/JSON: a boolean is the file's true or false itself; pydantic would read text ("yes") or a number (1)
        strict = [] if f in ("csv", "tsv") else [k for k in _BOOL_FIELDS if isinstance(raw.get(k), str | int | float)
                                                 and not isinstance(raw[k], bool)]
        errors.extend(_row(line, k, "import.err.bool_strict", value=echoed(raw[k])) for k in strict)
        if raw.get("kind") in _LEGACY_INSTANCE:  # an old file's instance type in `kind`: the kind is not given
            raw = {**raw, "instance": raw.get("instance") or raw["kind"], "kind": IMPORT_KIND}
        elif raw.get("kind") is None:
            raw = {**raw, "kind": IMPORT_KIND}
        try:  # the rest of the row is checked too: every problem in one report
            o = Offer.model_validate({k: v for k, v in raw.items() if k not in strict})
        except ValidationError as e:
            for err in e.errors()[:3]:
                loc = ".".join(str(p) for p in err["loc"] if not str(p).startswith("function-")) or None
                errors.append(_row_said(line, loc, err["msg"].removeprefix("Value error, "), validation_message(err)))
            continue
        if strict:
            continue
        try:
            dev = lookup.accelerator(cat, o.device)
        except NotFoundError as e:
            errors.append(_row_said(line, "device", str(e).removeprefix("gpu: "), e.i18n))
            continue
        if dev.id != o.device:
            o = o.model_copy(update={"device": dev.id})
        if o.date > dt.date.today().isoformat():
            errors.append(_row(line, "date", "import.err.future", date=o.date))
            continue
        if o.kind == "listing" and not (o.url or _source_url(o.source, cat, new_sources, titles)):
            errors.append(_row(line, "url", "import.err.listing_url"))  # a public price names its page
            continue
        o = mark_second_hand([o], {**cat.sources, **new_sources})[0]
        if o.id in seen_rows:
            errors.append(_row(line, "id", "import.err.twice", id=repr(o.id), other=seen_rows[o.id]))
            continue
        seen_rows[o.id] = line
        ref = ref_by_id.get(o.id)
        moved = identity_message(ref, o) if ref is not None else None
        if moved is not None:  # an id names one offer: a row may add a price, never move the offer (review 2026-12-01)
            errors.append(RowError(line, moved[0], moved[1].render("en"), moved[1]))
            continue
        if not force:
            key = (o.device, str(o.billing_unit))
            if key not in bands:
                bands[key] = plausibility_band(refs, o.device, str(o.billing_unit))
            band = bands[key]
            per = card_hour_price(o)
            if band is not None and not band.contains(per):
                unit = (Message("import.band.unit", billing_unit=band.billing_unit) if band.billing_unit
                        else Message("import.band.all_units"))
                basis = Message("import.band.listings" if band.basis == "listings" else "import.band.offers")
                errors.append(_row(line, "price_cny", "import.err.band", per=per, device=band.device, unit=unit,
                                   low=band.low, high=band.high, factor=PLAUSIBLE_FACTOR,
                                   median=band.median_cny_per_card_hour, n=band.n, basis=basis))
                continue
        sids = {o.source, *(v.source for v in o.price_cny.values),
                *((v.source for v in o.price_cny_max.values) if o.price_cny_max else ())}
        for sid in sids:
            if sid == ASSUMED or sid in cat.sources or sid in known_sources or sid in new_sources:
                continue
            title, url = titles.get(sid, (None, None))
            try:
                new_sources[sid] = Source(id=sid, title=title or f"imported from {PurePath(filename).name}",
                                          kind="price-list", url=url, date=o.date)
            except ValidationError as e:
                errors.append(_row_said(line, "source", e.errors()[0]["msg"], validation_message(e.errors()[0])))
        offers.append(o)
        lines.append(line)
    if not errors and not offers:
        errors.append(_row(None, None, "import.err.none"))
    if errors:
        errors.sort(key=lambda e: (e.line is None, e.line or 0))
        raise OfferImportError(filename, errors[:MAX_REPORTED])
    return ParsedImport(filename=filename, format=f, file_sha256=sha, offers=offers, lines=lines,
                        new_sources=list(new_sources.values()))
