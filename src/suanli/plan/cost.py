"""Cost of renting: billing units, minimum rental, whole-machine rules; per-token cost; rent vs buy; migration TCO.

All prices are CNY. An offer prices a whole instance of `offer.cards` cards for one billing unit."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from pydantic import BaseModel, ConfigDict, Field

from suanli.catalog.schema import Accelerator, Catalog, CostAssumptions, Offer
from suanli.errors import EstimateError, InputError, echoed
from suanli.estimate.setup import download_hours, offer_download_gbit_per_s
from suanli.i18n import Message, render, span
from suanli.units import HOURS_PER_MONTH, HOURS_PER_WEEK, HOURS_PER_YEAR, MIN_UTILIZATION, UNIT_HOURS

__all__ = [
    "JobCost",
    "DEFAULT_PARALLEL_RUN_WEEKS",
    "MigrationTCO",
    "OneOffItem",
    "WorkRent",
    "RentVsBuy",
    "RentVsBuyTotals",
    "USE_PATTERNS",
    "UNIT_HOURS",  # re-exported: `units.UNIT_HOURS` is the one table
    "billed_cost",
    "billed_units",
    "billing_note",
    "card_within_server",
    "check_utilization",
    "cost_assumptions",
    "cost_per_million_tokens",
    "cny_per_million_output_tokens",
    "held_hours",
    "host_w_per_card",
    "job_cost",
    "job_cny_per_card_hour",
    "job_hours_on_offer",
    "migration_one_off",
    "migration_tco",
    "offer_download_delta_h",
    "period_billed_hours",
    "period_served_hours",
    "rent_bill",
    "rent_vs_buy",
    "rent_vs_buy_totals",
    "gross_of",
    "subsidy_note",
    "work_period_cost",
    "work_rent",
    "yuan_per_effective_tflops",
]


def cost_assumptions(cat: Catalog) -> CostAssumptions:
    """The catalog's cost assumptions (`assumptions:` in data/catalog/assumptions.yaml, id `default`): CNY per
    engineer-week, engineers per migration, PUE, electricity price, amortisation years; each with its source."""
    a = next((x for x in cat.assumptions if x.id == "default"), None)
    if a is None:
        raise EstimateError(Message("err.the_catalog_has_no_default_assumptions"))
    return a


def offer_download_delta_h(dl_bytes: Any, dl_h: Any, offer_gbit_per_s: Any) -> Any:
    """Hours an offer's own download rate adds to a job's hours counted at the catalog's rate (`dl_h` for
    `dl_bytes`): the offer's published public bandwidth (`estimate.setup.offer_download_gbit_per_s`; NaN: not
    published, nothing changes) downloads the model in bytes·8/rate (`estimate.setup.download_hours`). The one
    per-offer hours rule of `plan` (`_price`) and `compare` (`job_hours_on_offer`)."""
    gbit = np.asarray(offer_gbit_per_s, dtype=float)
    own = ~np.isnan(gbit) & (np.asarray(dl_bytes) > 0)
    return np.where(own, download_hours(dl_bytes, np.where(own, gbit, 1.0)) - dl_h, 0.0)


def job_hours_on_offer(offer: Offer, total_h: float, dl_bytes: float, dl_h: float) -> float:
    """The hours a job is billed on `offer`: its total hours (compute and set-up, the download at the catalog's
    rate `dl_h`) with the download at the offer's own rate (`offer_download_delta_h`), as the planner bills them."""
    gbit = offer_download_gbit_per_s(offer)
    return float(total_h + offer_download_delta_h(dl_bytes, dl_h, float("nan") if gbit is None else gbit))


def period_billed_hours(period_h: Any, first_serve_h: Any) -> Any:
    """The hours a stated serving period (`PlanRequest.setup_in_period`) is billed: the period is the rental and the
    first serve (set-up, its download at the offer's rate: `job_hours_on_offer`) takes its start, so the period, or
    the first serve where that is longer. One rule for plan's vectors (`search._price`) and compare's offer (a float
    for floats, `np.maximum` element-wise for arrays)."""
    out = np.maximum(period_h, first_serve_h)
    return float(out) if np.ndim(out) == 0 else out


def job_cny_per_card_hour(cost_cny: float, gpus: int, hours: float) -> float:
    """A job's own price per card-hour (tco's "job ¥/card-h"): its bill ÷ the cards it asked for ÷ its hours, so
    the cards a whole instance or a minimum term makes it pay for and leave idle count (an 8-card month rented for
    1 card for 100 h: ¥15,000 ÷ 1 ÷ 100), unlike the offer's list price at full use (`offers.card_hour_price`)."""
    return cost_cny / (gpus * hours)


class JobCost(BaseModel):
    model_config = ConfigDict(frozen=True)

    offer_id: str
    provider: str
    billing_unit: str
    instances: int
    cards_rented: int
    units_billed: int
    cost_cny: float
    cost_cny_max: float
    idle_cards: int
    notes: list[str] = []  # English
    notes_i18n: list[dict[str, Any]] = []  # the same notes as messages (`Message.to_json`)
    subsidy: float = Field(0.0, description="share of the bill a local compute subsidy refunds (0: none)")
    gross_cost_cny: float | None = Field(None, description="the bill before the subsidy (cost_cny is after it)")
    subsidy_note: str | None = Field(None, description="the subsidy in words: share, gross → net (None: none)")
    subsidy_note_i18n: dict[str, Any] | None = None


def gross_of(net_cny: float, subsidy: float) -> float:
    """The bill before the subsidy where only the net is kept (plan's search prices net through `billed_cost`):
    net ÷ (1 − subsidy)."""
    return net_cny / (1 - subsidy)


# seed-003 §八 Q4 (国产GPU算力租赁比NVIDIA便宜吗？): "部分地方政府对国产算力有20%-30%的补贴，可显著降低实际成本" — a refund on
# renting domestic compute; the seeds say nothing of purchases, so rent-vs-buy applies it to the rent side only
def subsidy_note(gross_cny: float, subsidy: float) -> Message | None:
    """The one subsidy line every surface prints where a subsidy applies (tco, plan, rent-vs-buy): its share of
    domestic compute and the bill before and after it, gross × (1 − subsidy) = net (`billed_cost`'s factor).
    None: no subsidy."""
    if not subsidy:
        return None
    return Message("cost.subsidy", pct=round(subsidy * 100, 2), gross=gross_cny, net=gross_cny * (1 - subsidy))


def job_cost(offer: Offer, gpus: int, hours: float, subsidy: float = 0.0) -> JobCost:
    """Cost of holding `gpus` cards for `hours` on `offer`.

    Instances: ceil(gpus / cards per instance) — a whole-machine offer rents whole machines either way.
    Units billed per instance: ceil(hours / unit), at least `min_units` (a 40-hour job on monthly billing
    pays a month). `subsidy` (0–1) is the share a local compute subsidy refunds."""
    if gpus < 1:
        raise InputError("gpus", Message("err.must_be_at_least"))
    if not math.isfinite(hours) or hours < 0:
        raise InputError("hours", Message("err.must_be_a_finite_number_got", hours=hours))
    if not 0 <= subsidy < 1:
        raise InputError("subsidy", Message("err.must_be_in"))
    min_cards = offer.min_cards_per_order or 0
    instances = math.ceil(max(gpus, min_cards) / offer.cards)
    unit_h = UNIT_HOURS[offer.billing_unit]
    units = int(billed_units(hours, unit_h, offer.min_units))
    low = float(billed_cost(offer.price_cny.value, unit_h, offer.min_units, offer.cards, gpus, hours, subsidy,
                            min_cards))
    high_unit = offer.price_cny_max.value if offer.price_cny_max else offer.price_cny.value
    notes: list[Message] = []
    # one idle-card rule (tco, compare, and the planner's `plan.warn.idle_cards`, which reads `idle_cards`): whole
    # instances are billed (`billed_cost`), so any cards rented beyond `gpus` sit idle and are said, whatever the
    # offer's `whole_machine_only` flag
    idle = instances * offer.cards - gpus
    if min_cards > gpus:
        notes.append(Message("cost.note.block_whole", cards=instances * offer.cards, gpus=gpus))
    elif idle > 0:
        notes.append(Message("cost.note.whole_machine" if offer.whole_machine_only else "cost.note.idle_cards",
                             cards=instances * offer.cards, gpus=gpus, per_instance=offer.cards))
    note = billing_note(offer, hours, units)
    if note is not None:
        notes.append(note)
    gross = float(billed_cost(offer.price_cny.value, unit_h, offer.min_units, offer.cards, gpus, hours, 0.0,
                              min_cards))
    sub_msg = subsidy_note(gross, subsidy)
    return JobCost(
        offer_id=offer.id,
        provider=offer.provider,
        billing_unit=offer.billing_unit,
        instances=instances,
        cards_rented=instances * offer.cards,
        units_billed=units,
        cost_cny=low,
        cost_cny_max=high_unit * units * instances * (1 - subsidy),
        idle_cards=idle,
        notes=[render(n) for n in notes],
        notes_i18n=[n.to_json() for n in notes],
        subsidy=subsidy,
        gross_cost_cny=gross,
        subsidy_note=render(sub_msg) if sub_msg is not None else None,
        subsidy_note_i18n=sub_msg.to_json() if sub_msg is not None else None,
    )


# a billing note is due when more than this share of the paid hours goes unused (paid > 1.5 × used) ...
UNUSED_PAID_SHARE = 1 / 3
# ... and the unused hours are more than this: under hourly billing rounding up never warns
UNUSED_PAID_MIN_H = 1.0


def billing_note(offer: Offer, used_h: float, units: int | None = None) -> Message | None:
    """The one billing-rounding note (`job_cost` for tco and compare, and the planner's warnings): `units` billing
    units (default: `billed_units` of `used_h`) pay for units × unit hours; when more than a third of those paid
    hours go unused (`UNUSED_PAID_SHARE`: paid − used > paid / 3, i.e. paid > 1.5 × used) and more than an hour
    (`UNUSED_PAID_MIN_H`), the buyer is told what is paid and what is used — the paid share of unused time is what
    a buyer weighs, whatever the billing unit (a 400-hour job on a 730-hour month pays 45 % idle). The offer's
    minimum term is named where it, not rounding up, sets the units. None: the rounding costs little."""
    unit_h = UNIT_HOURS[offer.billing_unit]
    if units is None:
        units = int(billed_units(used_h, unit_h, offer.min_units))
    paid_h = units * unit_h
    unused_h = paid_h - used_h
    if unused_h <= paid_h * UNUSED_PAID_SHARE or unused_h <= UNUSED_PAID_MIN_H:
        return None
    if offer.min_units > 1 and units == offer.min_units and int(billed_units(used_h, unit_h, 1)) < units:
        return Message("cost.note.min_units", units=units, billing_unit=offer.billing_unit, billed_h=paid_h,
                       hours=used_h)
    return Message("cost.note.billed", units=units, billing_unit=offer.billing_unit, billed_h=paid_h, hours=used_h)


def billed_units(hours: Any, unit_h: Any, min_units: Any) -> Any:
    """Billing units paid per instance: ceil(hours / unit), at least the offer's minimum (arrays or floats;
    1e-9: 730.0000001 hours of float noise is still one 730-hour month)."""
    return np.maximum(min_units, np.ceil(np.maximum(hours, 0.0) / unit_h - 1e-9))


def billed_cost(price_cny: Any, unit_h: Any, min_units: Any, cards_per_instance: Any, gpus: Any, hours: Any,
                subsidy: Any = 0.0, min_cards: Any = 0) -> Any:
    """The one billing formula (plan, tco and compare): price × units × ceil(max(gpus, min_cards) / cards per
    instance) × (1 − subsidy). A whole-machine offer rents whole machines either way; a block rented whole
    (`min_cards_per_order`, '整租') is paid whole whatever the job uses."""
    instances = np.ceil(np.maximum(gpus, min_cards) / cards_per_instance)
    return price_cny * billed_units(hours, unit_h, min_units) * instances * (1 - subsidy)


def check_utilization(utilization: float) -> None:
    """The one utilization bound (`units.MIN_UTILIZATION` ≤ u ≤ 1; NaN refused) of tco, rent-vs-buy, the
    cost per token and their API bodies (`views.bounds.check_tco`), else InputError naming `utilization`."""
    if not MIN_UTILIZATION <= utilization <= 1:
        raise InputError("utilization", Message("err.must_be_in_got", min_utilization=MIN_UTILIZATION,
                                                utilization=utilization))


def cost_per_million_tokens(cost_cny_per_hour: float, tokens_per_s: float, utilization: float = 1.0) -> float:
    """CNY per 1M tokens served: hourly cost / (tokens per hour at the utilization) × 1e6."""
    check_utilization(utilization)
    if tokens_per_s <= 0:
        raise InputError("tokens_per_s", Message("err.must_be_positive"))
    return cost_cny_per_hour / (tokens_per_s * 3600 * utilization) * 1e6


def period_served_hours(period_h: float, first_serve_h: float, stated: bool) -> float:
    """The hours a serving period serves: a stated period (--hours/--days) less its first serve, which takes its
    start (`period_billed_hours` − set-up: plan's compute_hours); the assumed month whole (its set-up not billed)."""
    return float(period_billed_hours(period_h, first_serve_h)) - first_serve_h if stated else period_h


def cny_per_million_output_tokens(bill_cny: float | None, output_tokens_per_s: float | None,
                                  served_hours: float | None) -> float | None:
    """CNY per million output tokens a serving bill buys (plan's and compare's serving rows): the bill for the period
    spread over the hours it serves (`served_hours`: plan's compute_hours, `period_served_hours`), at
    `output_tokens_per_s` served all that time (`cost_per_million_tokens` at full use: the load the row is sized
    for, so idle capacity and whole billing units are paid for by the tokens served). None where the bill, the
    tokens/s or the hours are missing, zero or not finite (a row with no bill, a rate its cards do not carry)."""
    if bill_cny is None or output_tokens_per_s is None or served_hours is None:
        return None
    if not (math.isfinite(bill_cny) and math.isfinite(output_tokens_per_s) and math.isfinite(served_hours)):
        return None
    if bill_cny < 0 or output_tokens_per_s <= 0 or served_hours <= 0:
        return None
    return cost_per_million_tokens(bill_cny / served_hours, output_tokens_per_s)


def yuan_per_effective_tflops(
    price_cny_per_card_hour: float, dense_tflops: float, scaling_efficiency: float, utilization: float = 1.0
) -> float:
    """The seeds' 每元有效TFLOPS inverted to a cost: CNY per card-hour ÷ (dense TFLOPS × multi-card efficiency ×
    utilization). Returns effective TFLOPS per CNY-per-hour (higher is better)."""
    return dense_tflops * scaling_efficiency * utilization / price_cny_per_card_hour


#: how the hours in use fall over the year (`rent_vs_buy`, `--use-pattern`): `spread` — some use in every day, week
#: and month, so an offer billed per day, week, month or year is rented the whole horizon and only a per-hour (or
#: finer) offer bills just the hours in use; `blocks` — the use comes in whole blocks (months of training), so
#: every offer bills the units covering the hours in use
USE_PATTERNS = ("spread", "blocks")


def held_hours(offer: Offer, used_h: float, horizon_h: float = HOURS_PER_YEAR, use_pattern: str = "spread") -> float:
    """Hours `offer` is held to give `used_h` hours of use within `horizon_h` (`USE_PATTERNS`): under `spread` an
    offer whose unit is longer than an hour is held the whole horizon (use in every month needs every month rented);
    otherwise the hours in use, which `billed_units` rounds up to whole units (`used_h` may be an array of hours:
    `_per_card_bills`)."""
    if use_pattern not in USE_PATTERNS:
        raise InputError("use-pattern", Message("err.is_not_one_of", value=echoed(use_pattern),
                                                allowed=", ".join(USE_PATTERNS)))
    return horizon_h if use_pattern == "spread" and UNIT_HOURS[offer.billing_unit] > 1 else used_h


def horizon_units(offer: Offer, horizon_h: float = HOURS_PER_YEAR) -> int:
    """The billing units of `offer` that `horizon_h` spans (a year: 12 months, 365 days, 8,760 hours), rounded up."""
    return math.ceil(horizon_h / UNIT_HOURS[offer.billing_unit] - 1e-9)


def within_horizon(offer: Offer, horizon_h: float = HOURS_PER_YEAR) -> Offer:
    """`offer` as a comparison over `horizon_h` bills it: a minimum term longer than the horizon (SMM's five-year
    H200 contracts, `min_units` 60 months) counts only the horizon's share of it (12 of the 60 months in a year),
    the contract's other units belonging to the years after; a term within the horizon is kept whole.
    Why pro rata rather than leaving such an offer out: rent-vs-buy is a per-card-per-year figure set against an
    owned card amortised over years, so a multi-year contract at a monthly price costs its monthly price each year
    of it (the honest per-year figure), while billing all 60 months inside one year (¥990,000 per H200 card-year
    instead of 12 × ¥132,000 ÷ 8 = ¥198,000) made every such offer look five times dearer; and excluding it would
    drop a real price. The commitment is not hidden: `commitment_note` names it (`rent_vs_buy`)."""
    units = horizon_units(offer, horizon_h)
    return offer if offer.min_units <= units else offer.model_copy(update={"min_units": units})


def commitment_note(offer: Offer, horizon_h: float = HOURS_PER_YEAR) -> Message | None:
    """What a contract longer than the horizon commits the renter to (`within_horizon` bills its horizon's share):
    its minimum term, in years, and what the whole term costs per card. None: the term fits the horizon."""
    if offer.min_units <= horizon_units(offer, horizon_h):
        return None
    term_h = offer.min_units * UNIT_HOURS[offer.billing_unit]
    whole = job_cost(offer, offer.cards, term_h)  # one instance over the whole term (a block rented whole, whole)
    return Message("rvb.note.commitment", offer=offer.id, units=offer.min_units, billing_unit=offer.billing_unit,
                   years=term_h / HOURS_PER_YEAR, total=whole.cost_cny / whole.cards_rented,
                   share=horizon_h / term_h)


def rent_bill(offer: Offer, used_h: float, horizon_h: float = HOURS_PER_YEAR, use_pattern: str = "spread",
              subsidy: float = 0.0) -> JobCost:
    """The bill for `used_h` hours of use of one instance of `offer` (its cards; a block rented whole, whole) within
    `horizon_h`: `job_cost` over `held_hours` — units rounded up, minimum term, the one billing rule; a minimum term
    longer than the horizon billed for the horizon's share (`within_horizon`). Per card: `cost_cny / cards_rented`."""
    return job_cost(within_horizon(offer, horizon_h), offer.cards, held_hours(offer, used_h, horizon_h, use_pattern),
                    subsidy)


def _per_card_bills(offers: Sequence[Offer], used_h: Any, horizon_h: float, use_pattern: str,
                    subsidy: float = 0.0) -> Any:
    """CNY per card of each offer's bill (rows) for each of `used_h` (columns): `billed_cost`, as `rent_bill`."""
    rows = []
    for o in offers:
        unit_h = UNIT_HOURS[o.billing_unit]
        # the hours held (`held_hours`: the horizon, or the hours in use) and the cards the bill rents
        # (`job_cost`'s cards_rented of one instance: a block rented whole, whole)
        held = np.broadcast_to(held_hours(o, used_h, horizon_h, use_pattern), np.shape(used_h))
        cards_rented = job_cost(o, o.cards, 0.0).cards_rented
        rows.append(billed_cost(o.price_cny.value, unit_h, within_horizon(o, horizon_h).min_units, o.cards, o.cards,
                                held, subsidy,
                                o.min_cards_per_order or 0) / cards_rented)
    return np.vstack(rows)


class RentVsBuy(BaseModel):
    model_config = ConfigDict(frozen=True)

    rent_cny_per_year_full_use: float
    buy_cny_per_year: float
    capex_cny: float = Field(description="capex per card: the card and its server share (totals: all cards)")
    power_cny_per_year_full_use: float
    running_cny_per_year: float = Field(0.0, description="power at this use and operations, per card-year")
    power_w_per_card: float = Field(0.0, description="watts a card draws with its host share: card TDP + host_w")
    host_w_per_card: float = Field(0.0, description="the card's share of its server's non-card draw (CPUs, memory, "
                                   "NICs, fans), W, counted in the power (`host_w_per_card`)")
    break_even_utilization: float | None
    break_even_note: str = Field("", description="the break-even in words; says so when buying never pays off")
    break_even_note_i18n: dict[str, Any] = Field(default_factory=dict, description="break_even_note as a message")
    rent_at_utilization_cny: float
    buy_at_utilization_cny: float
    cheaper: str
    utilization: float
    use_pattern: str = Field("spread", description="how the hours in use fall over the year (spread, blocks)")
    hours_in_use: float = Field(0.0, description="utilization × 8,760 h")
    rent_at_utilization_offer: str | None = Field(
        None, description="the offer whose bill prices renting at this use (None: --rent-price, per card-hour)")
    rent_at_utilization_billing_unit: str | None = None
    rent_at_utilization_units: int | None = Field(None, description="billing units paid per instance at this use")
    rent_at_utilization_cards: int | None = Field(None, description="cards the bill rents (the bill ÷ them per card)")
    rent_at_utilization_note: str = Field("", description="the rent at this use in words: offer, unit, units, bill")
    rent_at_utilization_note_i18n: dict[str, Any] = Field(default_factory=dict)
    commitment_note: str | None = Field(
        None, description="the minimum term of a priced offer longer than the year (billed here for the year's share, "
                          "`within_horizon`): what it commits the renter to; None when no such offer prices renting")
    commitment_note_i18n: dict[str, Any] | None = None
    subsidy: float = Field(0.0, description="share of the rent a local compute subsidy refunds (rent side only: "
                           "seed-003 speaks of it for rented domestic compute, not purchases)")
    gross_rent_at_utilization_cny: float | None = Field(
        None, description="rent_at_utilization_cny before the subsidy (None: no subsidy)")
    subsidy_note: str | None = Field(None, description="the subsidy on the rent at this use: share, gross → net")
    subsidy_note_i18n: dict[str, Any] | None = None


def rent_vs_buy(
    rent: float | Sequence[Offer],
    card_cny: float,
    server_share_cny: float,
    tdp_w: float,
    pue: float,
    electricity_cny_per_kwh: float,
    ops_cny_per_year: float,
    amortization_years: float,
    utilization: float = 0.5,
    use_pattern: str = "spread",
    subsidy: float = 0.0,
    host_w: float = 0.0,
) -> RentVsBuy:
    """Per card per year; PUE, electricity price and amortisation years are the caller's (defaults: the catalog's
    `assumptions:`, `cost_assumptions`). Buying costs capex / years + ops + power ((TDP + `host_w`, the card's share
    of its server's non-card draw, `host_w_per_card`) × PUE × price × hours used).

    `rent` is a price per card-hour in use (`--rent-price`): renting costs price × 8,760 h × utilization (the seeds:
    ¥2.45 × 24 × 365 ≈ ¥21k at full use) and break-even u solves price·8760·u = fixed + power·u. Or `rent` is the
    offers to rent from: renting at utilization u costs the cheapest per-card bill for u × 8,760 h in use over them,
    each in its own unit (`rent_bill`: units rounded up, minimum term; `use_pattern` says whether a monthly offer is
    held all year, `USE_PATTERNS`) — not a monthly subscription scaled by u. A minimum term longer than the year
    (a five-year contract) is billed for the year's share, and `commitment_note` says what it commits to
    (`within_horizon`, which says why). Break-even is then found on the hour
    grid (every billing unit's boundary is a whole hour): the last hour of use at which renting is still cheaper,
    ÷ 8,760; above it buying never costs more. `subsidy` (0–1) refunds that share of every rent bill (`billed_cost`'s
    factor, as tco and plan apply it); purchases are not subsidised (seed-003 names rented compute only)."""
    offers: tuple[Offer, ...] = () if isinstance(rent, int | float) else tuple(rent)
    price = float(rent) if isinstance(rent, int | float) else 1.0  # with offers: checked per offer by job_cost
    if not isinstance(rent, int | float) and not offers:  # nothing to rent from: the caller asks for --rent-price
        raise InputError("rent-price", Message("err.must_be_a_number_in_got_2", hi=1e5, v=None))
    for name, v, hi in (("rent-price", price, 1e5), ("card-price", card_cny, 1e8),
                        ("years", amortization_years, 50.0)):
        if not (math.isfinite(v) and 0 < v <= hi):
            raise InputError(name, Message("err.must_be_a_number_in_got_2", hi=hi, v=v))
    if not (math.isfinite(pue) and 1 <= pue <= 5):
        raise InputError("pue", Message("err.power_usage_effectiveness_is_between_and", pue=pue))
    for name, v, hi in (("electricity", electricity_cny_per_kwh, 100.0), ("ops", ops_cny_per_year, 1e8),
                        ("server-share", server_share_cny, 1e8), ("tdp", tdp_w, 1e5), ("host-w", host_w, 1e5)):
        if not (math.isfinite(v) and 0 <= v <= hi):
            raise InputError(name, Message("err.must_be_a_number_in_got_3", hi=hi, v=v))
    check_utilization(utilization)
    if not (math.isfinite(subsidy) and 0 <= subsidy < 1):
        raise InputError("subsidy", Message("err.must_be_in"))
    if use_pattern not in USE_PATTERNS:
        raise InputError("use-pattern", Message("err.is_not_one_of", value=echoed(use_pattern),
                                                allowed=", ".join(USE_PATTERNS)))
    capex = card_cny + server_share_cny
    fixed = capex / amortization_years + ops_cny_per_year
    power_full = (tdp_w + host_w) / 1000 * pue * electricity_cny_per_kwh * HOURS_PER_YEAR
    used_h = utilization * HOURS_PER_YEAR
    buy_u = fixed + power_full * utilization
    at: dict[str, Any] = {}
    if not offers:  # a price per card-hour in use: linear in the hours
        rent_full = price * (1 - subsidy) * HOURS_PER_YEAR
        denom = rent_full - power_full
        be: float | None = fixed / denom if denom > 0 else None
        be = be if be is not None and be <= 1 else None
        rent_u = rent_full * utilization
        gross_u = price * HOURS_PER_YEAR * utilization
        at_note = Message("rvb.rent_at.price", share=utilization, hours=used_h, price=price * (1 - subsidy),
                          cost=rent_u, field="rent_price")
    else:
        # the cheapest per-card bill at full use and at this use, each offer in its own unit (ties: the first)
        full = [rent_bill(o, HOURS_PER_YEAR, HOURS_PER_YEAR, use_pattern, subsidy) for o in offers]
        j_full = min(range(len(offers)), key=lambda j: full[j].cost_cny / full[j].cards_rented)
        rent_full = full[j_full].cost_cny / full[j_full].cards_rented
        bills = [rent_bill(o, used_h, HOURS_PER_YEAR, use_pattern, subsidy) for o in offers]
        i = min(range(len(offers)), key=lambda j: bills[j].cost_cny / bills[j].cards_rented)
        o, bill = offers[i], bills[i]
        rent_u = bill.cost_cny / bill.cards_rented
        gross_u = (bill.gross_cost_cny if bill.gross_cost_cny is not None else bill.cost_cny) / bill.cards_rented
        at = {"rent_at_utilization_offer": o.id, "rent_at_utilization_billing_unit": o.billing_unit,
              "rent_at_utilization_units": bill.units_billed, "rent_at_utilization_cards": bill.cards_rented}
        # a contract longer than the year, billed for the year's share (`within_horizon`): said, at this use's
        # offer first, else the full-use one's
        commit = commitment_note(o) or commitment_note(offers[j_full])
        if commit is not None:
            at |= {"commitment_note": render(commit), "commitment_note_i18n": commit.to_json()}
        at_note = Message("rvb.rent_at.offer", share=utilization, hours=used_h,
                          pattern=Message(f"rvb.pattern.{use_pattern}", field="use_pattern"), offer=o.id, billing_unit=o.billing_unit,
                          units=bill.units_billed, bill=bill.cost_cny,
                          per_card=Message("rvb.rent_at.per_card", cards=bill.cards_rented, cost=rent_u)
                          if bill.cards_rented > 1 else "")
        # break-even on the hour grid: rent(h) − buy(h) for h = 1 … 8,760 h in use; every unit's boundary (hour,
        # day, week, 730-h month, year) is a whole hour, so between grid points the bill is flat while owning rises
        hours = np.arange(1.0, HOURS_PER_YEAR + 1.0)
        rent_h = _per_card_bills(offers, hours, HOURS_PER_YEAR, use_pattern, subsidy).min(axis=0)
        renting_cheaper = np.flatnonzero(rent_h < fixed + power_full * hours / HOURS_PER_YEAR)
        if renting_cheaper.size and renting_cheaper[-1] == hours.size - 1:
            be = None  # renting is cheaper at full use
        else:
            be = float(hours[renting_cheaper[-1]] / HOURS_PER_YEAR) if renting_cheaper.size else 0.0
    if be == 0.0 and offers:  # owning is cheaper even at 1 h of use (spread use bills a monthly offer the whole
        # year): say why rather than "above 0.0% use"; the cheapest bill at 1 h in use, its offer and units
        one_h = [rent_bill(x, 1.0, HOURS_PER_YEAR, use_pattern, subsidy) for x in offers]
        k = min(range(len(offers)), key=lambda j: one_h[j].cost_cny / one_h[j].cards_rented)
        all_year = held_hours(offers[k], 1.0, HOURS_PER_YEAR, use_pattern) >= HOURS_PER_YEAR
        note = Message("rvb.note.pays_off_any", rent=one_h[k].cost_cny / one_h[k].cards_rented, offer=offers[k].id,
                       units=one_h[k].units_billed, billing_unit=offers[k].billing_unit,
                       why=Message("rvb.note.any_spread", field="use_pattern", value="blocks") if all_year else "",
                       own=fixed + power_full / HOURS_PER_YEAR)
    elif be is not None:
        note = Message("rvb.note.pays_off", share=be)
    elif rent_full <= power_full:
        note = Message("rvb.note.never_power", power=power_full, rent=rent_full)
    else:  # fixed > rent − power: owning costs more than renting even at full use
        note = Message("rvb.note.never", own=fixed + power_full, rent=rent_full)
    sub_msg = subsidy_note(gross_u, subsidy)  # the rent at this use before and after it
    if sub_msg is not None:
        at |= {"subsidy": subsidy, "gross_rent_at_utilization_cny": gross_u,
               "subsidy_note": render(sub_msg), "subsidy_note_i18n": sub_msg.to_json()}
    return RentVsBuy(
        rent_cny_per_year_full_use=rent_full,
        buy_cny_per_year=fixed + power_full,
        capex_cny=capex,
        power_cny_per_year_full_use=power_full,
        running_cny_per_year=ops_cny_per_year + power_full * utilization,
        power_w_per_card=tdp_w + host_w,
        host_w_per_card=host_w,
        break_even_utilization=be,
        break_even_note=render(note),
        break_even_note_i18n=note.to_json(),
        rent_at_utilization_cny=rent_u,
        buy_at_utilization_cny=buy_u,
        cheaper="rent" if rent_u <= buy_u else "buy",
        utilization=utilization,
        use_pattern=use_pattern,
        hours_in_use=used_h,
        rent_at_utilization_note=render(at_note),
        rent_at_utilization_note_i18n=at_note.to_json(),
        **at,
    )


def host_w_per_card(acc: Accelerator, tdp_w: float, host_power_share: float) -> tuple[float, bool]:
    """A card's share of its server's non-card draw (CPUs, memory, NICs, fans), W, for rent-vs-buy's power: the
    catalog's whole-server figure (`Accelerator.server_power_w`, for `max_cards_per_node` cards) ÷ those cards − the
    card's catalog TDP (DGX H100: 10,200 W ÷ 8 − 700 W = 575 W), and True (cited); without one (or without a catalog
    TDP to take from it), `host_power_share` (the catalog's assumed `host_power_share`) × `tdp_w`, and False."""
    catalog_tdp = acc.specs.tdp_w.value if acc.specs.tdp_w is not None else None
    if acc.server_power_w is not None and catalog_tdp is not None:
        return max(acc.server_power_w.value / acc.max_cards_per_node - catalog_tdp, 0.0), True
    return tdp_w * host_power_share, False


def card_within_server(card_cny: float, server_cny: float, server_cards: int) -> float | None:
    """The one cap on the catalog's card purchase price beside a server priced with its cards included
    (rent-vs-buy's capex): owning is never billed above the quoted server, so when the card × the server's cards
    costs more than the whole server (two figures that disagree: the catalog's H200 at ¥190,000 a card against
    ¥1,500,000 for the 8-card server), a card is the server ÷ its cards and no non-card hardware is left. A typed
    `--card-price` is the buyer's quote and kept: there the capped price is only said beside it (the server works
    out cheaper per card). Returns that capped price per card; None when the card is within the server."""
    if server_cards < 1:
        raise InputError("cards", Message("err.must_be_at_least"))
    return server_cny / server_cards if card_cny * server_cards > server_cny else None


class RentVsBuyTotals(BaseModel):
    """The whole purchase beside the rent for it: `cards` × `years` of `RentVsBuy`'s per-card-year figures."""

    model_config = ConfigDict(frozen=True)

    cards: int
    years: float
    rent_cny: float = Field(description="renting the cards for the years at this use")
    own_cny: float = Field(description="owning them: capex_all_cards_cny + running_cny (no resale value)")
    capex_all_cards_cny: float = Field(description="capex of all the cards (the top level's capex_cny is per card)")
    running_cny: float = Field(description="power at this use and operations over the years, all cards")
    cheaper: str = Field(description="rent or buy over the whole purchase (the per-card verdict, `RentVsBuy.cheaper`)")
    diff_cny: float = Field(description="|own_cny − rent_cny|: what the cheaper side saves")
    verdict_note: str | None = Field(None, description="what qualifies the verdict: no rental offer holds the cards "
                                     "bought in one job, so the rent side is priced as separate instances; null: none")
    verdict_note_i18n: dict[str, Any] | None = Field(None, description="verdict_note as a message (id, params)")


def rent_vs_buy_totals(r: RentVsBuy, cards: int, years: float, separate: Message | None = None) -> RentVsBuyTotals:
    """`r` for `cards` cards over `years`: capex once per card, the year's running cost and rent every year; the
    verdict is `r.cheaper` (own = capex ÷ years + running, per card-year, so the totals scale both sides alike).
    `separate`: where no rental offer holds the cards as one job, the rent side's instances
    (`plan.compare.separate_instances`), said in the verdict itself (buyer review 2026-12-02: "buy is cheaper by
    ¥2,611,477" for 96 H20s against 96 separate 1-card rentals read as a like-for-like comparison)."""
    if cards < 1:
        raise InputError("cards", Message("err.must_be_at_least"))
    rent = r.rent_at_utilization_cny * cards * years
    capex = r.capex_cny * cards
    running = r.running_cny_per_year * cards * years
    own = capex + running
    note = Message("rvb.verdict.separate", cards=cards, instances=separate.params.get("instances"),
                   limit=separate.params.get("limit")) if separate is not None else None
    return RentVsBuyTotals(cards=cards, years=years, rent_cny=rent, own_cny=own, capex_all_cards_cny=capex,
                           running_cny=running, cheaper=r.cheaper, diff_cny=abs(own - rent),
                           verdict_note=render(note, "en") if note is not None else None,
                           verdict_note_i18n=note.to_json() if note is not None else None)


#: assumed: the weeks both sides are paid while the new one runs the work beside the old before the old is given up
#: (`migrate cost --parallel-weeks`): two weeks — no published figure; long enough for two weekly release or
#: training-checkpoint cycles to be compared side by side, short next to the 12-month horizon. Change it with the flag.
DEFAULT_PARALLEL_RUN_WEEKS = 2.0


class WorkRent(BaseModel):
    """The new side's bill for the work an old spend buys (`work_rent`), priced as the planner prices an offer."""

    model_config = ConfigDict(frozen=True)

    offer_id: str
    billing_unit: str = Field(description="the offer's billing unit (hour, day, week, month, year)")
    gpus: int = Field(description="cards each replica of the layout runs on")
    replicas: int = Field(description="copies of the layout run side by side to do a month's work within the month")
    cards_rented: int = Field(description="cards paid for: replicas × whole instances (a block rented whole, whole)")
    hours_per_month: float = Field(description="hours each replica runs a month")
    units_per_month: float = Field(description="billing units paid a month, per replica")
    held: bool = Field(description="true: the cards are held the whole horizon (cheaper than renting each month's "
                       "work: a minimum term or unit longer than it); false: each month's work is its own rental")
    cost_cny_per_month: float
    note: str
    note_i18n: dict[str, Any]


def _replicas(hours: float, period_h: float) -> tuple[int, float]:
    """Copies of a layout run side by side to do `hours` of its work within `period_h`, and each one's hours."""
    r = max(1, math.ceil(hours / period_h - 1e-9))
    return r, hours / r


def work_rent(offer: Offer, gpus: int, hours_per_month: float, horizon_months: float,
              subsidy: float = 0.0) -> WorkRent:
    """The monthly bill on `offer` for `hours_per_month` hours of a `gpus`-card layout's work, each month for
    `horizon_months`, as the planner prices a job (`job_cost`: its billing unit rounded up, minimum term, minimum
    order, whole instances): the work runs on as many replicas as it takes to fit in a month (`_replicas`), and is
    billed the cheaper way of two — each month's work its own rental (an 8-card month paid whole for 14 hours of
    work), or the cards held the whole horizon (a minimum term longer than a month spread over it, `within_horizon`).
    `subsidy` refunds that share of the bill (`billed_cost`'s factor)."""
    if not (math.isfinite(hours_per_month) and hours_per_month >= 0):
        raise InputError("hours", Message("err.must_be_a_finite_number_got", hours=hours_per_month))
    r, h = _replicas(hours_per_month, HOURS_PER_MONTH)
    each = job_cost(offer, gpus, h, subsidy)
    horizon_h = horizon_months * HOURS_PER_MONTH
    whole = job_cost(within_horizon(offer, horizon_h), gpus, horizon_h, subsidy)
    held = whole.cost_cny / horizon_months < each.cost_cny
    bill = whole if held else each
    monthly = r * (whole.cost_cny / horizon_months if held else each.cost_cny)
    units = bill.units_billed / horizon_months if held else float(each.units_billed)
    msg = Message("mig.rent.held" if held else "mig.rent.monthly", replicas=r, gpus=gpus, offer=offer.id,
                  cards=r * bill.cards_rented, hours=h, billing_unit=offer.billing_unit, units=units,
                  months=horizon_months, cost=monthly)
    return WorkRent(offer_id=offer.id, billing_unit=offer.billing_unit, gpus=gpus, replicas=r,
                    cards_rented=r * bill.cards_rented, hours_per_month=h, units_per_month=units, held=held,
                    cost_cny_per_month=monthly, note=render(msg), note_i18n=msg.to_json())


def work_period_cost(offer: Offer, gpus: int, hours_per_month: float, weeks: float, subsidy: float = 0.0) -> float:
    """The bill on `offer` for `weeks` of the work `work_rent` prices a month of (the parallel run of a migration):
    the weeks' share of it, on as many replicas as fit it in the weeks, each one job (`job_cost`: billing unit rounded
    up, minimum term and order). 0 for no weeks."""
    if weeks <= 0:
        return 0.0
    period_h = weeks * HOURS_PER_WEEK
    r, h = _replicas(hours_per_month * period_h / HOURS_PER_MONTH, period_h)
    return r * job_cost(offer, gpus, h, subsidy).cost_cny


class OneOffItem(BaseModel):
    """One line of a migration's one-off cost (`migration_one_off`)."""

    model_config = ConfigDict(frozen=True)

    item: str = Field(description="labour, test_instance (the new side's rent while porting), parallel_run (the new "
                      "side's bill while both sides run the work)")
    cost_cny: tuple[float, float] = Field(description="low and high, CNY (the port's short and long end)")
    note: str
    note_i18n: dict[str, Any]


def migration_one_off(weeks: tuple[float, float], engineers: int, cost_per_engineer_week_cny: float,
                      offer: Offer | None = None, gpus: int = 0, hours_per_month: float = 0.0,
                      parallel_weeks: float = DEFAULT_PARALLEL_RUN_WEEKS, parallel_default: bool = True,
                      subsidy: float = 0.0) -> list[OneOffItem]:
    """A migration's one-off cost, item by item: the labour (calendar weeks × engineers × the weekly rate), and with
    the new side's `offer`: a test instance of `gpus` cards held through the port's calendar weeks (`job_cost`:
    its billing unit, an 8-card month paid whole for a 1-week port; none for a port of no weeks) and the parallel
    run — `parallel_weeks` of the work (`hours_per_month` of it on the new side) paid on the new side while the old
    side's spend goes on (`work_period_cost`; `parallel_default`: the assumed DEFAULT_PARALLEL_RUN_WEEKS). Payback
    divides their total."""
    if not (math.isfinite(parallel_weeks) and 0 <= parallel_weeks <= 520):
        raise InputError("parallel-weeks", Message("err.must_be_a_number_in_got", lo=0, hi=520, v=parallel_weeks))
    rate = engineers * cost_per_engineer_week_cny
    labour = Message("mig.one_off.labour", weeks=span(*weeks), n=engineers, rate=cost_per_engineer_week_cny)
    items = [OneOffItem(item="labour", cost_cny=(weeks[0] * rate, weeks[1] * rate), note=render(labour),
                        note_i18n=labour.to_json())]
    if offer is None:
        return items
    if weeks[1] > 0:  # no port (CUDA to CUDA: 0 weeks), no test instance to hold through it
        test = (job_cost(offer, gpus, weeks[0] * HOURS_PER_WEEK, subsidy),
                job_cost(offer, gpus, weeks[1] * HOURS_PER_WEEK, subsidy))
        t_msg = Message("mig.one_off.test", gpus=gpus, offer=offer.id, weeks=span(*weeks),
                        billing_unit=offer.billing_unit, units=span(test[0].units_billed, test[1].units_billed))
        items.append(OneOffItem(item="test_instance", cost_cny=(test[0].cost_cny, test[1].cost_cny),
                                note=render(t_msg), note_i18n=t_msg.to_json()))
    par = work_period_cost(offer, gpus, hours_per_month, parallel_weeks, subsidy)
    p_msg = Message("mig.one_off.parallel_default" if parallel_default else "mig.one_off.parallel",
                    weeks=parallel_weeks, offer=offer.id, field="parallel_weeks")
    return [*items, OneOffItem(item="parallel_run", cost_cny=(par, par), note=render(p_msg),
                               note_i18n=p_msg.to_json())]


# seed-000 §4: "需要投入2人周×2人的适配成本", after "通常1-2周可以完成": read as 2 calendar weeks for 2 engineers
# = 4 engineer-weeks (the weeks are the project's duration, as the adapted range 1–2 weeks is). Migration effort is
# one quantity everywhere: calendar weeks × engineers (`migrate check`, `migrate cost`, `plan`); the engineers are
# the catalog's `assumptions: migration_engineers` (`cost_assumptions`).


def __getattr__(name: str) -> Any:
    """`MIGRATION_ENGINEERS`: the packaged catalog's `assumptions: migration_engineers` (read when asked, for
    callers without a catalog at hand; with one, read `cost_assumptions(cat)`)."""
    if name == "MIGRATION_ENGINEERS":
        from suanli.catalog.load import packaged_assumptions

        return packaged_assumptions().migration_engineers.value
    raise AttributeError(name)


class MigrationTCO(BaseModel):
    model_config = ConfigDict(frozen=True)

    engineer_weeks: tuple[float, float] = Field(
        json_schema_extra={"deprecated": True},  # OpenAPI marks it; no runtime warning on each read
        description="deprecated: holds calendar weeks, not engineer-weeks (the name is kept for "
        "existing API clients); read calendar_weeks (the same value) or person_weeks (calendar weeks × engineers)")
    calendar_weeks: tuple[float, float] = Field(description="calendar weeks the engineers work on the migration")
    person_weeks: tuple[float, float] = Field(description="calendar_weeks × engineers: what the one-off cost prices")
    engineers: int
    one_off_cost_cny: tuple[float, float] = Field(description="the total of one_off_items, low and high")
    monthly_saving_cny: float = Field(description="the spend less the new side's bill; negative: the bill rises")
    payback_months: tuple[float, float] | None
    schedule_delay_weeks: tuple[float, float]
    worth_it_within_months: float = Field(description="horizon used for the verdict")
    verdict: str
    verdict_i18n: dict[str, Any] = Field(default_factory=dict, description="the verdict as a message (id, params)")
    one_off_items: list[OneOffItem] = Field(default_factory=list, description="what one_off_cost_cny adds up, item by "
                                            "item (labour; with a derived saving, the test instance and the parallel "
                                            "run on the new side)")
    unproven: bool = Field(False, description="true: the new side's speed has too few out-of-sample cases on its "
                           "stack for the verdict to be a validated one (plan's 'unvalidated on <stack>' rule)")


def migration_tco(
    monthly_compute_cny: float,
    monthly_saving_cny: float,
    weeks: tuple[float, float],
    engineers: int,
    cost_per_engineer_week_cny: float,
    horizon_months: float = 12.0,
    one_off_items: Sequence[OneOffItem] | None = None,
    unproven: Message | None = None,
    not_carried: Message | None = None,
) -> MigrationTCO:
    """One-off migration cost (engineers × weeks × weekly cost; with `one_off_items`, their total:
    `migration_one_off`) against the monthly saving → payback months. A negative saving is a bill that rises (the
    new side's billing unit or minimum order costs more than the old spend): no payback. `unproven` (why the new
    side's speed is not validated, and what the measured cases say) makes the verdict 'unproven', the estimate's
    verdict kept inside it. `not_carried` (a stated serving rate one side cannot carry, `plan.compare._rate_bill`)
    makes it 'not carried': no saving is weighed. seed-000 §4: ¥100k a month, ¥60k saved, 2 people × 2 weeks — 'worth it for most teams'."""
    if monthly_compute_cny < 0:
        raise InputError("monthly", Message("err.spend_and_saving_must_not_be"))
    if monthly_saving_cny > monthly_compute_cny:
        raise InputError("saving", Message("err.cannot_exceed_the_monthly_compute_spend"))
    items = list(one_off_items or migration_one_off(weeks, engineers, cost_per_engineer_week_cny))
    one_off = (sum(i.cost_cny[0] for i in items), sum(i.cost_cny[1] for i in items))
    payback = None if monthly_saving_cny <= 0 else (one_off[0] / monthly_saving_cny, one_off[1] / monthly_saving_cny)
    if monthly_saving_cny < 0:
        verdict = Message("mig.verdict.costs_more", rise=-monthly_saving_cny)
    elif payback is None:
        verdict = Message("mig.verdict.no_saving")
    elif payback[1] <= horizon_months:
        verdict = Message("mig.verdict.worth_it", lo=payback[0], hi=payback[1])
    elif payback[0] <= horizon_months:
        verdict = Message("mig.verdict.optimistic", lo=payback[0], hi=payback[1])
    else:
        verdict = Message("mig.verdict.not_worth_it", lo=payback[0], horizon=horizon_months)
    if unproven is not None:
        verdict = Message("mig.verdict.unproven", why=unproven, estimated=verdict)
    if not_carried is not None:
        verdict = Message("mig.verdict.not_carried", why=not_carried)
    return MigrationTCO(
        engineer_weeks=weeks,
        calendar_weeks=weeks,
        person_weeks=(weeks[0] * engineers, weeks[1] * engineers),
        engineers=engineers,
        one_off_cost_cny=one_off,
        monthly_saving_cny=monthly_saving_cny,
        payback_months=payback,
        schedule_delay_weeks=weeks,
        worth_it_within_months=horizon_months,
        verdict=render(verdict),
        verdict_i18n=verdict.to_json(),
        one_off_items=items,
        unproven=unproven is not None,
    )

