"""Catalog queries (filters, sorting) and the JSON shapes of accelerators, models and offers (the dicts the
functions build, typed by `AcceleratorRow`, `AcceleratorDetail`, `ModelRow`, `ModelDetail`, `OfferJson`)."""

from __future__ import annotations

import datetime as dt

import math
from typing import Any

from pydantic import ConfigDict, Field, model_validator

from suanli.catalog import lookup
from suanli.catalog import offers as offer_q
from suanli.catalog.schema import Accelerator, Alternatives, Catalog, ModelArch, Offer
from suanli.errors import InputError, echoed
from suanli.estimate.params import ParamBreakdown
from suanli.i18n import Message
from suanli.views.dates import as_of
from suanli.views.shape import Shape

__all__ = [
    "BILLING_UNITS",
    "GPU_COLUMNS",
    "MARKETS",
    "SPEC_COLUMNS",
    "AcceleratorDetail",
    "AcceleratorRow",
    "ModelDetail",
    "ModelRow",
    "OfferJson",
    "SourcedValue",
    "accelerator_detail",
    "accelerator_row",
    "accelerator_rows",
    "model_detail",
    "model_row",
    "offer_json",
    "offer_row",
    "select_accelerators",
    "select_offers",
    "sources_of",
]

SPEC_COLUMNS = [
    "memory_gib",
    "memory_bandwidth_gb_per_s",
    "fp16_dense_tflops",
    "bf16_dense_tflops",
    "fp8_dense_tflops",
    "int8_dense_tops",
    "fp16_sparse_tflops",
    "interconnect_gb_per_s",
    "tdp_w",
]
GPU_COLUMNS = ["id", "name", "vendor", "domestic", "memory_type", "interconnect", *SPEC_COLUMNS]
MARKETS = ("all", "domestic", "foreign")
BILLING_UNITS = ("second", "minute", "hour", "day", "week", "month", "year")



class AcceleratorRow(Shape):
    """One accelerator's default specs, flat, with its sources, conflicting fields and stack (`accelerator_rows`,
    GET /api/accelerators). Dense and sparse peaks are separate fields; memory in GiB, bandwidths in GB/s."""

    id: str
    name: str
    name_zh: str | None = Field(None, description="the vendor's Chinese product name (the page shows it in Chinese)")
    vendor: str
    domestic: bool
    memory_type: str | None
    interconnect: str
    memory_gib: float | None
    memory_bandwidth_gb_per_s: float | None
    fp16_dense_tflops: float | None
    bf16_dense_tflops: float | None
    fp8_dense_tflops: float | None
    int8_dense_tops: float | None
    fp16_sparse_tflops: float | None
    interconnect_gb_per_s: float | None
    tdp_w: float | None
    sources: list[str] = Field(description="ids of the sources behind any of its values")
    conflicts: list[str] = Field(description="fields whose sources disagree")
    stack: str


class SourceValue(Shape):
    """One source's value of a field."""

    value: float | int | str | bool
    source: str
    source_title: str = Field(description="the source's title, or 'assumed'")
    date: str | None = Field(None, description="when the source said it (absent for assumed values)")
    note: str | None = None
    default: bool = Field(description="the value used")


class SourcedValue(Shape):
    """A field with every known value and its source; `value` is the default one."""

    value: float | int | str | bool
    source: str
    note: str | None = None
    sources: list[SourceValue]
    conflict: bool = Field(description="the sources disagree")


class AcceleratorDetail(Shape):
    """Every field of an accelerator (`accelerator_detail`, GET /api/accelerators/{name}): the catalog entry's
    fields that are set (`Accelerator`'s, absent when empty), each spec with its sources."""

    id: str
    name: str
    name_zh: str | None = None
    aliases: list[str] | None = None
    vendor: str
    family: str
    domestic: bool
    segment: str
    form_factor: str
    stack: str
    memory_type: str | None = None
    interconnect: str
    interconnect_name: str | None = None
    max_cards_per_node: int
    variant_of: str | None = Field(None, description="the accelerator this is a variant of")
    notes: list[str] | None = None
    china_market: SourcedValue | None = None
    specs: dict[str, SourcedValue] = Field(description="by spec field (memory_gib, bf16_dense_tflops, …)")
    server_power_w: SourcedValue | None = Field(None, description="whole-server power, W, of the vendor's server "
                                                "with max_cards_per_node of these cards (rent-vs-buy's host share)")
    dies_per_card: SourcedValue | None = Field(None, description="dies a framework sees as devices in one card (the "
                                               "910C: 2, each with half the card's memory and rates; catalog.ranks)")
    conflicts: list[str]
    variants: list[str] = Field(description="ids of its variants")
    offers: list[str] = Field(description="ids of its offers")


class ModelRow(Shape):
    """One model preset, flat (GET /api/models)."""

    id: str
    aliases: list[str]
    family: str | None
    kind: str
    params: int
    active_params: int
    max_context: int | None
    source: str | None
    layers: int | None
    hidden: int | None
    kv_heads: int | None
    moe: bool
    mla: bool


class PublishedParams(Shape):
    value: float
    source: str


class ModelDetail(Shape):
    """Architecture and parameter breakdown (GET /api/models/{name})."""

    id: str
    params: int
    active_params: int
    breakdown: ParamBreakdown
    architecture: dict[str, Any] = Field(description="the catalog's architecture fields that are set")
    published_params: PublishedParams | None = None


class OfferJson(Offer):
    """One offer as stored (`offer_json`, GET /api/offers): every field of `Offer`, prices as numbers (CNY for
    the whole instance per billing unit)."""

    # built on first use, as the `Shape`s are: the API validates with it, a CLI command never (~3 ms of `suanli gpus`
    # with `OfferListJson`); the rest of the config is `Offer`'s
    model_config = ConfigDict(defer_build=True)
    price_cny: float  # type: ignore[assignment]
    price_cny_max: float | None = None  # type: ignore[assignment]
    provider_zh: str | None = Field(None, exclude=True)  # Chinese twins: zh output only, not the JSON
    note_zh: str | None = Field(None, exclude=True)

    @model_validator(mode="after")
    def _prices_are_real(self) -> OfferJson:  # replaces Offer's check of the price alternatives: these are numbers
        return self


class OfferListJson(OfferJson):
    """One offer as GET /api/offers lists it: `OfferJson` with what rents in words beside the id `scope`
    (`scope_label`, 8 卡整机（HCCS；无节点间网络） with `?lang=zh`) and its message."""

    scope_label: str
    scope_label_i18n: dict[str, Any]
    age_months: float = Field(description="months from the price's date to today (SUANLI_TODAY)")
    stale: bool = Field(description="older than 12 months: plan uses it only where no fresher offer rents the "
                        "configuration, and warns (`suanli offers` marks it; `offer_row`'s rule)")


def _spec_value(a: Accelerator, field: str) -> float | None:
    alt = getattr(a.specs, field)
    return None if alt is None else alt.value


def accelerator_row(a: Accelerator) -> dict[str, Any]:
    """One accelerator's default specs, flat (`suanli gpus`, GET /api/accelerators)."""
    row: dict[str, Any] = {
        "id": a.id,
        "name": a.name,
        "vendor": a.vendor,
        "domestic": a.domestic,
        "memory_type": a.memory_type,
        "interconnect": a.interconnect,
    }
    for f in SPEC_COLUMNS:
        row[f] = _spec_value(a, f)
    return row


def select_accelerators(cat: Catalog, vendor: str | None = None, market: str = "all", min_memory_gib: float = 0.0,
                        sort: str = "id", flag_names: bool = False) -> list[Accelerator]:
    """Accelerators matching the filters, sorted (numbers descending). Unknown values raise InputError naming
    the field (`flag_names`: as the CLI spells it, `min-memory-gib`)."""
    if not math.isfinite(min_memory_gib) or min_memory_gib < 0:
        raise InputError("min-memory-gib" if flag_names else "min_memory_gib", Message("err.must_be_a_finite_number_got", hours=min_memory_gib))
    if market not in MARKETS:
        raise InputError("market", Message("err.is_not_one_of", value=echoed(market), allowed=', '.join(MARKETS)))
    if vendor is not None:
        vendor = lookup.vendor(cat, vendor)  # '华为', 'NVIDIA', 'Moore Threads' → the catalog's vendor id
    if sort not in GPU_COLUMNS:
        raise InputError("sort", Message("err.is_not_a_column_allowed", sort=sort, names_gpu_columns=', '.join(GPU_COLUMNS)))
    accs = [
        a
        for a in cat.accelerators
        if (vendor is None or a.vendor == vendor)
        and (market == "all" or a.domestic == (market == "domestic"))
        and (_spec_value(a, "memory_gib") or 0) >= min_memory_gib
    ]
    if sort in SPEC_COLUMNS:
        accs.sort(key=lambda a: (_spec_value(a, sort) is None, -(_spec_value(a, sort) or 0)))
    else:
        accs.sort(key=lambda a: str(accelerator_row(a)[sort]))
    return accs


def sources_of(a: Accelerator) -> list[str]:
    from suanli.catalog.load import iter_sourced

    return sorted({v.source for _, v in iter_sourced(a)})


def conflicts_of(a: Accelerator) -> list[str]:
    return [f for f in type(a.specs).model_fields if getattr(a.specs, f) is not None and getattr(a.specs, f).conflicting]


def accelerator_rows(cat: Catalog, accs: list[Accelerator]) -> list[dict[str, Any]]:
    """The list view (JSON of `suanli gpus --json` and GET /api/accelerators): row, sources, conflicts, stack."""
    return [{**accelerator_row(a), "name_zh": a.name_zh, "sources": sources_of(a), "conflicts": conflicts_of(a),
             "stack": a.stack} for a in accs]


def _alt_json(cat: Catalog, alt: Alternatives[Any], zh: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"value": alt.value, "source": alt.chosen.source}
    if alt.chosen.note:
        out["note"] = alt.chosen.note
        if zh and alt.chosen.note_zh:
            out["note_zh"] = alt.chosen.note_zh
    out["sources"] = [
        {
            "value": v.value,
            "source": v.source,
            "source_title": cat.sources[v.source].title if v.source in cat.sources else "assumed",
            **({"date": v.date or cat.sources[v.source].date} if v.source in cat.sources else {}),
            **({"note": v.note} if v.note else {}),
            **({"note_zh": v.note_zh} if zh and v.note and v.note_zh else {}),
            "default": v is alt.chosen,
        }
        for v in alt.values
    ]
    out["conflict"] = alt.conflicting
    return out


# Chinese twins of catalog text (shown by zh output through cli.output.display_note): not part of the JSON
_ZH_ONLY = {"china_market_zh", "interconnect_name_zh", "notes_zh"}


def accelerator_detail(cat: Catalog, a: Accelerator, zh: bool = False) -> dict[str, Any]:
    """Every field of an accelerator with its sources, conflicts and variants (`suanli gpu NAME --json`). `zh`: the
    catalog's Chinese twins (`x_zh` beside `x`) are included for `i18n.localize` (the API in Chinese); without it the
    English JSON is unchanged."""
    d: dict[str, Any] = {
        k: v
        for k, v in a.model_dump(mode="json", exclude={"specs", "china_market", "china_market_zh", "server_power_w",
                                                      "dies_per_card", *(() if zh else _ZH_ONLY)}).items()
        if v not in (None, [], ())
    }
    if a.china_market is not None:
        d["china_market"] = _alt_json(cat, a.china_market, zh)
        if zh and a.china_market_zh:
            d["china_market"]["value_zh"] = a.china_market_zh
    if a.server_power_w is not None:  # as a spec is shown: every value with its source (rent-vs-buy's host share)
        d["server_power_w"] = _alt_json(cat, a.server_power_w, zh)
    if a.dies_per_card is not None:  # with its sources, as a spec
        d["dies_per_card"] = _alt_json(cat, a.dies_per_card, zh)
    d["specs"] = {
        f: _alt_json(cat, getattr(a.specs, f), zh)
        for f in type(a.specs).model_fields
        if getattr(a.specs, f) is not None
    }
    d["conflicts"] = [f for f, v in d["specs"].items() if v["conflict"]]
    d["variants"] = [v.id for v in lookup.variants(cat, a)]
    d["offers"] = [o.id for o in lookup.offers_for(cat, a.id)]
    return d


def model_row(m: ModelArch) -> dict[str, Any]:
    """One model preset, flat (GET /api/models; `suanli models` shows it in billions)."""
    from suanli.estimate.params import param_count

    p = param_count(m)
    return {"id": m.id, "aliases": list(m.aliases), "family": m.family, "kind": m.kind,
            "params": p.total, "active_params": p.active, "max_context": m.max_context, "source": m.source,
            "layers": m.num_layers, "hidden": m.hidden_size, "kv_heads": m.num_key_value_heads,
            "moe": m.moe is not None, "mla": m.mla is not None}


def model_detail(m: ModelArch) -> dict[str, Any]:
    """Architecture and parameter breakdown (`suanli model NAME --json`, GET /api/models/NAME)."""
    from suanli.estimate.params import param_count

    p = param_count(m)
    d: dict[str, Any] = {
        "id": m.id,
        "params": p.total,
        "active_params": p.active,
        "breakdown": p.model_dump(mode="json"),
        "architecture": m.model_dump(mode="json", exclude_none=True,
                                     exclude={"published_params", "published_active_params"}),
    }
    if m.published_params is not None:
        d["published_params"] = {"value": m.published_params.value, "source": m.published_params.chosen.source}
    return d


def select_offers(cat: Catalog, device: str | None = None, provider: str | None = None,
                  billing_unit: str | None = None, billing_field: str = "billing_unit") -> list[Offer]:
    """Offers for a device (id or alias; a generic device's variants too, after its own: `lookup.family_ids`), a
    provider (substring, any case) and a billing unit."""
    devs = lookup.family_ids(cat, lookup.accelerator(cat, device).id) if device else None
    if billing_unit is not None and billing_unit not in BILLING_UNITS:
        raise InputError(billing_field, Message("err.is_not_one_of", value=echoed(billing_unit), allowed=', '.join(BILLING_UNITS)))
    return sorted(
        (o for o in cat.offers
         if (devs is None or o.device in devs)
         and (provider is None or provider.lower() in o.provider.lower())
         and (billing_unit is None or o.billing_unit == billing_unit)),
        key=lambda o: devs.index(o.device) if devs else 0)


def offer_row(o: Offer, today: dt.date | None = None, stale_months: float = offer_q.DEFAULT_STALE_MONTHS
              ) -> dict[str, Any]:
    """One offer, flat (`suanli offers`, GET /api/offers?flat): price as a number (CNY per instance per billing
    unit), per card-hour, what is rented, where, and how old the price is."""
    today = today or as_of()
    age = offer_q.offer_age_months(o, today)
    return {
        "id": o.id,
        "provider": o.provider,
        "device": o.device,
        "cards": o.cards,
        "billing_unit": o.billing_unit,
        "price_cny": o.price_cny.value,
        "price_cny_max": o.price_cny_max.value if o.price_cny_max else None,
        "cny_per_card_hour": offer_q.card_hour_price(o),
        "min_units": o.min_units,
        "whole_machine_only": o.whole_machine_only,
        "kind": o.kind,
        "region": o.region or "cn",
        "international": offer_q.is_international(o.region),
        "scope": offer_q.scope_label(o),
        "instance": o.instance,
        "url": o.url,
        "date": o.date,
        "age_months": round(age, 1),
        "stale": offer_q.is_stale(o, today, stale_months),  # the one freshness rule
        "source": o.source,
        "second_hand": offer_q.is_second_hand(o),  # read through a third party (the one rule: mark_second_hand)
    }


def offer_json(o: Offer) -> dict[str, Any]:
    """One offer as stored (every field), with `price_cny` and `price_cny_max` as numbers (GET /api/offers)."""
    return {**o.model_dump(mode="json", exclude={"provider_zh", "note_zh"}), "price_cny": o.price_cny.value,
            "price_cny_max": o.price_cny_max.value if o.price_cny_max else None}
