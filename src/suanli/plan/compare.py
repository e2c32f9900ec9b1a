"""Side-by-side comparison, TCO per offer, per-yuan effective TFLOPS and migration cost/benefit as pure
functions returning JSON-ready dicts (the logic of `suanli compare`, `tco` and `migrate cost`, for the API).

Every function prices from the offers `catalog.offers.usable_offers` allows: `region` cn (default), any or
international, and `kinds` (default listings only); each answer names the region and kinds it used, marks
international offers and warns about prices older than `stale_months`."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from suanli.catalog import lookup
from suanli.catalog import offers as offer_q
from suanli.catalog.schema import Catalog, ModelArch, Offer
from suanli.errors import EstimateError, InputError
from suanli.estimate.estimate import (LORA_TASKS, ErrorBand, Estimate, band_evidence, estimate, lora_stack_band,
                                      moe_stack_band, pooled_bias, stack_band)
from suanli.estimate.precision import (default_precision, native_precision_note, peak_flops_per_s,
                                      unpublished_checkpoint_note)
from suanli.estimate.capability import default_engine
from suanli.catalog.ranks import cards_of, dies_per_card, ranks_of, whole_cards
from suanli.estimate.workload import Workload, make_workload
from suanli.i18n import Message, both, device_name_message, duration, messages, render
from suanli.estimate.memory import preallocate_fraction, weights_bytes
from suanli.plan.cost import (DEFAULT_PARALLEL_RUN_WEEKS, JobCost, WorkRent, cost_assumptions,
                              cny_per_million_output_tokens, cost_per_million_tokens, job_cny_per_card_hour,
                              job_cost, job_hours_on_offer, migration_one_off, migration_tco, period_billed_hours,
                              period_served_hours, rent_bill, work_rent,
                              yuan_per_effective_tflops)
from suanli.plan.request import (DEFAULT_GLOBAL_BATCH, DEFAULT_INPUT_TOKENS, DEFAULT_LENGTHS, DEFAULT_OUTPUT_TOKENS,
                                 PlanRequest, make_request, user_speed_tpot)
from suanli.plan.caveats import Rerun, offer_caveats
from suanli.plan.known_error import fit_label
from suanli.plan.labels import replica_words, serving_label
from suanli.plan.quality import scheme_name
from suanli.plan.search import (DEFAULT_SERVING_TPOT_S, SERVE_PRECISIONS, TP_SIZES, Layout, fastest_layout_why, memory_likely_short,
                                default_serve_precisions, leanest_serving_layout, leanest_training_layout, memory_within_error, migration_weeks, no_rent_why,
                                plan_workload, pooled_evidence,
                                round_down_rate, serving_capacity, serving_layout, serving_users_capacity)
from suanli.units import HOURS_PER_MONTH, HOURS_PER_YEAR, TFLOPS

if TYPE_CHECKING:  # migrate's package imports plan.cost: the type only
    from suanli.migrate.libraries import LibraryUse

__all__ = ["ServingTargets", "card_hour_among", "card_hour_basis", "card_hour_offer", "serving_period", "compare_devices", "fresh_first", "hourly_card_price", "migration_cost", "no_price", "no_price_message", "offer_facts", "one_job_options", "one_job_tier",
           "pricing_basis", "rent_for", "rent_options", "separate_instances", "tco_rows", "training_request", "value_table"]

Kinds = Sequence[str]


def pricing_basis(region: str, kinds: Kinds) -> dict[str, Any]:
    """What every cost answer says about the prices it used."""
    return {"region": offer_q.parse_region(region), "offer_kinds": list(kinds)}


def offer_facts(o: Offer, today: dt.date | None = None, stale_months: float = offer_q.DEFAULT_STALE_MONTHS) -> dict[str, Any]:
    """The offer as an answer cites it: id, provider, kind, region (international marked), scope, date, whether it
    was read through a third party (`second_hand`), and the staleness warning when its price is older than `stale_months`."""
    return {
        "offer": o.id, "provider": o.provider, "kind": o.kind, "region": o.region or "cn",
        # the provider in the answer's language (the catalog's provider_zh in Chinese: `i18n.localize`)
        "provider_i18n": Message("offer.provider", provider=both(o.provider, o.provider_zh)).to_json(),
        "international": offer_q.is_international(o.region), "scope": offer_q.scope_label(o),
        "scope_i18n": offer_q.scope_message(o).to_json(), "date": o.date, "url": o.url, "source": o.source,
        "second_hand": offer_q.is_second_hand(o),  # read through a third party: "quoted via a third party" (转引)
        "stale": offer_q.stale_warning(o, today or dt.date.today(), stale_months),
        "stale_i18n": _json(offer_q.stale_message(o, today or dt.date.today(), stale_months)),
    }


def _json(msg: Message | None) -> dict[str, Any] | None:
    return None if msg is None else msg.to_json()


def _both(prefix: str, values: Sequence[str], sep: str) -> dict[str, str]:
    """Catalog values (`price_kind.index`) as data text in both languages: the English keeps the value itself."""
    zh = messages("zh")
    return {"en": sep.join(values), "zh": sep.join(zh.get(f"{prefix}.{v}", v) for v in values)}


# compare's refusal of a batch beside serving targets, the inputs named per surface (`i18n.field_name`)
_BATCH_OR_TARGETS = Message("err.give_batch_or_serving_targets_requests", field="batch", rate_field="requests_per_s",
                            tpot_field="tpot_s", ttft_field="ttft_s")


def no_price(cat: Catalog, device: str, region: str, kinds: Kinds) -> Message:
    """No usable price for the device under this region/kinds, what other figures exist, and the catalog's note
    when nothing is public (`price.none`; `no_price_message` is its English)."""
    others = [o for o in cat.offers if o.device == device and o not in offer_q.usable_offers(cat, region, kinds)]
    alt: Message | str = ""
    if others:
        pairs = sorted({(o.kind, "international" if offer_q.is_international(o.region) else "cn") for o in others})
        zh = messages("zh")
        alt = Message("price.none_alt", kinds_field="offer_kinds", region_field="region", figures={
            "en": ", ".join(f"{k} ({r})" for k, r in pairs),
            "zh": "、".join(f"{zh.get(f'price_kind.{k}', k)}（{zh.get(f'price_region.{r}', r)}）" for k, r in pairs)})
    note = offer_q.unpriced_reason(cat, device)
    return Message("price.none", region=_both("price_region", [offer_q.parse_region(region)], ""),
                   kinds=_both("price_kind", list(kinds), "/"), device=device, alt=alt,
                   note=Message("price.none_note", note={"en": note, "zh": offer_q.unpriced_reason(cat, device, "zh")})
                   if note else "")


def no_price_message(cat: Catalog, device: str, region: str, kinds: Kinds) -> str:
    """One line (English): no usable price for the device under this region/kinds, what other figures exist, and
    the catalog's note when nothing is public."""
    return render(no_price(cat, device, region, kinds))


def card_hour_offer(cat: Catalog, device_id: str, region: str = offer_q.DEFAULT_REGION,
                    kinds: Kinds = offer_q.DEFAULT_KINDS, today: dt.date | None = None,
                    stale_months: float = offer_q.DEFAULT_STALE_MONTHS) -> tuple[float, Offer] | None:
    """The price of one card-hour and the offer that sets it: one card for one hour under hourly billing when an
    hourly offer exists, else the offer's price per card-hour at full use of its billing unit (an 8-card machine
    rented by the month: price ÷ 8 ÷ 730 h, `units.HOURS_PER_MONTH`), chosen by `fresh_first` (a fresh price before a stale one on `today`,
    then the lowest). None when the device has no usable offer."""
    offers = [o for o in offer_q.filter_catalog(cat, region, kinds).offers if o.device == device_id]
    return card_hour_among(offers, today, stale_months)


def card_hour_among(offers: Sequence[Offer], today: dt.date | None = None,
                    stale_months: float = offer_q.DEFAULT_STALE_MONTHS) -> tuple[float, Offer] | None:
    """`card_hour_offer`'s rule over the given offers: one card for one hour under hourly billing when an hourly
    offer exists, else the price per card-hour at full use of the billing unit; `fresh_first`. None: no offer."""
    hourly = fresh_first(((c.cost_cny, o, c) for o in offers if o.billing_unit == "hour"
                          for c in (job_cost(o, 1, 1.0),)), today, stale_months)
    if hourly is not None:
        return hourly[0], hourly[1]
    best = fresh_first(((offer_q.card_hour_price(o), o, o) for o in offers), today, stale_months)
    return None if best is None else (best[0], best[1])


def card_hour_basis(billing_unit: str) -> str:
    """How `card_hour_among` priced a card-hour from an offer of `billing_unit`: "hourly" (one card for one hour under
    hourly billing) or "full_use" (a longer unit's price per card-hour at full use: price ÷ cards ÷ 730 h a month)."""
    return "hourly" if billing_unit == "hour" else "full_use"


def separate_instances(acc: Any, o: Offer, gpus: int) -> Message | None:
    """None when `o` rents `gpus` cards of `acc` as one job, plan's offer rule (`offers.can_rent`, the one
    rentability rule: single-card listings never combine into one job across machines, `max_cards` per instance or
    order, whole nodes); else what renting them there is: "N separate instances, not one `gpus`-card job", which
    plan rents only for serving replicas whose tensor-parallel group one instance holds (`tco`, `rent-vs-buy`)."""
    if bool(offer_q.can_rent(o, acc.max_cards_per_node, gpus, gpus, False)):
        return None
    limit = offer_q.max_cards(o, acc.max_cards_per_node)
    return Message("tco.separate_instances", gpus=gpus, instances=math.ceil(gpus / limit), limit=limit)


def rent_options(cat: Catalog, device_id: str, hours: float = HOURS_PER_YEAR, region: str = offer_q.DEFAULT_REGION,
                 kinds: Kinds = offer_q.DEFAULT_KINDS, gpus: int = 1) -> list[tuple[float, Offer, JobCost]]:
    """Every usable offer's CNY per card-hour of renting a card for `hours` (rent-vs-buy: a year, 8,760 h), any
    billing unit: one instance of the offer's cards held for the hours and billed as `job_cost` bills it (units
    rounded up, minimum term, a block rented whole: `min_cards_per_order`), ÷ the cards that bill rents
    (`cards_rented`, rent-vs-buy's per-card rule, `plan.cost.rent_bill`) ÷ hours; with the offer and the bill.
    `gpus` are the cards rented together (rent-vs-buy: the cards bought): an offer that cannot hold them as one job
    (`separate_instances`, plan's and tco's rule) carries the "separate instances" note in its bill's notes and
    comes after every offer that can, as `tco` orders them; among those, an offer that holds a server's cards
    (`one_job_tier`) before one that cannot; within each, cheapest first.
    Monthly billing counts calendar months (`units.HOURS_PER_MONTH`), so a year, 8,760 h, is 12 bills, as `tco` and
    `plan` bill it (the one billing rule, `plan.cost.billed_cost`)."""
    if gpus < 1:
        raise InputError("cards", Message("err.must_be_at_least"))
    acc = lookup.accelerator(cat, device_id)
    out = []
    for o in offer_q.usable_offers(cat, region, kinds, device=acc.id):
        c = rent_bill(o, hours, hours)  # a minimum term longer than `hours` billed for their share (`within_horizon`)
        apart = separate_instances(acc, o, gpus)
        if apart is not None:
            c = c.model_copy(update={"notes": [*c.notes, render(apart)], "notes_i18n": [*c.notes_i18n, apart.to_json()]})
        out.append((one_job_tier(acc, o, gpus), c.cost_cny / (c.cards_rented * hours), o, c))
    return [(price, o, c) for _, price, o, c in sorted(out, key=lambda t: (t[0], t[1]))]


def one_job_tier(acc: Any, o: Offer, gpus: int) -> int:
    """0: `o` holds the `gpus` cards as one job (`separate_instances`); 1: it cannot, but one instance holds a
    server's cards (`min(gpus, max_cards_per_node)`: more cards than a server are rented as whole-server instances,
    never as single-card VMs while an offer holds a server); 2: neither."""
    if separate_instances(acc, o, gpus) is None:
        return 0
    return 1 if separate_instances(acc, o, min(gpus, acc.max_cards_per_node)) is None else 2


def rent_for(cat: Catalog, device_id: str, hours: float = HOURS_PER_YEAR, region: str = offer_q.DEFAULT_REGION,
             kinds: Kinds = offer_q.DEFAULT_KINDS, today: dt.date | None = None,
             stale_months: float = offer_q.DEFAULT_STALE_MONTHS, gpus: int = 1) -> tuple[float, Offer, JobCost] | None:
    """The cheapest of `rent_options` for `gpus` cards by the planner's rules: among the offers that hold them as
    one job (`separate_instances`; separate instances only when no offer can, then whole-server instances first:
    `one_job_options`), a fresh price before a stale one
    (`fresh_first`: `offers.is_stale` on `today` at `stale_months`, a stale offer rents the card only when no fresh
    one can), then the lowest CNY per card-hour. None when unpriced."""
    return fresh_first(one_job_options(cat, device_id, rent_options(cat, device_id, hours, region, kinds, gpus), gpus),
                       today, stale_months)


def one_job_options(cat: Catalog, device_id: str, options: Sequence[tuple[float, Offer, JobCost]],
                    gpus: int) -> list[tuple[float, Offer, JobCost]]:
    """The `rent_options` whose offer holds `gpus` cards as one job (`separate_instances`), else those whose offer
    holds a server's cards as one instance (`one_job_tier` 1: an 8-card month for 16 cards, never AutoDL's 1-card
    hour while one exists), else all of them: the pool rent-vs-buy chooses from (`rent_for`, its rent at a use and
    its price range)."""
    acc = lookup.accelerator(cat, device_id)
    tiers = [one_job_tier(acc, t[1], gpus) for t in options]
    best = min(tiers, default=0)
    return [t for t, k in zip(options, tiers) if k == best]


_Bill = TypeVar("_Bill")


def fresh_first(options: Iterable[tuple[float, Offer, _Bill]], today: dt.date | None = None,
                stale_months: float = offer_q.DEFAULT_STALE_MONTHS) -> tuple[float, Offer, _Bill] | None:
    """The one offer choice of the cost answers, the planner's rule (`plan.search._price`): among (price, offer,
    bill) options, a fresh price before a stale one (`offers.is_stale` on `today` at `stale_months`: a stale offer
    is used only when no fresh one can), then the lowest price (ties: the first). None when there is none.
    rent-vs-buy (`rent_for`) and migrate cost choose through it."""
    day = today or dt.date.today()
    return min(options, key=lambda t: (offer_q.is_stale(t[1], day, stale_months), t[0]), default=None)


def hourly_card_price(cat: Catalog, device_id: str, region: str = offer_q.DEFAULT_REGION,
                      kinds: Kinds = offer_q.DEFAULT_KINDS, today: dt.date | None = None) -> float | None:
    """CNY per card-hour by `card_hour_offer` (hourly billing first, else full use of a longer unit)."""
    c = card_hour_offer(cat, device_id, region, kinds, today)
    return None if c is None else c[0]


def _peak_tflops(acc: Any, precision: str) -> float | None:
    try:
        return peak_flops_per_s(acc, precision)[0] / TFLOPS
    except EstimateError:
        return None


_TRAIN_PRECISIONS = ("bf16", "fp8", "int8", "int4")  # what the planner's request takes (PlanRequest.precision)
_SEARCH_TOKENS = 1e9  # the planner needs a token count to rank; layouts rank by tokens/s, so any count picks the same


def _layout_facts(w: Workload, framework: str | None, engine: str | None, pinned: dict[str, Any],
                  dies: int = 1) -> dict[str, Any]:
    """The layout a compare row ran (the `suanli estimate` flags that reproduce it) and its label. `gpus` are the
    cards (`suanli estimate --gpus`); a card of `dies` dies (the 910C: 2) adds the ranks tp/pp/dp count."""
    replicas = w.gpus // (w.tp * w.pp)
    if w.task == "inference":  # plan's label (`labels.serving_label`: the expert-parallel group too), then the engine
        msg = Message("cmp.layout.serving", layout=serving_label(replicas, w.tp, w.ep, w.batch, w.precision),
                      engine=w.engine)
    else:
        # the framework it runs (every one the stack runs is searched for full and pretrain: plan.search)
        msg = Message("cmp.layout.training_fw" if framework else "cmp.layout.training", recompute=w.recompute,
                      framework=framework or "", dims=(
            f"tp{w.tp}·pp{w.pp}" + (f"·vpp{w.vpp}" if w.vpp > 1 else "") + f"·dp{replicas}"
            + (f"·ep{w.ep}" if w.ep > 1 else "") + f"·z{w.zero}·mb{w.batch}·ga{w.grad_accum}"
            + (f" · {w.precision}" if w.precision != "bf16" else "")))
    return {"label": render(msg), "label_i18n": msg.to_json(), "framework": framework, "engine": engine if w.task == "inference" else None,
            "gpus": whole_cards(w.gpus, dies), **({"ranks": w.gpus, "dies_per_card": dies} if dies > 1 else {}),
            "tp": w.tp, "pp": w.pp, "vpp": w.vpp, "dp": replicas, "ep": w.ep, "zero": w.zero,
            "recompute": w.recompute, "batch": w.batch, "grad_accum": w.grad_accum,
            "tp_comm_overlap": w.tp_comm_overlap, "flash_attention": w.flash_attention, "precision": w.precision,
            "pinned": sorted(k for k, v in pinned.items() if v is not None)}


def _ranks_facts(acc: Any, w: Workload) -> dict[str, int]:
    """A side's or row's ranks beside its cards where a card has several dies (the 910C: `ranks`, `dies_per_card`);
    nothing for a device of one die a card (its JSON as it was)."""
    dies = dies_per_card(acc)
    return {"ranks": w.gpus, "dies_per_card": dies} if dies > 1 else {}


def _inference_layout(cat: Catalog, m: ModelArch, acc: Any, gpus: int, precision: str, batch: int,
                      tokens: float | None, tp: int | None,
                      lengths: tuple[int, int] = DEFAULT_LENGTHS) -> tuple[Workload, Message | None]:
    """Serving on exactly `gpus` cards as the planner lays it out (replicas × tp = gpus, tp within a node) with the
    engine `suanli estimate` defaults to on the device's stack: the tp with the most output tokens/s that fits, the
    widest when none fits. Returns the workload and, when nothing fits, why."""
    engine = default_engine(lookup.stack(cat, acc.stack))
    ranks, per_node = ranks_of(acc, gpus), ranks_of(acc, acc.max_cards_per_node)  # tp counts ranks (a 910C: 2 a card)
    tps = [t for t in TP_SIZES if ranks % t == 0 and t <= per_node] if tp is None else [tp]
    if not tps:
        raise InputError("gpus", Message("err.cards_split_into_no_tensor_parallel", gpus=gpus, tp_sizes=TP_SIZES, acc_max_cards_per_node=acc.max_cards_per_node))
    best: tuple[float, Workload] | None = None
    for t in tps:
        w = make_workload(task="inference", gpus=ranks, tp=t, precision=precision, batch=batch, tokens=tokens,
                          engine=engine, input=lengths[0], output=lengths[1])
        c = estimate(cat, m, acc, w).contract()
        tok_s = c["speed"].get("output_tokens_per_s") or 0.0
        if c["memory"]["fits"] is not False and (best is None or tok_s > best[0]):
            best = (tok_s, w)
    if best is not None:
        return best[1], None
    w = make_workload(task="inference", gpus=ranks, tp=tps[-1], precision=precision, batch=batch, tokens=tokens,
                      engine=engine, input=lengths[0], output=lengths[1])
    return w, Message("cmp.no_tp_fits", gpus=gpus, tp=tps[-1])


def serving_target(requests_per_s: float | None = None, tpot_s: float | None = None,
                   ttft_s: float | None = None, output: int | None = None) -> tuple[float | None, Message]:
    """The TPOT a compare serves within and the sentence that says how each row's batch was chosen: the request's
    targets when it states a rate or a TPOT (the planner's serving search, `plan.search.serving_layout`), else
    `DEFAULT_SERVING_TPOT_S` (the planner has no default TPOT; MLPerf Inference's Server bound). With a rate the
    sentence says the row is the layout's capacity and the rate is served at a smaller batch (`_rate_layout`).
    With `output` ≤ 1 there is no TPOT (`speed.tpot_within`: no gap between tokens): the sentence says so instead
    of a TPOT bound no row is held to."""
    if output is not None and output <= 1:
        ttft = [Message("cmp.serving.ttft", ttft_ms=ttft_s * 1000)] if ttft_s is not None else []
        within = Message("list.items", items=ttft) if ttft else Message("cmp.serving.within_memory")
        rule = (Message("cmp.serving.capacity_rate", targets=within, rate=Message("cmp.serving.rate", rps=requests_per_s))
                if requests_per_s is not None else Message("cmp.serving.targets", targets=within))
        return tpot_s, Message("cmp.serving.no_tpot", rule=rule)
    if requests_per_s is None and tpot_s is None:
        return DEFAULT_SERVING_TPOT_S, Message("cmp.serving.default_tpot", tpot_ms=DEFAULT_SERVING_TPOT_S * 1000,
                                               field="tpot_s", other=Message("input.name", field="requests_per_s"))
    if requests_per_s is not None:  # a rate: the capacity column, then what the rate is served at (`_rate_layout`)
        limits = ([Message("cmp.serving.tpot", tpot_ms=tpot_s * 1000)] if tpot_s is not None
                  else [Message("cmp.serving.tpot_default", tpot_ms=DEFAULT_SERVING_TPOT_S * 1000)]) + \
            ([Message("cmp.serving.ttft", ttft_ms=ttft_s * 1000)] if ttft_s is not None else [])
        return tpot_s, Message("cmp.serving.capacity_rate", targets=Message("list.items", items=limits),
                               rate=Message("cmp.serving.rate", rps=requests_per_s))
    parts = ([Message("cmp.serving.rate", rps=requests_per_s)] if requests_per_s is not None else []) + \
        ([Message("cmp.serving.tpot", tpot_ms=tpot_s * 1000)] if tpot_s is not None else []) + \
        ([Message("cmp.serving.ttft", ttft_ms=ttft_s * 1000)] if ttft_s is not None else [])
    return tpot_s, Message("cmp.serving.targets", targets=Message("list.items", items=parts))


def _served_layout(cat: Catalog, m: ModelArch, acc: Any, gpus: int, precision: str, tokens: float | None,
                   tp: int | None, requests_per_s: float | None, tpot_s: float | None,
                   ttft_s: float | None,
                   error_bands: dict[str, ErrorBand] | None = None, lengths: tuple[int, int] = DEFAULT_LENGTHS,
                   steady: bool = False) -> tuple[Workload, Message | None]:
    """Serving on exactly `gpus` cards as the planner searches it (`plan.search.serving_layout`: replicas × tp =
    gpus, the batch per replica, the planner's engine for the device's stack), within the targets (`tpot_s` already
    the default one when the request states no rate and no TPOT): the configuration with the most output tokens/s
    that meets them, by plan's evidence step with `error_bands` (`plan.search.evidence_pick`). When none does, the
    batch-1 layout (`_inference_layout`) and why. `steady` (the request states a TPOT or a rate), no rate: the
    capacity a rate is served at, `plan.search.serving_capacity` (the largest batch whose steady-state TPOT, the
    decode step + the batch's prefill ÷ output, meets the TPOT: the "serve at most" rate × output), not a batch
    job's decode step."""
    req = make_request(model=m.id, task="inference", gpus=gpus, tp=tp, requests_per_s=requests_per_s,
                       tpot_s=tpot_s, ttft_s=ttft_s, tokens=None if requests_per_s else (tokens or _SEARCH_TOKENS),
                       precision=precision if precision in SERVE_PRECISIONS else "bf16",
                       input=lengths[0], output=lengths[1])
    lay, why = (serving_capacity(cat, m, req, acc.id, error_bands) if steady and requests_per_s is None
                else serving_layout(cat, m, req, acc.id, error_bands))
    if lay is None:
        w, none_fits = _inference_layout(cat, m, acc, gpus, precision, 1, tokens, tp, lengths)
        if none_fits is not None:
            # nothing fits at batch 1 on any tp: the row is the layout plan's why-not names (its leanest, expert
            # parallel included), so the row's GiB and the line agree (buyer review 2026-12-02: "160/58 GiB" on
            # 2×tp8 beside "the leanest layout needs 83.6 GiB" of tp8·ep2); and a lower precision plan lays it out at
            lean = leanest_serving_layout(cat, m, req, acc.id)
            if lean is not None:
                w = plan_workload(lean, req).model_copy(update={"tokens": tokens, "precision": precision})
            why = lower_precision_fit(cat, m, acc, req, why, error_bands)
        return w, why
    # the planner serves the precisions it plans; another (fp16, fp32) is laid out as bf16 and estimated at its own
    return plan_workload(lay, req).model_copy(update={"tokens": tokens, "precision": precision}), None


def lower_precision_fit(cat: Catalog, m: ModelArch, acc: Any, req: PlanRequest, why: Message | None,
                        error_bands: dict[str, ErrorBand] | None = None) -> Message | None:
    """`why` (nothing fits `req.gpus` cards of `acc` at `req.precision`) with the nearest lower precision at which
    the planner's serving search (`plan.search.serving_layout`, the request's targets kept) lays the job out on those
    cards, its layout and the pin that asks for it, as plan's hint names a lower precision where a replica is too big
    (`plan.search._serve_too_big_tip`); a precision the device does not run is no layout there. `why` as it is where
    none does (buyer review 2026-12-02: compare said the 910C does not fit DeepSeek-R1 at bf16 with no word that
    plan serves it at int8)."""
    asked = req.precision[0] if req.precision else "bf16"
    start = SERVE_PRECISIONS.index(asked) if asked in SERVE_PRECISIONS else 0
    stack = lookup.stack(cat, acc.stack)
    for p in SERVE_PRECISIONS[start + 1:]:
        lay, _ = serving_layout(cat, m, req.model_copy(update={"precision": (p,)}), acc.id, error_bands)
        if lay is not None:
            return Message("cmp.fits_lower", why=why or Message("cmp.no_layout_fits"),
                           precision=scheme_name(stack, p), gpus=cards_of(acc, lay.gpus),
                           layout=serving_label(lay.dp, lay.tp, lay.ep, lay.micro_batch, p),
                           pin=Message("relax.pin", field="precision", value=p))
    return why


def _rate_search(cat: Catalog, m: ModelArch, acc: Any, gpus: int, precision: str, tp: int | None,
                 requests_per_s: float, tpot_s: float | None, ttft_s: float | None,
                 error_bands: dict[str, ErrorBand] | None,
                 lengths: tuple[int, int] = DEFAULT_LENGTHS,
                 users: int | None = None) -> tuple[Layout | None, Message | None]:
    """The planner's serving search (`plan.search.serving_layout`) for `requests_per_s` on exactly `gpus` cards,
    `tp` pinned when given: the layout with the batch each replica runs to carry the rate and that batch's TPOT and
    TTFT, or None and the planner's why-not. `users`: the concurrent users the rate comes from (plan's rule: the
    replicas also hold one slot of the running batch per user)."""
    req = make_request(model=m.id, task="inference", gpus=gpus, tp=tp, requests_per_s=requests_per_s,
                       tpot_s=tpot_s, ttft_s=ttft_s, precision=precision if precision in SERVE_PRECISIONS else "bf16",
                       input=lengths[0], output=lengths[1], concurrent_users=users)
    return serving_layout(cat, m, req, acc.id, error_bands)


def _capacity_row(cat: Catalog, m: ModelArch, acc: Any, gpus: int, precision: str, tokens: float | None,
                  tp: int | None, tpot_s: float, ttft_s: float | None, error_bands: dict[str, ErrorBand] | None,
                  lengths: tuple[int, int]) -> tuple[Workload, Message | None]:
    """The capacity row of a compare that states a TPOT or a rate, the one function both take it from (costc task:
    --tpot without a rate took `serving_capacity`'s single pick, tp4 × 2 at 10,928 tok/s for qwen3-32b on 8 × H800,
    while a rate showed tp2 × 4 at 12,838): the steady-state capacity (`_served_layout`, steady:
    `plan.search.serving_capacity`, whose `capacity_configs` takes the best over every tp by plan's own row check,
    the rule plan's "serve at most" follows). When nothing meets the targets, the batch-1 layout and why."""
    return _served_layout(cat, m, acc, gpus, precision, tokens, tp, None, tpot_s, ttft_s, error_bands, lengths,
                          steady=True)


def _rate_layout(cat: Catalog, m: ModelArch, acc: Any, gpus: int, precision: str, tokens: float | None,
                 tp: int | None, requests_per_s: float, tpot_s: float | None, ttft_s: float | None,
                 error_bands: dict[str, ErrorBand] | None = None,
                 lengths: tuple[int, int] = DEFAULT_LENGTHS,
                 users: int | None = None,
                 users_cap: tuple[int | None, Message | None] | None = None) -> tuple[Workload, Message | None, Layout | None]:
    """A compare with a request rate: the row is the cards' capacity, the rate what it serves.

    The rate is served as `suanli plan --gpus N --requests-per-s R` serves it (`_rate_search`, the planner's
    `serving_layout` over every tp, or the pinned one: any configuration whose run batch carries the rate within the
    targets, through plan's evidence step, which warns or demotes but never refuses). So the quoted maximum — the
    capacity column and the "serve at most N req/s" of a rate not served — is the best over every tp that search may
    serve on (`_capacity_row`: `plan.search.capacity_configs`, the largest batch within the steady-state TPOT by
    plan's own row check, the best over every tp; task D 2026-12-01), and the
    capacity row shows that tp: a rate the row says is beyond the cards is one plan does not serve either (qwen3-32b
    on 8 × H800, --tpot 0.05 --ttft 1: tp2 × 4 at 50.1 req/s, not tp4 × 2 at 42.6 while tp2 × 4 served 43–50). The
    batch each replica runs for the rate is searched at the capacity's tp (TPOT and TTFT at that batch); when that
    tp cannot carry it and no tp is pinned, plan's tp for the rate, whose capacity then makes the row. Returns (the
    capacity workload, why the rate is not served or nothing fits, the rate's layout or None)."""
    cap_tpot = tpot_s if tpot_s is not None else DEFAULT_SERVING_TPOT_S
    w, why = _capacity_row(cat, m, acc, gpus, precision, tokens, tp, cap_tpot, ttft_s, error_bands, lengths)
    if why is not None:  # nothing meets the latency targets at any batch: the batch-1 layout and why (as before)
        return _served_layout(cat, m, acc, gpus, precision, tokens, tp, requests_per_s, tpot_s, ttft_s,
                              error_bands, lengths) + (None,)
    lay, swhy = _rate_search(cat, m, acc, gpus, precision, w.tp, requests_per_s, tpot_s, ttft_s, error_bands,
                             lengths, users)
    if lay is None and tp is None:
        other, _ = _rate_search(cat, m, acc, gpus, precision, None, requests_per_s, tpot_s, ttft_s, error_bands,
                                lengths, users)
        # no tp carries it: the capacity tp's own why-not (its "serve at most" is the capacity column's rate, the
        # most any tp serves)
        if other is not None:
            w2, cwhy = _served_layout(cat, m, acc, gpus, precision, tokens, other.tp, None, cap_tpot, ttft_s,
                                      error_bands, lengths, steady=True)
            if cwhy is None:
                w, lay, swhy = w2, other, None
    if lay is None:
        # the users the cards hold: the caller's figure where it has one (compare: plan's, over the layouts its
        # offers rent, `users_capacity`'s `instance`), so the row's sentence and its max_users are one number
        most, quote = (users_cap if users_cap is not None and users else
                       users_capacity(cat, m, acc, gpus, precision, tp, tpot_s, ttft_s, error_bands, lengths, users)
                       if users else (None, None))
        if most is not None and quote is not None and users is not None and most < users:
            # more users than slots: the binding limit is plan's, with its numbers (task H 2026-12-01: the rate
            # note said "serves at most 3.76 req/s" beside 3.623 asked while 2 × batch 24 held 48 of 50 users)
            return w, Message("cmp.serving.not_served_users", users=users, slots=most, layout=quote,
                              rate=Message("cmp.serving.rate", rps=requests_per_s)), None
        return w, _not_served_row(cat, m, acc, w, requests_per_s, tpot_s, ttft_s, error_bands, lengths, swhy), None
    return w, None, lay


def users_capacity(cat: Catalog, m: ModelArch, acc: Any, gpus: int, precision: str, tp: int | None,
                   tpot_s: float | None, ttft_s: float | None, error_bands: dict[str, ErrorBand] | None,
                   lengths: tuple[int, int], users: int, instance: int | None = None
                   ) -> tuple[int | None, Message | None]:
    """The most concurrent users plan accepts on exactly `gpus` cards of `acc` within the targets, over every tp
    (or the pinned `tp`), and what holds them there (`plan.search.serving_users_capacity`, the rule plan's why-not and
    relax hint quote): compare's `max_users` and its not-served sentence. `instance`: the most ranks one instance of
    the row's usable offers holds (`_instance_ranks`), so only layouts an offer rents count, as in plan. (None, None)
    where no batch meets them."""
    req = make_request(model=m.id, task="inference", gpus=gpus, tp=tp, concurrent_users=users, tpot_s=tpot_s,
                       ttft_s=ttft_s, precision=precision if precision in SERVE_PRECISIONS else "bf16",
                       input=lengths[0], output=lengths[1])
    return serving_users_capacity(cat, m, req, acc.id, error_bands, instance)


def capacity_quote(cat: Catalog, m: ModelArch, acc: Any, w: Workload, tpot_s: float | None, ttft_s: float | None,
                   error_bands: dict[str, ErrorBand] | None, lengths: tuple[int, int]) -> Layout | None:
    """The "serve at most N req/s" of a serving row's cards at its tp and precision (`plan.search.serving_capacity`,
    the rule plan's rate search and hints follow): its `max_requests_per_s`, `comfortable_requests_per_s` and the
    clause saying above which rate plan warns of a thin margin (`rate_thin_i18n`); None where nothing meets the
    targets. `tpot_s` None: the default serving TPOT (`DEFAULT_SERVING_TPOT_S`), as the capacity row takes it."""
    req = make_request(model=m.id, task="inference", gpus=cards_of(acc, w.gpus), tp=w.tp,
                       tpot_s=tpot_s or DEFAULT_SERVING_TPOT_S,
                       ttft_s=ttft_s, tokens=_SEARCH_TOKENS,
                       precision=w.precision if w.precision in SERVE_PRECISIONS else "bf16",
                       input=lengths[0], output=lengths[1])
    lay, _ = serving_capacity(cat, m, req, acc.id, error_bands)
    return lay if lay is not None and lay.max_requests_per_s else None


def _users_on_row_layout(users_quote: Message | None, w: Workload) -> bool:
    """Whether the layout holding a row's most users (`users_capacity`'s quote: tp, replicas, expert groups) is the
    row's own (its tp, its replicas `gpus // tp`, expert parallel or not)."""
    if users_quote is None:
        return True
    p = users_quote.params
    return (p.get("tp") == w.tp and p.get("replicas") == w.gpus // w.tp
            and (users_quote.id == "users.slots_ep") == (w.ep > 1))


def _quote_thin(quote: Layout | None) -> Message | str:
    """A capacity quote's thin-margin clause (`plan.search.rate_thin`), "" where there is none."""
    return Message.from_json(quote.rate_thin_i18n) if quote is not None and quote.rate_thin_i18n else ""


def _not_served_row(cat: Catalog, m: ModelArch, acc: Any, w: Workload, requests_per_s: float, tpot_s: float | None,
                    ttft_s: float | None, error_bands: dict[str, ErrorBand] | None, lengths: tuple[int, int],
                    why: Message | None) -> Message:
    """Why a compare row does not serve the rate, in the row's own layout (buyer review 2026-12-01: 'tp2 batch 33
    within 50 ms' above 'its best TPOT is 184 ms' read as another tp): the row's tp × replicas serves at most its
    capacity within the targets (that batch per replica); the batch per replica that would carry the rate on that
    layout (the planner's search with the latency targets lifted) and the TPOT and TTFT it runs at. The planner's
    own why-not (`why`) where the rate is not carried in memory at any batch."""
    rate = Message("cmp.serving.rate", rps=requests_per_s)
    c = estimate(cat, m, acc, w, dict(error_bands or {})).contract()
    cap_tok_s = c["speed"].get("output_tokens_per_s")
    # the latency targets lifted, and with them the users: the rate is already derived from them (plan's request
    # refuses concurrent users without a TPOT, buyer regression 2026-12-01: --concurrent-users failed whenever one
    # device could not carry the rate)
    carry, _ = _rate_search(cat, m, acc, cards_of(acc, w.gpus), w.precision, w.tp, requests_per_s, None, None, error_bands,
                            lengths, None)
    if not cap_tok_s or carry is None:
        return Message("cmp.serving.not_served", rate=rate, why=why or Message("cmp.no_layout_fits"))
    limits = ([Message("cmp.serving.tpot", tpot_ms=tpot_s * 1000)] if tpot_s is not None
              else [Message("cmp.serving.tpot_default", tpot_ms=DEFAULT_SERVING_TPOT_S * 1000)]) + \
        ([Message("cmp.serving.ttft", ttft_ms=ttft_s * 1000)] if ttft_s is not None else [])
    thin = _quote_thin(capacity_quote(cat, m, acc, w, tpot_s, ttft_s, error_bands, lengths))
    # an expert-parallel layout names its groups (`labels.replica_words`, plan's formatter; a 910C's in dies)
    ep = {"layout": replica_words(w.gpus // w.tp, w.tp, w.ep, dies=dies_per_card(acc))} if w.ep > 1 else {}
    return Message("cmp.serving.not_served_row_ep" if ep else "cmp.serving.not_served_row", rate=rate, tp=w.tp,
                   replicas=w.gpus // w.tp, batch=w.batch, **ep,
                   rps=round_down_rate(cap_tok_s / lengths[1]), thin=thin, targets=Message("list.items", items=limits),
                   carry_batch=carry.micro_batch, tpot_ms=(carry.tpot_s or 0.0) * 1000,
                   ttft_ms=(carry.ttft_s or 0.0) * 1000)


def serving_row_layout(cat: Catalog, m: ModelArch, acc: Any, gpus: int, precision: str, tokens: float | None = None,
                       tp: int | None = None, batch: int | None = None, requests_per_s: float | None = None,
                       tpot_s: float | None = None, ttft_s: float | None = None,
                       error_bands: dict[str, ErrorBand] | None = None,
                       lengths: tuple[int, int] = DEFAULT_LENGTHS,
                       users: int | None = None,
                       users_cap: tuple[int | None, Message | None] | None = None) -> tuple[Workload, Message | None, Layout | None]:
    """The serving layout of a compare row on exactly `gpus` cards of `acc`, the one function `compare` and
    `migrate cost --task inference` take it from: `batch` given, that batch (`_inference_layout`); a rate, the cards'
    capacity and the rate's run batch (`_rate_layout`); else the planner's serving search within the stated TPOT (a
    steady-state capacity) or `DEFAULT_SERVING_TPOT_S` (`_served_layout`), through plan's evidence step with
    `error_bands` (a batch whose memory headroom is within the known error is set aside, as plan does). Returns
    (the workload, why nothing meets the targets or None, the rate's served layout or None). `users`: the
    concurrent users `requests_per_s` was derived from (`compare_devices`), `users_cap` the most of them the cards
    hold where the caller has it (`users_capacity`; None: searched here at `tp`)."""
    if batch is not None:
        w, why = _inference_layout(cat, m, acc, gpus, precision, batch, tokens, tp, lengths)
        return w, why, None
    target_tpot = serving_target(requests_per_s, tpot_s, ttft_s, lengths[1])[0]  # one output token: no TPOT bound
    if requests_per_s is not None:  # the layout's capacity in the row, the rate's run batch beside
        return _rate_layout(cat, m, acc, gpus, precision, tokens, tp, requests_per_s, target_tpot, ttft_s,
                            error_bands, lengths, users, users_cap)
    if tpot_s is not None:  # a stated TPOT: the capacity row a rate shows (`_capacity_row`, the one function)
        w, why = _capacity_row(cat, m, acc, gpus, precision, tokens, tp, tpot_s, ttft_s, error_bands, lengths)
        return w, why, None
    w, why = _served_layout(cat, m, acc, gpus, precision, tokens, tp, None, target_tpot, ttft_s, error_bands,
                            lengths)
    return w, why, None


def _served_facts(lay: Layout, requests_per_s: float, capacity_tok_s: float | None, dies: int = 1) -> dict[str, Any]:
    """What a compare row with a rate serves it at (the planner's `serving_layout` figures at the run batch); an
    expert-parallel layout names its groups (`labels.replica_words`; a card of `dies` dies, the 910C, in dies)."""
    share = lay.tokens_per_s / capacity_tok_s if capacity_tok_s else None
    ep = {"layout": replica_words(lay.dp, lay.tp, lay.ep, dies=dies)} if lay.ep > 1 else {}
    per_die = "_dies" if dies > 1 else ""  # the GiB needed is a die's on a 910C
    msg = Message(f"cmp.serving.served_ep{per_die}" if ep else f"cmp.serving.served{per_die}", **ep, rate=Message("cmp.serving.rate", rps=requests_per_s), tok_s=lay.tokens_per_s,
                  batch=lay.micro_batch, tp=lay.tp, replicas=lay.dp, share=share or 0.0,
                  tpot_ms=(lay.tpot_s or 0.0) * 1000, ttft_ms=(lay.ttft_s or 0.0) * 1000,
                  need=lay.memory_needed_bytes / 2**30)
    return {"requests_per_s": requests_per_s, "output_tokens_per_s": lay.tokens_per_s, "tp": lay.tp,
            "replicas": lay.dp, "batch": lay.micro_batch, "tpot_s": lay.tpot_s, "ttft_s": lay.ttft_s,
            "memory_needed_bytes": lay.memory_needed_bytes, "capacity_share": share,
            "note": render(msg), "note_i18n": msg.to_json()}


def training_request(m: ModelArch, task: str, gpus: int | None, precision: str, global_batch: int,
                     pins: dict[str, Any]) -> PlanRequest:
    """The planner's request behind a training row (`_training_layout`), its fewest cards (`migration_cost`) and
    the layout a training estimate that does not fit is pointed to (`cli.estimate_cmd.fitting_layout_hint`)."""
    return make_request(model=m.id, task=task, tokens=_SEARCH_TOKENS, gpus=gpus, global_batch=global_batch,
                        precision=precision if precision in _TRAIN_PRECISIONS else None, **pins)


def _training_layout(cat: Catalog, m: ModelArch, acc: Any, task: str, gpus: int, precision: str, tokens: float | None,
                     global_batch: int, pins: dict[str, Any],
                     network_offers: Sequence[Offer] | None = None,
                     error_bands: dict[str, ErrorBand] | None = None,
                     measures: bool = False) -> tuple[Workload, str | None, Message | str | None]:
    """The planner's fastest training layout on exactly `gpus` cards (`plan.search.fastest_layout`, prices aside;
    the pins apply; plan's evidence step with `error_bands`), as the `suanli estimate` workload; when none fits, the
    layout plan's why-not describes (`plan.search.leanest_training_layout`: the leanest plain AdamW layout a framework
    runs) and why; where there is none (the device excluded, no layout splits the cards), a plain layout no framework
    runs (widest tp within a node, the rest pipeline, ZeRO 3 over any data parallelism, full recompute; pins kept),
    its framework None, and why: such a row never runs (`compare_devices`). `measures` (`migrate cost`): plan's own
    layout there, optimizer offload or 8-bit AdamW where no plain one fits."""
    req = training_request(m, task, gpus, precision, global_batch, pins)
    # offers: the network(s) it runs on; bands: a layout plan would demote gives way as in plan (final buyer check 1)
    lay, why = fastest_layout_why(cat, m, req, acc.id, network_offers, error_bands, measures)
    if lay is None and why is not None:  # the layout the why-not's "the leanest layout needs N GiB" names
        lay = leanest_training_layout(cat, m, req, acc.id, network_offers)
    if lay is not None:
        w = plan_workload(lay, req)
        upd: dict[str, Any] = {"tokens": tokens}
        if task != "qlora" and precision != w.precision:
            upd["precision"] = precision  # the planner searched bf16 for a precision it does not plan (fp16, fp32)
        return w.model_copy(update=upd), lay.framework or None, why
    ranks = ranks_of(acc, gpus)  # the cards in the ranks the workload counts (a 910C: 2 a card)
    pp = pins.get("pp") or 1

    def plain(tp: int, zero: int | None) -> Workload:
        dp = ranks // (tp * pp) if ranks % (tp * pp) == 0 else 1
        return make_workload(task=task, gpus=ranks, tp=tp, pp=pp, zero=zero if zero is not None else (3 if dp > 1 else 0),
                             recompute=pins.get("recompute") or "full",
                             precision="nf4" if task == "qlora" else precision, batch=1,
                             grad_accum=max(1, math.ceil(global_batch / max(dp, 1))), tokens=tokens)

    def runs(w: Workload) -> bool:
        """Whether `estimate` takes the layout (a framework of the device's stack runs its tp heads and ZeRO)."""
        try:
            estimate(cat, m, acc, w)
        except InputError:
            return False
        return True

    # the widest tp within a node, ZeRO 3, then 1, then 0 over data parallelism, that `estimate` takes: compare never
    # refuses a layout it chose itself (buyer review 2026-12-03, task J.3: tp 8 of Qwen2.5-7B's 28 heads on a 910B1
    # failed the whole compare with MindSpeed-LLM's head rule, then ZeRO 3 beside tp its ZeRO rule); the user's pins
    # are kept as given (refused, the refusal names them)
    tps = [pins["tp"]] if pins.get("tp") else [t for t in reversed(TP_SIZES)
                                               if ranks % t == 0 and t <= ranks_of(acc, acc.max_cards_per_node)]
    zeros: list[int | None] = [pins["zero"]] if pins.get("zero") is not None else [None, 1, 0]
    tried = [plain(t, z) for t in tps for z in zeros]
    w = next((x for x in tried if runs(x)), tried[0])
    return w, None, why or Message("cmp.no_layout_fits")


def compare_devices(cat: Catalog, m: ModelArch, devices: list[str], task: str = "inference", gpus: int = 1,
                    precision: str | None = None, batch: int | None = None, tokens: float | None = None,
                    zero: int | None = None, region: str = offer_q.DEFAULT_REGION, kinds: Kinds = offer_q.DEFAULT_KINDS,
                    today: dt.date | None = None, tp: int | None = None, pp: int | None = None,
                    recompute: str | None = None, global_batch: int = DEFAULT_GLOBAL_BATCH, requests_per_s: float | None = None,
                    tpot_s: float | None = None, ttft_s: float | None = None,
                    error_bands: dict[str, ErrorBand] | None = None, input_tokens: int | None = None,
                    output_tokens: int | None = None, concurrent_users: int | None = None,
                    asked: str | None = None, hours: float | None = None,
                    days: float | None = None, tokens_per_s_per_user: float | None = None) -> list[dict[str, Any]]:
    """The same job on 2–4 devices: memory, speed, hours, cheapest cost and effective TFLOPS per CNY-per-hour,
    priced from the usable offers (`region`, `kinds`); each row names its offer, region and kinds.

    Each device runs the layout the planner finds fastest on exactly `gpus` of its cards (training:
    `plan.search.fastest_layout` with `global_batch` sequences per step; serving: replicas × tp = gpus at `batch`
    concurrent sequences per replica when given, else the planner's serving search `plan.search.serving_layout`
    within `requests_per_s`/`tpot_s`/`ttft_s`, or within `DEFAULT_SERVING_TPOT_S` when neither a rate nor a TPOT is
    stated: the most output tokens/s, which names the batch), `tp`/`pp`/`zero`/`recompute` pinning dimensions of it;
    the row names the layout (its batch included) and how the batch was chosen (`serving_rule`), and its numbers are
    `suanli estimate`'s for that layout. With the validated `error_bands` each row says the out-of-sample evidence
    for its speed column on the device's stack (`evidence`, as a plan does). Without a `precision` each device runs
    the default (`estimate.precision.default_precision`: an FP8 checkpoint in FP8 where the device runs it).
    `concurrent_users` means what it means to plan (`plan.request`: needs `tpot_s`; the rate by Little's law, each
    user holding a slot of the running batch), its rate then served as a stated one; so does `tokens_per_s_per_user`
    (the TPOT target is 1 / it, `plan.request.user_speed_tpot`). Each row names the checkpoint
    the job downloads (`model_id`: `lookup.checkpoint_id` of the task and the name `asked`, as plan and estimate do).
    Serving hours and cost are plan's (`serving_period`): a rate or a stated period (`hours`, `days`) bills the period
    (default one calendar month, 730 h, its set-up not billed; a stated one holds the set-up at its start), else
    `tokens` to generate bill their hours and the set-up, as `suanli plan` bills them. Each row's ¥ per card-hour is the list
    price of the offer that priced the row (`offer`, one offer per row); `job_cny_per_card_hour` is the job's own (tco's
    "job ¥/card-h": the bill ÷ cards ÷ hours, idle cards of a whole instance or a minimum term counted), and TFLOPS
    per ¥ is priced from it (from the list price where the row has no bill)."""
    full = cat
    priced = offer_q.filter_catalog(cat, region, kinds)
    if not 2 <= len(devices) <= 4:
        raise InputError("gpu", Message("err.give_to_devices_got", n_devices=len(devices)))
    ids = [lookup.accelerator(cat, g).id for g in devices]
    if len(set(ids)) != len(ids):
        raise InputError("gpu", Message("err.each_device_once", names_ids=', '.join(ids)))
    if gpus < 1:
        raise InputError("gpus", Message("err.must_be_at_least"))
    pins = {"tp": tp, "pp": pp, "zero": zero, "recompute": recompute}
    if tokens_per_s_per_user is not None:  # plan's meaning, the one rule: TPOT = 1 / the speed each user sees
        if task != "inference":
            raise InputError("tokens_per_s_per_user", Message("err.a_serving_target_training_compares_take",
                                                              field="global_batch"))
        try:
            tpot_s = user_speed_tpot(tokens_per_s_per_user, tpot_s)
        except ValueError as refused:  # both given and disagreeing: plan's refusal, named by the field
            raise InputError("tokens_per_s_per_user", getattr(refused, "i18n", None) or str(refused)) from None
    if task == "inference":
        for name in ("pp", "zero", "recompute"):
            if pins[name] is not None:
                raise InputError(name, Message("err.a_training_layout_dimension_serving_takes", field="tp"))
        if tp is not None and gpus % tp:
            raise InputError("tp", Message("err.must_divide_the_cards", gpus=gpus))
        if batch is not None and (requests_per_s or tpot_s or ttft_s):
            raise InputError("batch", _BATCH_OR_TARGETS)
    elif requests_per_s is not None or tpot_s is not None or ttft_s is not None:
        # the request's own field names (the CLI names them by their flags: cli.main._flag_of)
        raise InputError("requests_per_s" if requests_per_s is not None else "tpot_s" if tpot_s is not None else "ttft_s",
                         Message("err.a_serving_target_training_compares_take", field="global_batch"))
    elif batch is not None:
        raise InputError("batch", Message("err.training_the_planner_picks_the_micro", field="batch",
                                          global_field="global_batch"))
    make_workload(task=task, precision=precision or "bf16", recompute=recompute)  # a bad task/precision/recompute named once
    users_note: Message | None = None
    if concurrent_users is not None:  # plan's rule, the one function (`PlanRequest._derive_rate`, Little's law)
        if task != "inference":
            raise InputError("concurrent_users", Message("err.a_serving_target_training_compares_take",
                                                         field="global_batch"))
        if batch is not None:
            raise InputError("batch", _BATCH_OR_TARGETS)
        # tokens as given: beside users plan's refusal names the two fields given (`tokens`, `concurrent_users`),
        # not the rate derived from them (`serving_period` below would name `requests_per_s`)
        ureq = make_request(model=m.id, task="inference", gpus=gpus, concurrent_users=concurrent_users,
                            requests_per_s=requests_per_s, tpot_s=tpot_s, ttft_s=ttft_s, tokens=tokens,
                            input=input_tokens, output=output_tokens)
        requests_per_s, users_note = ureq.requests_per_s, ureq.rate_note()
    period = serving_period(task, requests_per_s, tokens, hours, days)  # plan's serving period (None: a job's hours)
    # plan's sentence for it (`plan.assume.period`: the default month, or as given)
    period_note = (Message("plan.assume.period_given" if period[1] else "plan.assume.period",
                           hours=duration(period[0]), field="hours") if period is not None else None)
    rule: Message | None = None
    # the serving lengths (None: not given; serving defaults to 512 prompt / 256 output tokens, as plan): a training
    # compare refuses either whenever it is given, its default value included (`--input 512` was accepted silently)
    if task != "inference" and (input_tokens is not None or output_tokens is not None):
        raise InputError("input" if input_tokens is not None else "output",
                         Message("err.serving_lengths_only", input_field="input", output_field="output"))
    input_tokens = DEFAULT_INPUT_TOKENS if input_tokens is None else input_tokens
    output_tokens = DEFAULT_OUTPUT_TOKENS if output_tokens is None else output_tokens
    lengths = (input_tokens, output_tokens)
    if task == "inference":
        rule = Message("cmp.serving.lengths", input_field="input", output_field="output",
                       rule=(Message("cmp.serving.batch_given", batch=batch, field="batch")
                                                     if batch is not None
                                                     else serving_target(requests_per_s, tpot_s, ttft_s,
                                                                         output_tokens)[1]),
                       input=input_tokens, output=output_tokens)
    rows = []
    for g in devices:
        acc = lookup.accelerator(cat, g)
        prec = precision or default_precision(m, acc, lookup.stack(cat, acc.stack), task)  # the one default rule
        why: Message | str | None
        served_lay: Layout | None = None  # with a rate: the planner's layout that serves it (its run batch)
        nets = _networks(priced, acc, gpus, task == "inference")
        layouts: list[tuple[Workload, str | None, Message | str | None]]
        steady_row = _steady_row(batch, requests_per_s, tpot_s)
        # --concurrent-users: the most users plan accepts on these cards (every tp an offer here rents, or the
        # pinned one) and what binds it, the number plan's relax hint quotes (`users_capacity`): the row's max_users
        # and its not-served sentence
        users_cap = (users_capacity(cat, m, acc, gpus, prec, tp, tpot_s, ttft_s, error_bands, lengths,
                                    concurrent_users, _instance_ranks(priced, acc))
                     if task == "inference" and concurrent_users else None)
        if task == "inference":
            w, why, served_lay = serving_row_layout(cat, m, acc, gpus, prec, tokens, tp, batch, requests_per_s,
                                                    tpot_s, ttft_s, error_bands, lengths, concurrent_users,
                                                    users_cap)
            if tp is None:  # a replica no usable offer rents gives way to the best layout one does (plan's rule)
                w, why, served_lay, _ = _rentable_serving_row(
                    cat, priced, m, acc, gpus, prec, tokens, batch, requests_per_s, tpot_s, ttft_s, error_bands,
                    lengths, concurrent_users, (w, why, served_lay), users_cap)
            layouts = [(w, None, why)]
        else:  # a multi-node job: the fastest layout on each network its offers rent, as plan searches it
            layouts = [_training_layout(cat, m, acc, task, gpus, prec, tokens, global_batch,
                                        {k: v for k, v in pins.items() if v is not None}, _on_network(priced, acc, net),
                                        error_bands)
                       for net in nets]
        dl_bytes = weights_bytes(m, "bf16" if task != "inference" else w.precision)  # estimate.setup's download
        # the job estimated once per network its offers rent (a multi-node training job: each spanning offer's
        # inter-node network, `offers.offer_network_gbit_per_s`, as plan evaluates it); priced on the offers that
        # can rent it on that network (`_priced_job`: `offers.can_rent`, each offer on its own hours); the offer by
        # the planner's rule (`fresh_first`: a fresh price before a stale one, then the cheapest)
        tries = [(_priced_job(cat, priced, m, acc, lay_[0], net, gpus, task == "inference", dl_bytes, error_bands,
                              today, period), lay_) for net, lay_ in zip(nets, layouts)]
        best = fresh_first(((t_[0][4][0], t_[0][4][1], t_) for t_ in tries if t_[0][4] is not None), today)
        (e, c, hours, rentable, found), (_, framework, why) = best[2] if best is not None else tries[0]
        w = e.workload
        # a training row with a why-not never runs (plan lists the device under "Why not" with that line): its
        # layout is the one the line names, which does not fit, or none a framework runs on these cards
        # (`_training_layout`), so it has no hours, cost or speed whatever the estimate of that layout says (buyer
        # review 2026-12-03, task H: "¥3,173" for 72B LoRA on 8 × RTX 4090 in tp8 with ZeRO 0, which LLaMA-Factory
        # does not run); with no framework its memory fit is no answer either (None)
        never = task != "inference" and why is not None
        if never:
            hours, found = None, None
        evidence = _speed_evidence(cat, e)
        fits = c["memory"]["fits"] if not never or framework else None
        cost = found[2][0] if found else None
        if found:
            hours = found[2][1]  # the chosen offer's hours
        # unpriced: no usable price, or prices but no offer that can rent the job; the line names the device
        # unpriced: no usable price, or prices but no offer that can rent the job; the line names the device and
        # plan's why-not for it (`search.no_rent_why`, one function: a replica wider than the largest instance)
        # (tp and the largest instance in ranks, a 910C's dies; the expert-parallel group a replica needs)
        dev_offers = [o for o in priced.offers if o.device == acc.id]
        unpriced = (no_price(full, acc.id, region, kinds) if not dev_offers
                    else Message("cmp.unpriced_device", device=both(acc.name, acc.name_zh or acc.name),
                                 why=no_rent_why(w.tp, _instance_ranks(priced, acc), task == "inference",
                                                 dies_per_card(acc), w.ep, w.gpus,
                                                 ranks_of(acc, acc.max_cards_per_node)))
                    if hours and not any(t_[0][3] for t_ in tries) else None)
        # one offer per row: the ¥ per card-hour and TFLOPS per ¥ are the offer's that priced the row (its price at
        # full use of its billing unit, `offers.card_hour_price`); a row with no bill (no hours) takes the offer
        # `card_hour_offer`'s rule picks among those that can rent the job; none: blank
        used = next((o for o in priced.offers if cost is not None and o.id == cost.offer_id), None)
        if used is None and hours is None:
            basis = card_hour_among([o for t_ in tries for o in t_[0][3]], today)
            used = basis[1] if basis else None
        price = offer_q.card_hour_price(used) if used is not None else None
        # the job's own price per card-hour, tco's "job ¥/card-h" (`plan.cost.job_cny_per_card_hour`: the bill ÷ the
        # cards asked for ÷ the hours billed), so the cards an instance or a minimum term leaves idle count; the
        # value column is priced from it (a row with no bill: the list price)
        job_price = job_cny_per_card_hour(cost.cost_cny, gpus, hours) if cost is not None and hours else None
        peak = _peak_tflops(acc, prec)
        eff = c["scaling"].get("efficiency") or 1.0
        value_price = job_price if job_price is not None else price
        # the FP8 checkpoint converted to 16-bit, or a quantized precision no checkpoint is published in (one rule
        # each; never both: the first is about 16-bit precisions, the second about quantized ones)
        native = (native_precision_note(m, acc, lookup.stack(cat, acc.stack), task, w.precision)
                  or unpublished_checkpoint_note(m, lookup.stack(cat, acc.stack), task, w.precision, w.quant_method,
                                                 stacks=cat.stacks))
        # the plan's memory-within-error check, the one function (buyer regression 4)
        tight = (memory_within_error(dict(error_bands or {}), lookup.stack(cat, acc.stack), task,
                                     e.memory.needed_bytes, e.memory.usable_bytes, dies=dies_per_card(acc))
                 if fits and e.memory.needed_bytes is not None and e.memory.usable_bytes is not None else None)
        short = memory_likely_short(tight)  # the bias exceeds the headroom: "likely short", not "fits (tight)"
        pool = _pool_note(cat, e, dies_per_card(acc))
        # a serving capacity (a rate or a TPOT stated): the rate plan serves at most on the row's cards and tp, and
        # above which it warns of a thin margin (`capacity_quote`, plan's rule); a not-served row's note says it
        quote = (capacity_quote(cat, m, acc, w, tpot_s, ttft_s, error_bands, lengths)
                 if task == "inference" and steady_row and fits else None)
        at_most = (Message("cmp.serving.at_most", rps=round_down_rate(quote.max_requests_per_s or 0.0),
                           thin=_quote_thin(quote)) if quote is not None and why is None else None)
        # --concurrent-users: the most users plan accepts on these cards (`users_cap` above)
        max_users, users_quote = users_cap if users_cap is not None and fits else (None, None)
        if at_most is not None and max_users is not None:
            # max_users is over every layout (README): where its layout is not the row's, the sentence says so
            at_most = Message("cmp.serving.at_most_users" if _users_on_row_layout(users_quote, w)
                              else "cmp.serving.at_most_users_other", rate=at_most, slots=max_users, layout=users_quote)
        # what the row's offer leaves out of its card (a 910B without its variant, an A100 node without SXM or
        # PCIe): plan's caveats, the one builder, on the row's layout judged as the row is
        tok_s = c["speed"].get("train_tokens_per_s") or c["speed"].get("output_tokens_per_s")
        caveats = [*offer_caveats(cat, m, acc, used, Rerun(w, tok_s, tpot_s, ttft_s, steady_row, error_bands)),
                   *_export_caveat(acc, used)]
        # serving: the row's bill per million output tokens at the load it is sized for (plan's field, one function):
        # with a rate (or users), that rate × output tokens where the row's cards carry it (`served`); without one,
        # the capacity the row quotes (its tokens/s: a batch job's tokens); over the hours the period serves
        load_tok_s, per_m_basis, served_h = None, None, None
        if task == "inference" and fits is not False:
            per_m_basis = "rate" if requests_per_s is not None else "capacity"
            if requests_per_s is None:
                load_tok_s = tok_s
            elif served_lay is not None:
                load_tok_s = requests_per_s * output_tokens
            served_h = (period_served_hours(period[0], float(c["time"].get("first_serve_hours") or 0.0), period[1])
                        if period is not None else c["time"].get("compute_hours", c["time"].get("hours")))
        rows.append({
            "model_id": lookup.checkpoint_id(m, task, asked),  # what the job downloads (plan's model_id)
            "device": acc.id,
            "device_name": acc.name,
            "device_name_i18n": device_name_message(acc.name, acc.name_zh).to_json(),
            "layout": _layout_facts(w, framework, w.engine, pins, dies_per_card(acc)),
            "layout_note": render(why) if why is not None else None,
            "layout_note_i18n": why.to_json() if isinstance(why, Message) else None,
            "serving_rule": render(rule) if rule is not None else None,
            "serving_rule_i18n": rule.to_json() if rule is not None else None,
            # --concurrent-users: the rate it sends (plan's `rate_note`, Little's law); None without it
            "users_note": render(users_note) if users_note is not None else None,
            "users_note_i18n": users_note.to_json() if users_note is not None else None,
            # serving a period (a rate, or --hours/--days): its hours and whether given, as plan assumes them
            "period_note": render(period_note) if period_note is not None else None,
            "period_note_i18n": period_note.to_json() if period_note is not None else None,
            # the TPOT the row was chosen by and quotes: a serving capacity (a rate or a TPOT stated) the steady-state
            # one a user sees while the rate is served (`speed.steady_tpot_s`, estimate's tpot_steady_s: the decode
            # step + the batch's prefill ÷ output); a batch job (--batch, or neither a rate nor a TPOT: the default
            # 200 ms bound on the decode step) its decode step; `tpot_kind` says which
            "tpot_s": (c["speed"].get("tpot_steady_s") if steady_row else c["speed"].get("tpot_s"))
            if task == "inference" else None,
            "tpot_kind": ("steady" if steady_row else "decode_step") if task == "inference" else None,
            # with a rate: the row's layout and tokens/s are its capacity (the full batch × replicas); this is the
            # rate served at the batch each replica runs, with that batch's TPOT and TTFT (None: not served)
            "served": (_served_facts(served_lay, requests_per_s, c["speed"].get("output_tokens_per_s"),
                                 dies_per_card(acc))
                       if served_lay is not None and requests_per_s is not None else None),
            "max_requests_per_s": round_down_rate(quote.max_requests_per_s or 0.0) if quote is not None else None,
            "comfortable_requests_per_s": (round_down_rate(quote.comfortable_requests_per_s or 0.0)
                                           if quote is not None and quote.rate_thin_i18n else None),
            "max_users": max_users,
            "capacity_note": render(at_most) if at_most is not None else None,
            "capacity_note_i18n": at_most.to_json() if at_most is not None else None,
            "memory_per_gpu_bytes": c["memory"]["per_gpu_bytes"],
            "memory_capacity_bytes": c["memory"]["capacity_bytes"],
            # plan's memory figure (its GiB/card column): needed of usable, the engine's unused KV pool not needed
            "memory_needed_bytes": e.memory.needed_bytes,
            "memory_usable_bytes": e.memory.usable_bytes,
            "memory_pool_note": render(pool) if pool is not None else None,
            "memory_pool_note_i18n": pool.to_json() if pool is not None else None,
            "breakdown_bytes": c["memory"]["breakdown_bytes"],
            "fits": fits,
            "fits_tight": tight is not None,
            "memory_warning": render(tight) if tight is not None else None,
            "memory_warning_i18n": tight.to_json() if tight is not None else None,
            "likely_short": short is not None,
            "memory_likely_short": render(short) if short is not None else None,
            "memory_likely_short_i18n": short.to_json() if short is not None else None,
            **fit_label(tight, fits),  # the fits cell's words, estimate's rule (`known_error.fit_word`)
            # a row that does not fit never runs (estimate's rule): its speed is what it would reach if it did,
            # kept for --json beside `runs: false`; the CLI shows no speed, hours or cost for it
            "runs": fits is not False and not never,
            "tokens_per_s": tok_s if fits is not None or not never else None,  # no framework: no speed at all
            "load_output_tokens_per_s": load_tok_s,
            "cny_per_million_output_tokens": cny_per_million_output_tokens(cost.cost_cny if cost else None,
                                                                           load_tok_s, served_h),
            "cny_per_million_basis": per_m_basis,
            "scaling_efficiency": eff,
            "hours": hours,
            "cost_cny": cost.cost_cny if cost else None,
            "offer": used.id if used is not None else None,
            # the chosen offer's bill in words, as tco gives it (`job_cost`: `billing_note` when the rounding up or the
            # minimum term leaves most paid hours unused, a machine or block rented whole)
            "notes": list(cost.notes) if cost else [],
            "notes_i18n": list(cost.notes_i18n) if cost else [],
            "cny_per_card_hour": price,
            "card_hour_billing_unit": used.billing_unit if used is not None else None,
            "job_cny_per_card_hour": job_price,
            "dense_tflops": peak,
            # per ¥ of the job's price per card-hour (the list price where the row has no bill)
            "effective_tflops_per_cny_hour": (yuan_per_effective_tflops(value_price, peak, eff)
                                              if value_price and peak else None),
            # the price that figure divides by: this job's bill per card-hour, else the list price by its basis
            "value_basis": ("job" if job_price is not None else card_hour_basis(used.billing_unit)
                            if used is not None else None),
            "stack": acc.stack,
            "evidence": render(evidence) if evidence is not None else None,
            "evidence_i18n": evidence.to_json() if evidence is not None else None,
            "precision_note": render(native) if native is not None else None,
            "precision_note_i18n": native.to_json() if native is not None else None,
            # the row's offer does not name the card's variant, form factor or memory size (plan's warnings)
            "offer_warnings": [render(x) for x in caveats],
            "offer_warnings_i18n": [x.to_json() for x in caveats],
            "domestic": acc.domestic,
            **pricing_basis(region, kinds),
            "offer_facts": offer_facts(used, today) if used else None,
            # no usable price, or prices but no offer that can rent the job (plan's `why.no_usable_offer`)
            "no_price": None if unpriced is None else render(unpriced),
            "no_price_i18n": None if unpriced is None else unpriced.to_json(),
        })
    return rows


def _export_caveat(acc: Any, offer: Offer | None) -> list[Message]:
    """Plan's warning on a device the catalog marks export-controlled for China (`offers.china_export_controlled`),
    on a row or side priced on an offer of it, whatever the offer's region: a Chinese listing is no licence (buyer
    review G 2026-12-02: compare and migrate cost of an RTX 4090 or H800 said nothing of it, plan did)."""
    if offer is None or not offer_q.china_export_controlled(acc):
        return []
    return [Message("plan.warn.china_export", device=both(acc.name, acc.name_zh), device_id=acc.id)]


def rate_not_carried(why: Message | str | None) -> bool:
    """Whether a serving row's why-not is `_rate_layout`'s "the rate is not carried" (its capacity row within the
    latency targets stands; the rate is beyond it), not "no configuration meets the targets" (the batch-1 row)."""
    return isinstance(why, Message) and why.id.startswith("cmp.serving.not_served")


def _rentable_serving_row(cat: Catalog, priced: Catalog, m: ModelArch, acc: Any, gpus: int, precision: str,
                          tokens: float | None, batch: int | None, requests_per_s: float | None,
                          tpot_s: float | None, ttft_s: float | None, error_bands: dict[str, ErrorBand] | None,
                          lengths: tuple[int, int], users: int | None,
                          row: tuple[Workload, Message | None, Layout | None],
                          users_cap: tuple[int | None, Message | None] | None = None
                          ) -> tuple[Workload, Message | None, Layout | None, int | None]:
    """A compare serving row on a layout its offers can rent, as plan picks only layouts an offer rents
    (`offers.can_rent`, the one rule): the searched `row` when some usable offer of the device rents its replica
    group (or none prices the device: the row says so), else of the narrower tensor-parallel sizes an offer rents
    whose replica fits and meets the latency targets at some batch, each searched pinned (`serving_row_layout`), the row that carries the rate (no why-not),
    then the most output tokens/s; none: the searched row, unpriced with plan's why-not (buyer review: 4 × tp2 unpriced on H20 1-card rentals, while plan serves the users on tp1). Returns
    (workload, why, served layout, the tp pinned or None)."""
    offers = [o for o in priced.offers if o.device == acc.id]
    cpn = acc.max_cards_per_node

    def rents(w: Workload) -> bool:  # the replica group in cards (a 910C: 2 ranks a card)
        return any(bool(offer_q.can_rent(o, cpn, gpus, cards_of(acc, w.tp * w.pp * w.ep), True)) for o in offers)

    if not offers or rents(row[0]):
        return (*row, None)
    best: tuple[tuple[bool, float], tuple[Workload, Message | None, Layout | None, int | None]] | None = None
    for t in TP_SIZES:
        if t >= row[0].tp or ranks_of(acc, gpus) % t or not any(
                bool(offer_q.can_rent(o, cpn, gpus, cards_of(acc, t), True)) for o in offers):
            continue
        w, why, served = serving_row_layout(cat, m, acc, gpus, precision, tokens, t, batch, requests_per_s, tpot_s,
                                            ttft_s, error_bands, lengths, users, users_cap)
        if not rents(w):
            continue
        c = estimate(cat, m, acc, w, dict(error_bands or {})).contract()
        # a replica too big for the cards an offer rents, or one that meets the latency targets at no batch: the
        # searched row stays, unpriced with plan's why-not (the rentable one would not run the job either)
        if c["memory"]["fits"] is False or not (why is None or rate_not_carried(why)):
            continue
        key = (why is None, c["speed"].get("output_tokens_per_s") or 0.0)
        if best is None or key > best[0]:
            best = (key, (w, why, served, t))
    return best[1] if best is not None else (*row, None)


def _instance_ranks(priced: Catalog, acc: Any) -> int:
    """The most ranks one instance of `acc`'s usable offers in `priced` holds (`offers.max_cards`, in ranks: a
    910C's dies), the limit plan's `_rentable` puts on a replica; 0 where no offer prices the device."""
    cards = max((offer_q.max_cards(o, acc.max_cards_per_node) for o in priced.offers if o.device == acc.id),
                default=0)
    return ranks_of(acc, cards) if cards else 0


def _steady_row(batch: int | None, requests_per_s: float | None, tpot_s: float | None) -> bool:
    """Whether a serving row quotes (and is judged on) the steady-state TPOT a user sees while a rate is served (a
    rate or a TPOT stated, no --batch: a capacity) rather than the decode step of a batch job."""
    return batch is None and (requests_per_s is not None or tpot_s is not None)


def _pool_note(cat: Catalog, e: Estimate, dies: int = 1) -> Message | None:
    """A pre-allocating engine's reservation (vLLM gpu_memory_utilization, `estimate.memory.preallocate_fraction`):
    what the card holds in use (memory_per_gpu_bytes, the unused KV pool included) beside the needed / usable figure
    plan prints; None where the engine allocates on demand. A card of `dies` dies (the 910C): the figures are a
    die's (a rank's), said per die."""
    m = e.memory
    frac = preallocate_fraction(cat, e.workload.engine)
    if frac is None or "kv_cache_pool_unused" not in m.breakdown_bytes or m.needed_bytes is None or m.usable_bytes is None:
        return None
    return Message("cmp.memory_pool_dies" if dies > 1 else "cmp.memory_pool", engine=e.workload.engine, fraction=frac, reserved=m.per_gpu_bytes / 2**30,
                   need=m.needed_bytes / 2**30, usable=m.usable_bytes / 2**30)


def _networks(priced: Catalog, acc: Any, gpus: int, serving: bool) -> list[float | None]:
    """The networks a job is estimated on: a training job over more than one node runs on the inter-node network
    of the spanning offer that rents it, so once per distinct `offers.offer_network_gbit_per_s` of the device's
    spanning offers (NaN: not published, the estimate's default), as `plan.search._networks`; else [None] (no cap)."""
    if serving or gpus <= acc.max_cards_per_node:
        return [None]
    out: list[float | None] = []
    for o in priced.offers:
        if o.device == acc.id and offer_q.can_span_nodes(o):
            g = offer_q.offer_network_gbit_per_s(o)
            if not any(x is not None and ((math.isnan(g) and math.isnan(x)) or g == x) for x in out):
                out.append(g)
    return out or [float("nan")]


def _on_network(priced: Catalog, acc: Any, net: float | None) -> list[Offer] | None:
    """The device's spanning offers on network `net` (`_networks`), the offers a multi-node layout is searched on;
    None (no network: the planner's layout search as it is) for a single-node or serving job."""
    if net is None:
        return None
    return [o for o in priced.offers if o.device == acc.id and offer_q.can_span_nodes(o)
            and ((math.isnan(net) and math.isnan(offer_q.offer_network_gbit_per_s(o)))
                 or offer_q.offer_network_gbit_per_s(o) == net)]


def serving_period(task: str, requests_per_s: float | None, tokens: float | None, hours: float | None,
                   days: float | None) -> tuple[float, bool] | None:
    """The serving period a compare row is billed for: plan's request (`make_request`) with these fields, so
    compare refuses and accepts what plan does (a period for training, both `hours` and `days`, a period beside
    `tokens` without a rate, a period with neither a rate nor tokens, the bounds), and its
    (`PlanRequest.serving_hours`: `hours`, `days` × 24 or the 730-h month; `setup_in_period`: a stated period holds
    the set-up at its start) where it serves a rate; None where the hours come from `tokens` to generate (a job) or
    nothing gives them."""
    if hours is None and days is None and not (task == "inference" and requests_per_s is not None):
        return None
    req = make_request(model="x", task=task, requests_per_s=requests_per_s, tokens=tokens, hours=hours, days=days)
    return (req.serving_hours, req.setup_in_period) if req.requests_per_s else None


def _priced_job(cat: Catalog, priced: Catalog, m: ModelArch, acc: Any, w: Workload, net: float | None, gpus: int,
                serving: bool, dl_bytes: float, error_bands: dict[str, ErrorBand] | None,
                today: dt.date | None,
                period: tuple[float, bool] | None = None) -> tuple[Any, dict[str, Any], float | None, list[Offer], Any]:
    """The job `w` estimated on network `net` (None: no cap; NaN: the estimate's default) and priced on the offers
    that can rent it there (`offers.can_rent` with `net`, the planner's rule), each on its own hours (its download
    rate, `plan.cost.job_hours_on_offer`): (estimate, contract, billed hours, rentable offers, the `fresh_first`
    choice as (cost, offer, (JobCost, hours)) or None). `period` (`serving_period`): serving billed for the period as
    plan bills it (`plan.search._price`): a stated one holds the first serve (its download at the offer's rate) at
    its start, max(period, first serve); the default month bills the month alone."""
    if net is not None:
        w = w.model_copy(update={"inter_node_gbit_per_s": None if math.isnan(net) else net})
    e = estimate(cat, m, acc, w, dict(error_bands or {}))
    c = e.contract()
    t = c["time"]
    # the hours a job is billed: compute and set-up (`total_hours`, as plan and estimate count them); a job that
    # does not fit has no time
    hours_fit = c["memory"]["fits"] is not False
    hours = t.get("total_hours", t.get("hours")) if hours_fit else None
    dl_h = (t.get("setup_breakdown_hours") or t.get("first_serve_breakdown_hours") or {}).get("download_h", 0.0)
    rentable = [o for o in priced.offers if o.device == acc.id
                and bool(offer_q.can_rent(o, acc.max_cards_per_node, gpus, cards_of(acc, w.tp * w.pp * w.ep),
                                          serving, net))]  # the replica group in cards (a 910C: 2 ranks a card)
    if period is not None and hours_fit:
        first_h = float(t.get("first_serve_hours") or 0.0)
        hours, stated = period

        def on_offer(o: Offer) -> float:  # plan's rule, the one function (`search._price`)
            return period_billed_hours(hours, job_hours_on_offer(o, first_h, dl_bytes, dl_h)) if stated else hours
    else:
        def on_offer(o: Offer) -> float:
            return job_hours_on_offer(o, hours or 0.0, dl_bytes, dl_h)
    found = fresh_first(((jc.cost_cny, o, (jc, oh)) for o in rentable
                         for oh in (on_offer(o),)
                         for jc in (job_cost(o, gpus, oh),)), today) if hours else None
    return e, c, hours, rentable, found


def _speed_evidence(cat: Catalog, e: Any) -> Message | None:
    """What the out-of-sample cases say about the speed column of a compare row on its device's stack (the
    estimate's band for its speed group, `estimate.evidence_message`); None without validated bands."""
    group = next((g for g in ("decode-speed", "training-throughput", "diffusion-speed") if g in e.error_band), None)
    if group is None:
        return None
    stack = lookup.stack(cat, e.device.stack)
    # an MoE model: the stack's MoE cases beside (estimate.band_evidence)
    return band_evidence(e.error_band[group], group, both(stack.name, stack.name_zh))


def tco_rows(cat: Catalog, device: str, hours: float, gpus: int = 1, subsidy: float = 0.0,
             tokens_per_s: float | None = None, utilization: float = 1.0, region: str = offer_q.DEFAULT_REGION,
             kinds: Kinds = offer_q.DEFAULT_KINDS, today: dt.date | None = None) -> list[dict[str, Any]]:
    """Cost of holding `gpus` cards for `hours` under every usable offer of the device (`region`, `kinds`), in the
    planner's order (below); each row names the offer's kind, region (international marked), scope and staleness."""
    acc = lookup.accelerator(cat, device)
    if not (math.isfinite(hours) and 0 < hours <= 1e6):
        raise InputError("hours", Message("err.must_be_a_number_in_e6", hours=hours))
    if gpus < 1:
        raise InputError("gpus", Message("err.must_be_at_least"))
    if tokens_per_s is not None and not (math.isfinite(tokens_per_s) and 0 < tokens_per_s <= 1e12):
        raise InputError("tokens-per-s", Message("err.must_be_a_positive_finite_number", tokens_per_s=tokens_per_s))
    if subsidy and not acc.domestic:
        raise InputError("subsidy", Message("err.subsidies_apply_to_domestic_compute_is", acc_id=acc.id))
    rows = []
    for o in offer_q.usable_offers(cat, region, kinds, device=acc.id):
        c = job_cost(o, gpus, hours, subsidy)
        notes, notes_i18n = list(c.notes), list(c.notes_i18n)
        # plan's offer rule for a job on these cards (`offers.can_rent`, the one rentability rule): an offer none of
        # whose instances holds `gpus` cards rents no training job on them; plan rents its separate instances only
        # for serving replicas whose tensor-parallel group one instance holds (AutoDL's 1-card H800: 8 separate
        # 1-card instances, never one 8-card job)
        msg = separate_instances(acc, o, gpus)
        one_job = msg is None
        if msg is not None:
            notes.append(render(msg))
            notes_i18n.append(msg.to_json())
        row: dict[str, Any] = {
            "offer": o.id, "provider": o.provider, "billing_unit": o.billing_unit, "units_billed": c.units_billed,
            "cards_rented": c.cards_rented, "cost_cny": c.cost_cny, "cost_cny_max": c.cost_cny_max,
            # two prices per card-hour: the offer's at full use (a 730-h month, as compare shows it) and this job's
            "list_cny_per_card_hour": offer_q.card_hour_price(o),
            "effective_cny_per_card_hour": job_cny_per_card_hour(c.cost_cny, gpus, hours), "notes": notes,
            "notes_i18n": notes_i18n, "one_job": one_job,
            # the subsidy (`plan.cost.subsidy_note`, job_cost's): the bill before it and the line that says it
            "subsidy": c.subsidy, "gross_cost_cny": c.gross_cost_cny, "subsidy_note": c.subsidy_note,
            "subsidy_note_i18n": c.subsidy_note_i18n,
            "date": o.date, "source": o.source, **offer_facts(o, today), **pricing_basis(region, kinds),
        }
        if tokens_per_s:
            row["cny_per_million_tokens"] = cost_per_million_tokens(c.cost_cny / hours, tokens_per_s, utilization)
        rows.append(row)
    if not rows:
        raise InputError("gpu", no_price_message(cat, acc.id, region, kinds), no_price(cat, acc.id, region, kinds))
    # the order the planner chooses in (`fresh_first`): fresh prices first, then the cheapest; an offer that cannot
    # hold the cards as one job (plan's rule, `one_job`) after every offer that can
    rows.sort(key=lambda r: (not r["one_job"], r["stale"] is not None, r["cost_cny"]))  # offer_facts' stale: offers.is_stale on today
    return rows


def value_table(cat: Catalog, precision: str = "bf16", scaling_efficiency: float = 1.0,
                region: str = offer_q.DEFAULT_REGION, kinds: Kinds = offer_q.DEFAULT_KINDS,
                today: dt.date | None = None) -> list[dict[str, Any]]:
    """Per device with a usable offer and a dense peak: the seeds' 每元有效TFLOPS (dense TFLOPS × efficiency ÷ CNY per
    card-hour by `card_hour_offer`), best first; each row names the offer that set the price, its billing unit and
    whether it is international."""
    out: list[dict[str, Any]] = []
    priced = offer_q.filter_catalog(cat, region, kinds)
    for acc in cat.accelerators:
        c = card_hour_offer(priced, acc.id, "any", kinds, today)
        peak = _peak_tflops(acc, precision)
        if c is None or peak is None or c[0] <= 0:
            continue
        price, o = c
        out.append({"device": acc.id, "device_name": acc.name,
                    "device_name_i18n": device_name_message(acc.name, acc.name_zh).to_json(), "vendor": acc.vendor, "domestic": acc.domestic,
                    "cny_per_card_hour": price, "card_hour_billing_unit": o.billing_unit,
                    "card_hour_basis": card_hour_basis(o.billing_unit), "dense_tflops": peak,
                    "effective_tflops_per_cny_hour": yuan_per_effective_tflops(price, peak, scaling_efficiency),
                    "offer": o.id, "offer_kind": o.kind, "international": offer_q.is_international(o.region),
                    **pricing_basis(region, kinds)})
    out.sort(key=lambda r: -r["effective_tflops_per_cny_hour"])
    return out


def _serving_workload(cat: Catalog, m: ModelArch, acc: Any, gpus: int,
                      error_bands: dict[str, ErrorBand] | None = None, precision: str | None = None,
                      targets: ServingTargets | None = None) -> tuple[Workload, dict[str, Any], Message | None]:
    """Serving on `gpus` cards as `compare --gpus N` lays out its row (`serving_row_layout`, the one function): the
    planner's serving search (replicas × tp = gpus, the batch per replica with the most output tokens/s) within
    `DEFAULT_SERVING_TPOT_S` (MLPerf Inference's Server bound, as `compare` without targets), through plan's
    evidence step with `error_bands` (a batch whose memory headroom is within the known error is set aside, as in
    compare: the saving rests on a layout the tool expects to run); when no configuration meets it, the batch-1
    layout and why. The migration saving compares devices at this serving layout, not at batch-1 decode.
    `targets` (`migrate cost --requests-per-s/--tpot/--ttft/--input/--output`): compare's row for them, the same
    function and arguments (a rate: the cards' capacity within the targets, the rate's run batch beside), so the
    saving is for the job asked about; `precision` as compare's --precision (default: the device's default)."""
    tg = targets or ServingTargets()
    # an FP8 checkpoint: FP8 where it runs (the one default rule, as compare)
    prec = precision or default_precision(m, acc, lookup.stack(cat, acc.stack), "inference")
    w, why, served = serving_row_layout(cat, m, acc, gpus, prec, None, None, None, tg.requests_per_s, tg.tpot_s,
                                        tg.ttft_s, error_bands, tg.lengths, tg.concurrent_users)
    # a rate the cards' capacity row does not carry (`_rate_layout`'s not-served sentences) keeps that row's batch,
    # which meets the TPOT: the rule says the rate is not carried, not "batch 1" (buyer review: "batch 1: no
    # configuration meets the TPOT target" beside batch 93)
    batch_rule = (Message("mig.batch_rule.search") if why is None
                  else Message("mig.batch_rule.not_carried", rate=Message("cmp.serving.rate", rps=tg.requests_per_s))
                  if rate_not_carried(why) else Message("mig.batch_rule.batch1"))
    return w, _serving_facts(acc, gpus, w, tg, served.micro_batch if served is not None else None, batch_rule), why


def _serving_facts(acc: Any, gpus: int, w: Workload, tg: ServingTargets, served_batch: int | None,
                   batch_rule: Message) -> dict[str, Any]:
    """A `migrate cost` serving row's `workload` (its layout, the targets, the batch each replica runs for a rate),
    one shape for compare's row (`_serving_workload`) and the bill's (`_bill_row`)."""
    tpot = serving_target(tg.requests_per_s, tg.tpot_s, tg.ttft_s, tg.lengths[1])[0]
    return {"task": "inference", "gpus": gpus, **_ranks_facts(acc, w), "tp": w.tp, "ep": w.ep,
            "replicas": w.gpus // w.tp, "batch": w.batch,
            "engine": w.engine, "precision": w.precision,
            "tpot_target_s": tpot if tpot is not None or tg.requests_per_s is not None else DEFAULT_SERVING_TPOT_S,
            "ttft_target_s": tg.ttft_s, "requests_per_s": tg.requests_per_s,
            "input": tg.lengths[0], "output": tg.lengths[1],
            "served_batch": served_batch,
            "batch_rule": render(batch_rule), "batch_rule_i18n": batch_rule.to_json()}


def _bill_row(cat: Catalog, m: ModelArch, acc: Any, bill: dict[str, Any], tg: ServingTargets,
              error_bands: dict[str, ErrorBand] | None = None) -> tuple[Workload, dict[str, Any], Message | None]:
    """`migrate cost`'s serving row for a side whose bill carries the rate (`_rate_bill`): the bill's own
    configuration — its cards, tp, expert groups, replicas, precision and framework, as plan sized it — so the row
    shows the very layout the bill is computed for (buyer review 2026-12-03: compare's row on the bill's cards took
    its own tp, expert groups and precision, tp2 × 2 beside a tp4 bill on 2 × 910C). Its tokens/s is that
    configuration's capacity within the targets (`plan.search.serving_capacity` with each pinned: plan's "serve at
    most" × output, the largest batch plan's row check passes), the batch each replica runs for the rate the bill's.
    Returns (the workload, its `workload` facts, None)."""
    from suanli.plan.search import serving_capacity

    cards, prec = int(bill["gpus"]), str(bill["precision"])
    tpot = serving_target(tg.requests_per_s, tg.tpot_s, tg.ttft_s, tg.lengths[1])[0]
    req = make_request(model=m.id, task="inference", gpus=cards, tp=bill["tp"], ep=bill["ep"],
                       framework=bill.get("framework") or None, tpot_s=tpot or DEFAULT_SERVING_TPOT_S,
                       ttft_s=tg.ttft_s, tokens=_SEARCH_TOKENS, precision=prec, input=tg.lengths[0],
                       output=tg.lengths[1])
    lay, _ = serving_capacity(cat, m, req, acc.id, error_bands)
    if lay is not None and lay.tp == bill["tp"] and lay.ep == bill["ep"]:
        w = plan_workload(lay, req).model_copy(update={"tokens": None, "precision": prec})
    else:  # no capacity quote (none expected: the bill's batch passes plan's row check): the bill's batch itself
        w = make_workload(task="inference", gpus=ranks_of(acc, cards), tp=bill["tp"], ep=bill["ep"],
                          batch=bill["batch"], precision=prec, engine=bill.get("engine") or None,
                          input=tg.lengths[0], output=tg.lengths[1])
    return w, _serving_facts(acc, cards, w, tg, int(bill["batch"]), Message("mig.batch_rule.search")), None


def _row_fits(cat: Catalog, m: ModelArch, acc: Any, w: Workload) -> bool:
    """Whether a serving row's workload fits its cards (estimate's memory check, the one rule)."""
    return estimate(cat, m, acc, w).contract()["memory"]["fits"] is not False


def _row_at_fitting_precision(cat: Catalog, m: ModelArch, acc: Any, gpus: int,
                              error_bands: dict[str, ErrorBand] | None, tg: ServingTargets, precisions: Sequence[str]
                              ) -> tuple[str, tuple[Workload, dict[str, Any], Message | None]] | None:
    """`migrate cost`'s serving row (`_serving_workload`) on `gpus` cards of `acc` at the first of `precisions` at
    which it fits, with that precision; None where it fits at none (a precision the device does not run: none)."""
    for p in precisions:
        try:
            row = _serving_workload(cat, m, acc, gpus, error_bands, p, tg)
        except (InputError, EstimateError):  # the device does not run it
            continue
        if _row_fits(cat, m, acc, row[0]):
            return p, row
    return None


def _serving_fit_hint(cat: Catalog, m: ModelArch, acc: Any, gpus: int, error_bands: dict[str, ErrorBand] | None,
                      tg: ServingTargets, tried: str) -> Message:
    """`migrate cost`'s suggestion where a serving side does not fit `gpus` cards at `tried`: the nearest lower
    precision at which its row fits them, with the pin (`--precision`, API `precision`), as plan's hint names a lower
    precision whose weights fit (`plan.search._serve_too_big_tip`); else another card count (`--gpus`)."""
    start = SERVE_PRECISIONS.index(tried) if tried in SERVE_PRECISIONS else 0
    fit = _row_at_fitting_precision(cat, m, acc, gpus, error_bands, tg, SERVE_PRECISIONS[start + 1:])
    if fit is None:
        return Message("mig.fewest_cards_serving", field="gpus")
    return Message("mig.fewest_cards_serving_precision", precision=scheme_name(lookup.stack(cat, acc.stack), fit[0]),
                   device=both(acc.name, acc.name_zh or acc.name), gpus=gpus,
                   pin=Message("relax.pin", field="precision", value=fit[0]), field="gpus")


class ServingTargets:
    """`migrate cost --task inference`'s serving targets, compare's flags and fields (`requests_per_s`, `tpot_s`,
    `ttft_s`, `input`, `output`, `concurrent_users`; None: not given, compare's defaults), and plan's `max_gpus`, the
    most cards a side is sized with for a rate (`_rate_bill`)."""

    def __init__(self, requests_per_s: float | None = None, tpot_s: float | None = None, ttft_s: float | None = None,
                 input_tokens: int | None = None, output_tokens: int | None = None,
                 concurrent_users: int | None = None, max_gpus: int | None = None) -> None:
        self.requests_per_s, self.tpot_s, self.ttft_s = requests_per_s, tpot_s, ttft_s
        # the most cards plan may size a side with for the rate (plan's `max_gpus`; None: plan's default, 64)
        self.max_gpus = max_gpus
        self.concurrent_users = concurrent_users
        self.users_note: Message | None = None  # the rate the users send (plan's `rate_note`), set by `check`
        self.given = any(v is not None for v in (requests_per_s, tpot_s, ttft_s, input_tokens, output_tokens,
                                                 concurrent_users))
        self.lengths = (DEFAULT_INPUT_TOKENS if input_tokens is None else input_tokens,  # plan's defaults
                        DEFAULT_OUTPUT_TOKENS if output_tokens is None else output_tokens)
        self.input_tokens, self.output_tokens = input_tokens, output_tokens

    def check(self, task: str) -> None:
        """compare's validation: serving targets and lengths only with task inference; the bounds plan's request
        states (`make_request`). `concurrent_users` means what it means to plan and compare (needs `tpot_s`; the
        rate by Little's law, `PlanRequest._derive_rate`): the rate is set from them here, the sentence in
        `users_note`."""
        if task != "inference":
            for name, v in (("requests_per_s", self.requests_per_s), ("tpot_s", self.tpot_s), ("ttft_s", self.ttft_s),
                            ("concurrent_users", self.concurrent_users), ("max_gpus", self.max_gpus)):
                if v is not None:
                    raise InputError(name, Message("err.a_serving_target_migrate", field="task"))
            if self.input_tokens is not None or self.output_tokens is not None:
                raise InputError("input" if self.input_tokens is not None else "output",
                                 Message("err.serving_lengths_only", input_field="input", output_field="output"))
            return
        req = make_request(model="x", task="inference", requests_per_s=self.requests_per_s, tpot_s=self.tpot_s,
                           ttft_s=self.ttft_s, concurrent_users=self.concurrent_users,
                           **({} if self.max_gpus is None else {"max_gpus": self.max_gpus}),  # plan's bounds
                           tokens=None if self.requests_per_s or self.concurrent_users else _SEARCH_TOKENS,
                           input=self.input_tokens, output=self.output_tokens)
        if self.concurrent_users is not None:
            self.requests_per_s, self.users_note = req.requests_per_s, req.rate_note()
        if self.max_gpus is not None and not self.requests_per_s:  # without a rate each side is its --gpus cards
            raise InputError("max_gpus", Message("err.max_gpus_needs_rate", rate_field="requests_per_s",
                                                 users_field="concurrent_users", gpus_field="gpus"))


def _rate_bill(cat: Catalog, m: ModelArch, acc: Any, precision: str | None, tg: ServingTargets, region: str,
               kinds: Kinds, today: dt.date | None, stale_months: float, error_bands: dict[str, ErrorBand] | None,
               subsidy: float, factor: float = 1.0, gpus: int | None = None) -> dict[str, Any]:
    """`migrate cost`'s bill for one side serving the stated rate (or concurrent users), sized and billed as
    `suanli plan` does it (`plan.search.plan`, the one search: the replicas and cards that carry the rate within the
    targets, up to `tg.max_gpus` cards, whole offers billed for the serving period, the default month of 730 h, on
    the usable offers of `region`/`kinds`), on this device at `precision`, or (None: none given) at the precision
    plan picks among those it searches (`plan.search.default_serve_precisions`; buyer review 2026-12-02: int8 on
    both sides billed the H20 56 cards where plan's fp8 takes 32), named with them (`precisions_searched`);
    `factor` multiplies the rate (the users) — the known-error and measured-error savings' "the same work, that
    much slower". Returns the plan's cards, layout, offer and bill, or `carried` false and plan's why-not for the
    device, with plan's "raise max_gpus to N" where the card limit is what stops it. `gpus` (the caller's `gpus`):
    exactly that many cards, as `suanli plan --gpus N` serves a rate (plan's `gpus` replaces `max_gpus`); where they
    do not carry it, plan's why-not and "another count, or no `gpus`"."""
    from suanli.plan.search import plan as plan_search

    users = (math.ceil(tg.concurrent_users * factor - 1e-9) if tg.concurrent_users is not None else None)
    req = make_request(model=m.id, task="inference", devices=(acc.id,), tpot_s=tg.tpot_s, ttft_s=tg.ttft_s,
                       requests_per_s=None if users is not None else (tg.requests_per_s or 0.0) * factor,
                       concurrent_users=users, input=tg.lengths[0], output=tg.lengths[1],
                       precision=None if precision is None
                       else (precision if precision in SERVE_PRECISIONS else "bf16",), region=region,
                       offer_kinds=tuple(kinds), stale_months=stale_months, subsidy=subsidy, top=1,
                       **({} if tg.max_gpus is None else {"max_gpus": tg.max_gpus}),
                       **({} if gpus is None else {"gpus": gpus}))
    res = plan_search(cat, m, req, today, error_bands, precision_up=False)
    device = both(acc.name, acc.name_zh or acc.name)
    rate = Message("cmp.serving.rate", rps=req.requests_per_s or 0.0)
    # the precisions plan searched (its own assumption line), said where it picked among them
    searched = next((str(a["params"]["precisions"]) for a in res.assumptions_i18n
                     if a.get("id") == "plan.assume.precisions_default"), None) if precision is None else None
    if not res.plans:
        why = next((Message.from_json(w["reason_i18n"]) for w in res.why_not
                    if w.get("device") == acc.id and w.get("reason_i18n")), Message("cmp.no_layout_fits"))
        # the card limit is what stops it: plan's own "raise max_gpus to N" (`relax.cards`), named per surface;
        # where those N cards also miss a latency target (`relax.cards_with`), the target to raise with them, as
        # plan says it (task K 2026-12-02: the note said "raise max_gpus to 28" alone, a run that does not plan)
        hint = next((x for x in res.relax_i18n if str(x.get("id", "")).startswith("relax.cards")
                     and x.get("params", {}).get("gpus")), None)
        params = hint["params"] if hint is not None else {}
        both_ = hint is not None and str(hint["id"]).startswith("relax.cards_with")
        limit = None if hint is None or both_ else int(params["gpus"])
        msg = Message("mig.rate_bill.not_carried", device=device, rate=rate, why=why)
        if gpus is not None:  # the count is the caller's: another one, or none for plan's sizing
            msg = Message("mig.rate_bill.pinned", not_carried=msg, gpus=gpus, field="gpus", limit_field="max_gpus")
        elif limit is not None:
            msg = Message("mig.rate_bill.raise_limit", not_carried=msg, gpus=limit, limit=req.max_gpus,
                          field="max_gpus")
        elif both_:  # the N cards alone do not carry it: no cards_needed, the pair in the note
            msg = Message("mig.rate_bill.raise_limit_with", not_carried=msg, gpus=int(params["gpus"]),
                          limit=req.max_gpus, field="max_gpus", other=Message.from_json(params["limit"]),
                          ms=params["ms"], limit_ms=params["limit_ms"], value=params["value"])
        return {"carried": False, "requests_per_s": req.requests_per_s, "concurrent_users": users,
                "monthly_cost_cny": None, "max_gpus": req.max_gpus, "gpus_pinned": gpus,
                "cards_needed": None if gpus is not None else limit,
                "precisions_searched": searched, "note": render(msg), "note_i18n": msg.to_json()}
    p = res.plans[0]
    # the serving period is plan's default month (`PlanRequest.serving_hours`): the bill is the month's
    monthly = p.cost_cny * HOURS_PER_MONTH / req.serving_hours
    msg = Message("mig.rate_bill.carried", device=device, rate=rate,
                  layout=serving_label(p.replicas or p.dp, p.tp, p.ep, p.micro_batch, p.precision),
                  gpus=p.cards or p.gpus, offer=p.offer,  # the cards rented (a 910C plan's gpus count its dies)
                  billing_unit=Message(f"billing_unit.{p.billing_unit}"), hours=req.serving_hours, cost=monthly)
    if searched is not None:  # no --precision: the one plan picked, of those it searched
        msg = Message("mig.rate_bill.picked", bill=msg, precision=p.precision, searched=searched, field="precision")
    return {"carried": True, "requests_per_s": req.requests_per_s, "concurrent_users": users, "gpus": p.cards or p.gpus,
            "tp": p.tp, "ep": p.ep, "replicas": p.replicas or p.dp, "batch": p.micro_batch, "precision": p.precision,
            # the serving framework and engine plan picked: the side's row is laid out on them too (`_bill_row`)
            "framework": p.framework, "engine": p.engine,
            "precisions_searched": searched, "max_gpus": req.max_gpus, "gpus_pinned": gpus,
            "offer": p.offer, "billing_unit": p.billing_unit, "hours": req.serving_hours,
            "monthly_cost_cny": monthly, "note": render(msg), "note_i18n": msg.to_json()}


def _side_precision(cat: Catalog, m: ModelArch, acc: Any, prec: str, why: str) -> Message:
    """One side's precision in `migrate cost`'s note for a rate without --precision: `why` "picked" (the precision
    plan picks for the side's bill, `_rate_bill`), "fitted" (plan carries the rate on none of its offers and the
    default does not fit the cards: `_row_at_fitting_precision`) or "default"; beside compare's default for the device
    (`default_precision`, the one rule), and compare's flag that gives the same row where they differ."""
    default = default_precision(m, acc, lookup.stack(cat, acc.stack), "inference")
    ids = {"picked": "mig.side_precision.picked_default" if prec == default else "mig.side_precision.picked",
           "fitted": "mig.side_precision.fitted", "default": "mig.side_precision.default"}
    return Message(ids[why], device=both(acc.name, acc.name_zh or acc.name), precision=prec,
                   default=default, field="precision")


def _with_precisions(note: Message, sides: Sequence[Message]) -> Message:
    """`migrate cost`'s workload note (`mig.workload.serving_targets`, under `mig.workload.users`) with each side's
    precision (`_side_precision`) in place of "the same flags"."""
    if note.id == "mig.workload.users":
        return Message("mig.workload.users", users=note.params["users"],
                       workload=_with_precisions(note.params["workload"], sides))
    if note.id != "mig.workload.serving_targets":
        return note
    return Message("mig.workload.serving_targets_precisions", gpus=note.params["gpus"], rule=note.params["rule"],
                   sides=Message("list.items", items=list(sides)))


def _on_bill_cards(note: Message, cards: Message) -> Message:
    """`migrate cost`'s workload note for a rate both sides carry: "on the cards each side's bill for the rate rents
    (H800 1 card, 910B 1 card)" in place of `--gpus`'s count (`mig.workload.serving_targets*_rate`)."""
    if note.id == "mig.workload.users":
        return Message("mig.workload.users", users=note.params["users"],
                       workload=_on_bill_cards(note.params["workload"], cards))
    if note.id not in ("mig.workload.serving_targets", "mig.workload.serving_targets_precisions"):
        return note
    return Message(note.id + "_rate", {**{k: v for k, v in note.params.items() if k != "gpus"}, "cards": cards})


def saving_if_known_error(bands: dict[str, ErrorBand] | None, dst: Any, stack: Any, task: str, ratio: float,
                          monthly_spend: float, src: Any = None, src_stack: Any = None,
                          bill: Callable[[float], float] | None = None) -> dict[str, Any] | None:
    """`migrate cost`'s derived saving if both devices' speeds are off by their stacks' known signed errors (the bias
    a plan is demoted on, `estimate.pooled_bias`: the stack's out-of-sample median on 5+ cases, shrunk toward all
    stacks' below that): an estimate +b faster than measured does the same work 1 + b times slower (signed error
    = estimate / measured − 1). The ratio is the target's cost over the source's for the same work, and both sides
    are estimates, so it becomes ratio × (1 + b_dst) / (1 + b_src) (the source's bias 0 without `src`). None without
    stored bands. `bill` (the new side's monthly bill for its work × a factor, `plan.cost.work_rent`): the saving is
    the spend less the bill for (1 + b_dst) / (1 + b_src) times the work's hours, as the planner bills an offer."""
    group = "decode-speed" if task == "inference" else "training-throughput"
    pb = pooled_bias(dict(bands or {}), stack.id, group)
    if pb is None:
        return None
    spb = pooled_bias(dict(bands or {}), src_stack.id, group) if src_stack is not None else None
    src_bias = spb.bias_pct if spb is not None else 0.0
    new_ratio = ratio * (1 + pb.bias_pct / 100) / (1 + src_bias / 100)
    new_saving = (monthly_spend - bill(new_ratio / ratio) if bill is not None
                  else max(0.0, monthly_spend * (1 - new_ratio)))
    saving_est = monthly_spend - bill(1.0) if bill is not None else max(0.0, monthly_spend * (1 - ratio))
    ev = pooled_evidence(pb.cases, both(stack.name, stack.name_zh or stack.name), pb.stack_pct, pb.all_pct or 0.0,
                         pb.all_cases, pb.prior_cases)
    # the bill for the work moves in whole instances (billing unit, minimum term: `work_rent`, plan's sizing for a
    # rate): where the same instances carry the slower work, the ratio moves and the saving does not, said so (buyer
    # review 2026-12-03: "the cost ratio becomes 1.43 and the saving -¥2,035 (as estimated: 1.20, -¥2,035)")
    same_bill = bill is not None and new_ratio != ratio and abs(new_saving - saving_est) < 0.5
    if spb is not None and src is not None and src_stack is not None:
        src_ev = pooled_evidence(spb.cases, both(src_stack.name, src_stack.name_zh or src_stack.name), spb.stack_pct,
                                 spb.all_pct or 0.0, spb.all_cases, spb.prior_cases)
        msg = Message("mig.if_known_error_both_same_bill" if same_bill else "mig.if_known_error_both", device=both(dst.name, dst.name_zh or dst.name),
                      src_device=both(src.name, src.name_zh or src.name), group=Message(f"band.{group}"),
                      evidence=ev, bias=pb.bias_pct, src_evidence=src_ev, src_bias=src_bias, ratio=new_ratio,
                      saving=new_saving, ratio_est=ratio, saving_est=saving_est, factor=new_ratio / ratio)
    else:
        msg = Message("mig.if_known_error_same_bill" if same_bill else "mig.if_known_error", device=both(dst.name, dst.name_zh or dst.name),
                      group=Message(f"band.{group}"), evidence=ev, bias=pb.bias_pct, ratio=new_ratio,
                      saving=new_saving, ratio_est=ratio, saving_est=saving_est, factor=new_ratio / ratio)
    return {"group": group, "bias_pct": pb.bias_pct, "cases": pb.cases, "stack_signed_pct": pb.stack_pct,
            "all_stacks_signed_pct": pb.all_pct, "all_stacks_cases": pb.all_cases, "prior_cases": pb.prior_cases,
            "from_bias_pct": spb.bias_pct if spb is not None else None,
            "from_cases": spb.cases if spb is not None else None,
            "cost_ratio_same_work": new_ratio, "monthly_saving_cny": new_saving,
            # true: the new side's bill (whole instances) carries the slower work unchanged, so the saving stays
            "same_bill": same_bill, "note": render(msg), "note_i18n": msg.to_json()}


def _fewest_cards_hint(cat: Catalog, m: ModelArch, task: str, precision: str | None, devices: Sequence[Any],
                       gpus: int, region: str, kinds: Kinds, today: dt.date | None, stale_months: float) -> Message:
    """`migrate cost`'s suggestion where a side does not fit on `gpus` cards: the fewest cards on which plan finds a
    training plan on every one of `devices` (`plan.search.fewest_training_cards`: plan's search on the same usable
    offers, optimizer offload included, each device at its default precision as the row takes it), named with the
    flag (`--gpus`, API `gpus`); else (serving, or plan finds none on some device) the flag alone."""
    if task == "inference":
        return Message("mig.fewest_cards_serving", field="gpus")
    from suanli.plan.search import fewest_training_cards

    counts = [fewest_training_cards(cat, m, training_request(
        m, task, None, precision or default_precision(m, acc, lookup.stack(cat, acc.stack), task),
        DEFAULT_GLOBAL_BATCH, {"region": region, "offer_kinds": tuple(kinds), "stale_months": stale_months}),
        acc.id, today) for acc in devices]
    if all(c is not None for c in counts):
        return Message("mig.fewest_cards", gpus=max(c or 0 for c in counts), field="gpus")
    return Message("mig.fewest_cards_none", field="gpus")


def _thin_evidence(cat: Catalog, bands: dict[str, ErrorBand] | None, m: ModelArch, dst: Any, stack: Any, task: str,
                   src_stack: Any, monthly_spend: float, bill: Callable[[float], float]
                   ) -> tuple[Message | None, dict[str, Any] | None]:
    """`migrate cost`'s verdict basis on the new side: plan's rule (`plan.quality.unvalidated_label`: fewer than
    LITTLE_EVIDENCE_CASES out-of-sample cases of the task's speed groups on the stack for the model's family, and for
    LoRA/QLoRA of that task, `estimate.lora_stack_band`) makes it 'unproven'; then the saving at the error those
    cases measured (a LoRA job: its LoRA cases) — the stack's own median signed error, not
    shrunk toward other stacks' (`pooled_bias`), the old side at its known (pooled) error as `saving_if_known_error`
    takes it — naming the cases (`validate.bands.out_of_sample_case_ids`, where their number is the band's). Returns
    (why unproven, the measured-error saving); (None, None) with enough cases or without stored bands."""
    from suanli.plan.quality import unvalidated_label
    from suanli.plan.search import _SPEED_GROUPS

    b = dict(bands or {})
    moe = m.kind == "llm" and m.moe is not None
    name = both(stack.name, stack.name_zh or stack.name)
    lora = task in LORA_TASKS  # a LoRA job: the stack's LoRA cases, not its full and pre-training ones
    label = unvalidated_label(b, stack, moe, _SPEED_GROUPS["inference" if task == "inference" else "training"], name,
                              lora=lora)
    if label is None:
        return None, None
    group = "decode-speed" if task == "inference" else "training-throughput"
    lora_band = lora_stack_band(b, stack.id, group) if lora else None
    lora = lora_band is not None
    sb = lora_band if lora_band is not None else moe_stack_band(b, stack.id, group) if moe else stack_band(
        b, stack.id, group)
    if sb is None or not sb.cases or sb.median_signed_pct is None:
        line = Message("mig.measured.none_lora" if lora else "mig.measured.none", group=Message(f"band.{group}"),
                       stack=name)
        return Message("mig.unproven", label=label, measured=line), None
    from suanli.validate.bands import out_of_sample_case_ids

    ids = out_of_sample_case_ids(cat, stack.id, group, moe and not lora, lora=lora)
    ids = ids if len(ids) == sb.cases else ()
    cases: Message = (Message("mig.measured.case", case=ids[0]) if len(ids) == 1
                      else Message("mig.measured.cases", n=sb.cases, ids=", ".join(ids)) if ids
                      else Message("mig.measured.n_cases", n=sb.cases))
    spb = pooled_bias(b, src_stack.id, group)
    src_bias = spb.bias_pct if spb is not None else 0.0
    cost = bill((1 + sb.median_signed_pct / 100) / (1 + src_bias / 100))
    saving = monthly_spend - cost
    line = Message("mig.measured.saving" if saving > 0 else "mig.measured.rise", bias=sb.median_signed_pct,
                   cases=cases, src_bias=src_bias, saving=saving, rise=-saving)
    return Message("mig.unproven", label=label, measured=line), {
        "group": group, "bias_pct": sb.median_signed_pct, "cases": sb.cases, "case_ids": list(ids),
        "from_bias_pct": src_bias, "monthly_cost_to_cny": cost, "monthly_saving_cny": saving,
        "note": render(line), "note_i18n": line.to_json()}


#: the cards on each side `migrate cost` lays the workload out on when `gpus` is not given and no rate sizes them
#: (one 8-card server, the size most offers rent whole)
DEFAULT_MIGRATE_GPUS = 8

#: assumed: the monthly compute spend `migrate cost` prices the saving from when none is given — seed-000 §4's worked
#: example (¥100k a month, ¥60k saved, 2 people × 2 weeks; `plan.cost.migration_tco`), not a figure about the buyer;
#: every answer says it and marks it as the default (`monthly_spend_default`)
DEFAULT_MONTHLY_SPEND_CNY = 100_000.0


def migration_cost(cat: Catalog, m: ModelArch, to_gpu: str = "ascend-910b", from_gpu: str = "h100-sxm",
                   monthly_spend: float | None = None, saving: float | None = None, task: str = "full",
                   engineers: int | None = None, engineer_week: float | None = None, subsidy: float = 0.0,
                   horizon_months: float = 12.0, region: str = offer_q.DEFAULT_REGION,
                   kinds: Kinds = offer_q.DEFAULT_KINDS, today: dt.date | None = None,
                   stale_months: float = offer_q.DEFAULT_STALE_MONTHS,
                   error_bands: dict[str, ErrorBand] | None = None, asked: str | None = None,
                   precision: str | None = None, targets: ServingTargets | None = None,
                   libraries: Sequence[LibraryUse] = (), gpus: int | None = None,
                   parallel_weeks: float | None = None) -> dict[str, Any]:
    """Cost/benefit of moving `m` from one device to a domestic stack (see `suanli migrate cost`). The saving
    is derived from tokens per yuan on `gpus` cards (None: DEFAULT_MIGRATE_GPUS, 8) of each device, each at the layout plan searches for
    that count (training: plan's own, optimizer offload included where no plain AdamW layout fits, so a job plan
    runs is costed; `_training_layout` with `measures`), each rented for the whole horizon (the spend goes
    on month after month, so an offer's minimum term counts only beyond it) from the usable offer (`region`,
    `kinds`, any billing unit) the planner would take (`fresh_first`: the cheapest fresh price, a stale one only
    when no fresh offer exists); the answer names those offers and warns about a stale one (`offer_facts`). With the
    validated `error_bands` each device's derived speed carries its stack's out-of-sample evidence (`evidence`). `model`
    is the checkpoint the task downloads (`lookup.checkpoint_id` with the name `asked`), `preset` the catalog entry.
    `targets` (serving only) and `precision` are compare's: each side's row is `compare`'s for them. A rate
    (`targets.requests_per_s` or concurrent users) sizes and bills each side as plan does (`_rate_bill`): with `gpus`
    given, on exactly that many cards (plan's `--gpus` with a rate; with `max_gpus` too it is refused, one count or
    the other), else on the cards plan sizes up to `max_gpus`; a side whose bill carries the rate has the bill's
    layout as its row (`_bill_row`). `libraries`
    (`migrate.libraries.LibraryUse`: a config's and `uses`'s) go into `migration_weeks`, the weeks `migrate check`
    charges for them. `task` "training" is `full` (migrate check's name for a training task). `subsidy` refunds that share of the domestic side's rent: its `derived` entry carries the bill
    over the horizon before and after it (`subsidy`, `gross_cost_cny`, `cost_cny`, `subsidy_note`: `job_cost`'s, as
    tco's rows).
    The new side is billed as the planner bills an offer: the work the old spend buys (its hours at the old side's
    card-hour price, × the tokens/s ratio) priced on each usable offer of the new device by `plan.cost.work_rent`
    (billing unit, minimum term and order, whole instances), the cheapest fresh one taken; the saving is the spend
    less that bill (negative: the bill rises). The one-off cost is itemised (`migration_one_off`): labour, a test
    instance through the port's weeks, and `parallel_weeks` (default the assumed DEFAULT_PARALLEL_RUN_WEEKS) of the
    new side's bill while both run. With thin evidence on the new side's stack (`plan.quality.unvalidated_label`,
    plan's rule) the verdict is 'unproven' and `measured_error` gives the saving at the error its cases measured."""
    # "training" (migrate check's word for every training task: its adapted lists are by use) is full training here,
    # the default: the effort is the same for any training task, the saving is full training's
    task = "full" if task.strip().lower() == "training" else task
    tg = targets or ServingTargets()
    tg.check(task)
    # the spend the saving and the verdict rest on, said beside them: the caller's, else the assumed default (the
    # seed's worked example), marked so (buyer review 2026-12-01: an unseen ¥100,000 decided the verdict)
    spend_default = monthly_spend is None
    monthly_spend = DEFAULT_MONTHLY_SPEND_CNY if monthly_spend is None else monthly_spend
    spend_msg = Message("mig.spend.default" if spend_default else "mig.spend.given", spend=monthly_spend)
    assume = cost_assumptions(cat)  # None: the catalog's `assumptions:` (engineers, CNY per engineer-week)
    engineers = assume.migration_engineers.value if engineers is None else engineers
    engineer_week = assume.engineer_cny_per_week.value if engineer_week is None else engineer_week
    for name, v, lo, hi in (("monthly-spend", monthly_spend, 1e-9, 1e12), ("engineer-week", engineer_week, 0.0, 1e9),
                            ("horizon-months", horizon_months, 1e-9, 1200.0), ("subsidy", subsidy, 0.0, 0.999)):
        if not (math.isfinite(v) and lo <= v <= hi):
            raise InputError(name, Message("err.must_be_a_number_in_got", lo=lo, hi=hi, v=v))
    if saving is not None and not (math.isfinite(saving) and 0 <= saving <= monthly_spend):
        raise InputError("saving", Message("err.must_be_between_and_the_monthly", monthly_spend=monthly_spend, saving=saving))
    if not 1 <= engineers <= 1000:
        raise InputError("engineers", Message("err.must_be_to_got", engineers=engineers))
    pinned = gpus  # the caller's count: with a rate each side is billed on exactly these cards, as plan's --gpus
    gpus = DEFAULT_MIGRATE_GPUS if gpus is None else gpus
    if not 1 <= gpus <= 4096:  # PlanRequest's bound on a pinned card count
        raise InputError("gpus", Message("err.must_be_a_number_in_got", lo=1, hi=4096, v=gpus))
    if pinned is not None and tg.max_gpus is not None:  # exactly N cards, or plan's sizing up to a limit: not both
        raise InputError("max_gpus", Message("err.gpus_or_max_gpus", gpus_field="gpus", field="max_gpus"))
    if (tg.requests_per_s is not None and precision is not None
            and precision.strip().lower() not in SERVE_PRECISIONS):  # plan bills a rate at the precisions it serves
        raise InputError("precision", Message("err.precision_with_rate", value=precision,
                                              allowed=", ".join(SERVE_PRECISIONS), field="precision",
                                              rate_field="requests_per_s", users_field="concurrent_users"))
    src, dst = lookup.accelerator(cat, from_gpu), lookup.accelerator(cat, to_gpu)
    if src.id == dst.id:
        raise InputError("to-gpu", Message("err.is_the_device_used_today_pick", dst_id=dst.id))
    stack = lookup.stack(cat, dst.stack)
    from suanli.migrate.effort import checkpoint_uses
    from suanli.migrate.libraries import merge

    libraries = merge(checkpoint_uses(m, cat), libraries)  # the released checkpoint's (FP8), listed as migrate check's
    lo, hi, why_msg = migration_weeks(cat, stack, m, libraries, task=task)
    why = render(why_msg)
    derived: dict[str, Any] = {}
    known: dict[str, Any] | None = None  # the saving if the target's speed is off by its known error
    measured: dict[str, Any] | None = None  # the saving at the error the target stack's own few cases measured
    unproven: Message | None = None
    not_carried: Message | None = None  # a stated rate one side cannot carry (`_rate_bill`)
    parallel_default = parallel_weeks is None
    parallel_weeks = DEFAULT_PARALLEL_RUN_WEEKS if parallel_weeks is None else parallel_weeks
    one_off_items = None
    rent: WorkRent | None = None
    used: list[dict[str, Any]] = []
    workload_msg: Message | None = None
    asked_gpus = gpus  # `gpus` below: the cards a side is laid out on (fewer where no usable offer rents these)
    if saving is None:
        # a bad task or precision named once; each side's layout is compare's
        w = make_workload(task=task, gpus=gpus, batch=1, precision=precision or "bf16")
        w = w.model_copy(update={"precision": "bf16"})
        workload_msg = (Message("mig.workload.serving_targets", gpus=gpus, rule=Message(
                            "cmp.serving.lengths", input_field="input", output_field="output",
                            rule=serving_target(tg.requests_per_s, tg.tpot_s, tg.ttft_s, tg.lengths[1])[1],
                            input=tg.lengths[0], output=tg.lengths[1]))
                        if task == "inference" and tg.given
                        else Message("mig.workload.serving", gpus=gpus, tpot_ms=DEFAULT_SERVING_TPOT_S * 1000)
                        if task == "inference"
                        else Message("mig.workload.training", task=task, gpus=gpus, task_field="task"))
        if tg.users_note is not None:  # the rate the concurrent users send (plan's `rate_note`), said first
            workload_msg = Message("mig.workload.users", users=tg.users_note, workload=workload_msg)
        priced = offer_q.filter_catalog(cat, region, kinds)
        per_yuan = {}
        sides: dict[str, dict[str, Any]] = {}
        dst_hours = 0.0  # the new side's hours of its layout a month for the old spend's work
        w8 = w
        serving = task == "inference"
        rent_h = horizon_months * HOURS_PER_MONTH
        # a stated rate (or concurrent users): each side sized and billed for it as plan does (`_rate_bill`: the
        # replicas and cards that carry it, whole offers for the serving month), not the spend scaled at full
        # capacity (buyer review: 4 × 8 cards "568 h a month each" for a rate one 8-card machine carries, and the
        # same saving at 1 and 40 requests/s); without --precision at the precision plan picks on each side, which
        # that side's row on `gpus` cards then takes (buyer review 2026-12-02: bf16 on both refused the 910B's 8
        # cards, int8 on both billed the H20 56 cards where plan's fp8 takes 32)
        rate_sized = serving and tg.requests_per_s is not None
        bills = {a.id: _rate_bill(cat, m, a, precision, tg, region, kinds, today, stale_months, error_bands,
                                  subsidy if a.domestic else 0.0, gpus=pinned)
                 for a in (src, dst)} if rate_sized else {}
        rate_carried = rate_sized and all(b["carried"] for b in bills.values())
        side_precisions: list[Message] = []  # each side's precision and why, said in the workload note (a rate)
        for side, acc in (("from-gpu", src), ("to-gpu", dst)):
            # the side's precision: the one given, else (a rate) the one plan picked for it, else the default
            side_precision = precision or (bills[acc.id]["precision"] if rate_sized and bills[acc.id]["carried"]
                                           else None)
            precision_why = "picked" if side_precision is not None else "default"
            dev_offers = [o for o in priced.offers if o.device == acc.id]
            if not dev_offers:
                raise InputError("saving", Message("error.saving_no_price", why=no_price(cat, acc.id, region, kinds),
                                                   field="saving"))
            # the layout on the cards asked (`gpus`, default 8), else on the most cards one usable offer can rent
            # (`offers.max_cards`): the saving is tokens per yuan, priced only on offers that can rent the layout
            # (`offers.can_rent`, compare's and plan's rule), never on an 8-card machine that exists only as 1-card
            # rentals
            cards_per_node = acc.max_cards_per_node
            # a rate this side carries: its row on the cards its bill rents (plan's sizing), one basis for the
            # comparison and the bill (helper D 2026-12-02: an 8-card row "serves 1 requests/s" beside a 1-card bill)
            side_gpus = bills[acc.id]["gpus"] if rate_carried else asked_gpus
            holds = max(min(offer_q.max_cards(o, cards_per_node), side_gpus) for o in dev_offers)
            # a rate this side carries: the row is its bill's layout on its bill's offer (`_bill_row`, one source)
            for gpus in dict.fromkeys((side_gpus, holds)) if not rate_carried else ():
                w, layout_why = w8.model_copy(update={"gpus": ranks_of(acc, gpus)}), None  # ranks (a 910C: 2 a card)
                layout = {"task": task, "gpus": gpus, "tp": w.tp, "zero": w.zero, "batch": w.batch}
                if serving:  # serving at batch 1 is decode-latency bound: compare at a serving batch
                    w, layout, layout_why = _serving_workload(cat, m, acc, gpus, error_bands, side_precision, tg)
                    if rate_sized and side_precision is None and not _row_fits(cat, m, acc, w):
                        # no --precision and no plan for the rate: the row at the other precision plan searches
                        # here (its 8-bit one) where the default does not fit these cards, not refused at bf16
                        stack_a = lookup.stack(cat, acc.stack)
                        fit = _row_at_fitting_precision(cat, m, acc, gpus, error_bands, tg, [
                            p for p in default_serve_precisions(acc, stack_a) if p != w.precision])
                        if fit is not None:
                            w, layout, layout_why = fit[1]
                            precision_why = "fitted"
                rentable = [o for o in dev_offers
                            if bool(offer_q.can_rent(o, cards_per_node, gpus, cards_of(acc, w.tp * w.pp * w.ep),
                                                     serving))]
                if rentable:
                    break
            if rate_carried:
                gpus = side_gpus
                w, layout, layout_why = _bill_row(cat, m, acc, bills[acc.id], tg, error_bands)
                rentable = [o for o in dev_offers if o.id == bills[acc.id]["offer"]]
            if not rentable:
                raise InputError("saving", Message("error.saving_no_rent", side_field=side.replace("-", "_"), field="saving",
                                                   device=both(acc.name, acc.name_zh or acc.name), gpus=asked_gpus,
                                                   holds=holds))
            found = fresh_first(((c.cost_cny, o, c) for o in rentable for c in (job_cost(o, gpus, rent_h),)),
                                today, stale_months)
            assert found is not None
            _, offer, month = found
            price = month.cost_cny / (gpus * rent_h)
            if not serving:
                # compare's training row on these cards, the one function (`_training_layout`: the planner's fastest
                # layout, `compare`'s default global batch, plan's evidence step with the bands; else the leanest
                # plain one), searched on the network compare searches it on (`_networks`/`_on_network`: a multi-node
                # job on the renting offer's, else none), at the device's default precision as compare takes it;
                # with `measures`, the layout plan plans there: optimizer offload or 8-bit AdamW where no plain
                # AdamW layout fits (task K 2026-12-01: plan ranked 8× H800 with ZeRO-3 + offload first for
                # Qwen2.5-72B full while migrate cost refused "does not fit on 8 × H800")
                net = (offer_q.offer_network_gbit_per_s(offer) if gpus > cards_per_node else None)
                prec = precision or default_precision(m, acc, lookup.stack(cat, acc.stack), task)
                w, fw, twhy = _training_layout(cat, m, acc, task, gpus, prec, None, DEFAULT_GLOBAL_BATCH, {},
                                               _on_network(priced, acc, net), error_bands, measures=True)
                if net is not None:  # estimated on that network, as `_priced_job` estimates compare's row
                    w = w.model_copy(update={"inter_node_gbit_per_s": None if math.isnan(net) else net})
                rule = Message("mig.layout_rule.fastest" if twhy is None else "mig.layout_rule.leanest", gpus=gpus)
                fw_row = next((f for f in cat.frameworks if f.id == fw), None)
                if twhy is None and fw_row is not None and (w.offload_optimizer or w.optimizer == "adamw8bit"):
                    rule = Message("mig.layout_rule.measure", gpus=gpus, measure=Message(
                        "measure.offload" if w.offload_optimizer else "measure.adamw8bit", framework=fw_row.name))
                layout = {"task": task, "gpus": gpus, **_ranks_facts(acc, w), "tp": w.tp, "pp": w.pp, "zero": w.zero,
                          "batch": w.batch, "recompute": w.recompute, "framework": fw,
                          # plan's memory-saving measure where plain AdamW does not fit these cards
                          "offload_optimizer": w.offload_optimizer, "optimizer": w.optimizer,
                          "layout_rule": render(rule), "layout_rule_i18n": rule.to_json()}
            elif cards_of(acc, w.tp * w.pp * w.ep) > cards_per_node and not w.inter_node_gbit_per_s:
                # a serving replica across nodes (`plan.search._serve_group_placed`) runs on the renting offer's
                # network, as plan prices it (`can_rent` took only offers that span nodes)
                net = offer_q.offer_network_gbit_per_s(offer)
                w = w.model_copy(update={"inter_node_gbit_per_s": None if math.isnan(net) else net})
            est = estimate(cat, m, acc, w, dict(error_bands or {}))
            e = est.contract()
            evidence = _speed_evidence(cat, est)
            if e["memory"]["fits"] is False:  # a layout that does not fit never runs: no speed, ratio or verdict
                # on fewer cards than asked: the refusal says which side no usable offer rents them of; the model
                # named as the checkpoint the task downloads (plan's `checkpoint_id`), and the fewest cards on which
                # plan fits it on both devices (`--gpus`)
                raise InputError("saving", Message("error.saving_no_fit" if gpus == asked_gpus
                                                   else "error.saving_no_fit_fewer",
                                                   model=lookup.checkpoint_id(m, task, asked), gpus=gpus,
                                                   asked=asked_gpus, side_field=side.replace("-", "_"), field="saving",
                                                   device=both(acc.name, acc.name_zh or acc.name),
                                                   precision=est.workload.precision,
                                                   need_gib=e["memory"]["needed_bytes"] / 2**30
                                                   if e["memory"]["needed_bytes"] is not None
                                                   else e["memory"]["per_gpu_gib"],
                                                   usable_gib=(e["memory"]["usable_bytes"] or 0) / 2**30,
                                                   hint=_serving_fit_hint(cat, m, acc, gpus, error_bands, tg,
                                                                          est.workload.precision) if serving
                                                   else _fewest_cards_hint(cat, m, task, precision, (src, dst),
                                                                           asked_gpus, region, kinds, today,
                                                                           stale_months)))
            tps = e["speed"].get("train_tokens_per_s") or e["speed"].get("output_tokens_per_s")
            if not tps:
                raise InputError("saving", Message("error.saving_no_speed", device=acc.id, field="saving"))
            sub = subsidy if acc.domestic else 0.0
            if acc.id == dst.id:
                # the old spend's work (its hours of the old layout a month, at the old side's card-hour price) done
                # here, billed as the planner bills an offer (`work_rent`) on each usable offer — a layout across
                # nodes (training, or a serving replica wider than a node) only on the offer its network was
                # estimated on — the cheapest fresh one taken
                old = sides[src.id]
                dst_hours = monthly_spend / (old["price"] * (1 - old["sub"]) * old["gpus"]) * old["tps"] / tps
                one_node = w.tp * w.pp * w.ep <= cards_per_node if serving else gpus <= cards_per_node
                pool = rentable if one_node else [offer]
                picked = fresh_first(((r.cost_cny_per_month, o, r) for o in pool
                                      for r in (work_rent(o, gpus, dst_hours, horizon_months, sub),)),
                                     today, stale_months)
                assert picked is not None
                _, offer, rent = picked
                price = job_cost(offer, gpus, rent_h).cost_cny / (gpus * rent_h)
            sides[acc.id] = {"tps": tps, "gpus": gpus, "price": price, "sub": sub, "offer": offer}
            if rate_sized and precision is None:
                side_precisions.append(_side_precision(cat, m, acc, w.precision, precision_why))
            per_yuan[acc.id] = tps / (price * gpus * (1 - sub))
            # the subsidy as tco says it (`plan.cost.job_cost` → `subsidy_note`: one rule): the horizon's bill before
            # and after it, on the domestic side only
            billed = job_cost(offer, gpus, rent_h, sub) if sub else None
            # tokens_per_s_8_cards: the tokens/s on the workload's cards (`workload.gpus`: 8, or fewer when no
            # usable offer rents 8)
            # what the offer leaves out of its card (plan's caveats, the one builder), on this side's layout
            caveats = [*offer_caveats(cat, m, acc, offer, Rerun(
                est.workload, tps, tg.tpot_s if serving else None, tg.ttft_s if serving else None,
                serving and _steady_row(None, tg.requests_per_s, tg.tpot_s), error_bands)), *_export_caveat(acc, offer)]
            derived[acc.id] = {"tokens_per_s_8_cards": tps, "cny_per_card_hour": price, "offer": offer.id,
                               "gpus_asked": side_gpus,  # --gpus, or with a rate both carry the cards its bill rents
                               "workload": layout, "evidence": render(evidence) if evidence is not None else None,
                               "evidence_i18n": evidence.to_json() if evidence is not None else None,
                               "offer_warnings": [render(x) for x in caveats],
                               "offer_warnings_i18n": [x.to_json() for x in caveats]}
            if billed is not None:
                derived[acc.id].update(subsidy=billed.subsidy, gross_cost_cny=billed.gross_cost_cny,
                                       cost_cny=billed.cost_cny, horizon_hours=rent_h,
                                       subsidy_note=billed.subsidy_note, subsidy_note_i18n=billed.subsidy_note_i18n)
            if layout_why is not None:  # no serving layout meets the TPOT: batch 1, and why (compare's layout_note)
                derived[acc.id].update(layout_note=render(layout_why), layout_note_i18n=layout_why.to_json())
            used.append({"device": acc.id, **offer_facts(offer, today, stale_months), "cny_per_card_hour": price})
        ratio = per_yuan[src.id] / per_yuan[dst.id]  # cost of the same work on dst relative to src
        if side_precisions and workload_msg is not None:
            # a rate without --precision: each row at its side's precision for the rate, not compare's default, so
            # "the same flags" is not true; the note names each side's precision, why, and compare's flag for the
            # row (buyer review 2026-12-03: H800 fp8 26,845 tok/s beside compare's bf16 12,838 "the same flags")
            workload_msg = _with_precisions(workload_msg, side_precisions)
        if rate_carried and workload_msg is not None:  # each row on its bill's cards, named per side
            workload_msg = _on_bill_cards(workload_msg, Message("list.items", items=[
                Message("mig.side_cards", device=both(a.name, a.name_zh or a.name), gpus=sides[a.id]["gpus"])
                for a in (src, dst)]))
        assert rent is not None
        d_side = sides[dst.id]

        def bill(factor: float) -> float:  # the new side's monthly bill for its work × factor, on the offer taken
            return work_rent(d_side["offer"], d_side["gpus"], dst_hours * factor, horizon_months,
                             d_side["sub"]).cost_cny_per_month

        derived["cost_ratio_same_work"] = ratio
        src_stack = lookup.stack(cat, src.stack)
        if rate_sized:  # each side's bill for the rate (`bills` above)
            for a in (src, dst):
                derived[a.id]["rate_bill"] = bills[a.id]
            short = [bills[a.id] for a in (src, dst) if not bills[a.id]["carried"]]
            d_bill = bills[dst.id]
            if short:  # a side that cannot carry the rate: no saving to weigh, and the verdict says why
                not_carried = Message("mig.not_carried", sides=Message(
                    "list.items", items=[Message.from_json(b["note_i18n"]) for b in short]))
                saving = 0.0
                one_off_items = migration_one_off((lo, hi), engineers, engineer_week, d_side["offer"],
                                                  d_side["gpus"], HOURS_PER_MONTH, parallel_weeks, parallel_default,
                                                  d_side["sub"])
            else:
                spend_msg = Message("mig.spend.rate_given" if not spend_default else "mig.spend.rate",
                                    spend=bills[src.id]["monthly_cost_cny"], given=monthly_spend,
                                    device=both(src.name, src.name_zh or src.name), field="monthly_spend")
                monthly_spend, spend_default = bills[src.id]["monthly_cost_cny"], False
                rate_offer = next(o for o in priced.offers if o.id == d_bill["offer"])
                memo: dict[float, float] = {1.0: d_bill["monthly_cost_cny"]}

                def rate_bill_at(factor: float) -> float:  # the rate's bill: plan's sizing for rate × factor
                    if factor not in memo:
                        b = _rate_bill(cat, m, dst, d_bill["precision"], tg, region, kinds, today, stale_months,
                                       error_bands, d_side["sub"], factor, gpus=pinned)
                        # beyond what plan carries: the bill scaled, as a linear bound
                        memo[factor] = (b["monthly_cost_cny"] if b["carried"]
                                        else d_bill["monthly_cost_cny"] * factor)
                    return memo[factor]

                saving = monthly_spend - d_bill["monthly_cost_cny"]  # negative: the new side's bill is higher
                known = saving_if_known_error(error_bands, dst, stack, task, ratio, monthly_spend, src,
                                              src_stack, rate_bill_at)  # both sides' known bias
                # labour and the test instance as without a rate (the side's layout on `gpus` cards); the parallel
                # run on the cards plan sizes for the rate, around the clock as plan bills serving
                one_off_items = [*migration_one_off((lo, hi), engineers, engineer_week, d_side["offer"],
                                                    d_side["gpus"], HOURS_PER_MONTH, parallel_weeks,
                                                    parallel_default, d_side["sub"])[:-1],
                                 migration_one_off((lo, hi), engineers, engineer_week, rate_offer, d_bill["gpus"],
                                                   HOURS_PER_MONTH, parallel_weeks, parallel_default,
                                                   d_side["sub"])[-1]]
                unproven, measured = _thin_evidence(cat, error_bands, m, dst, stack, task, src_stack, monthly_spend,
                                                    rate_bill_at)
        else:
            saving = monthly_spend - rent.cost_cny_per_month  # negative: the new side's bill is higher
            derived[dst.id]["monthly_rent"] = rent.model_dump(mode="json")
            known = saving_if_known_error(error_bands, dst, stack, task, ratio, monthly_spend, src,
                                          src_stack, bill)  # both sides' known bias
            one_off_items = migration_one_off((lo, hi), engineers, engineer_week, d_side["offer"], d_side["gpus"],
                                              dst_hours, parallel_weeks, parallel_default, d_side["sub"])
            unproven, measured = _thin_evidence(cat, error_bands, m, dst, stack, task, src_stack, monthly_spend,
                                                bill)
    elif parallel_weeks < 0 or not math.isfinite(parallel_weeks):  # a given saving: labour only, the flag still checked
        raise InputError("parallel-weeks", Message("err.must_be_a_number_in_got", lo=0, hi=520, v=parallel_weeks))
    t = migration_tco(monthly_spend, min(saving, monthly_spend), (lo, hi), engineers, engineer_week, horizon_months,
                      one_off_items, unproven, not_carried)
    return {"model": lookup.checkpoint_id(m, task, asked), "preset": m.id,  # what the task downloads; the preset
            "gpus": asked_gpus,  # the cards each side's tokens/s is asked on (`--gpus`; fewer where none rents them)
            "from": src.id, "to": dst.id, "stack": stack.id, "weeks_reason": why,
            "weeks_reason_i18n": why_msg.to_json(), "task": task,
            "workload_note": render(workload_msg) if workload_msg else None,
            "workload_note_i18n": workload_msg.to_json() if workload_msg else None,
            "derived": derived, "if_known_error": known, "measured_error": measured,
            # the weeks both sides are paid while the new one runs beside the old (default assumed)
            "parallel_weeks": parallel_weeks, "parallel_weeks_default": parallel_default,
            # the monthly spend used; default true when the caller gave none (DEFAULT_MONTHLY_SPEND_CNY, assumed)
            "monthly_spend_cny": monthly_spend, "monthly_spend_default": spend_default,
            "monthly_spend_note": render(spend_msg), "monthly_spend_note_i18n": spend_msg.to_json(),
            "libraries": [u.model_dump(mode="json") for u in libraries],
            **t.model_dump(mode="json"), **pricing_basis(region, kinds), "offers_used": used}
