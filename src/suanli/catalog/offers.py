"""Offer queries: which rental prices a job may use (region, kind, billing), what they rent (cards, nodes,
clusters), how old they are, and whether a new price is plausible. Pure functions over a `Catalog`: no I/O.

Every command that prices something filters the catalog's offers through `usable_offers` (or
`filter_catalog`), so `plan`, `compare`, `tco`, `scenarios`, `rent-vs-buy` and `migrate cost` all read the
same region and kinds the same way. Regions: `cn` (Chinese platforms; an offer without a region or with a
region starting `cn`/`china`), `international` (every other region) or `any`. Kinds: `listing` (a rentable
product on a named platform, with its URL and date), `index` (a market index or survey), `reference` (an
accounting assumption, a press figure), `contract` (a buyer's own quote or negotiated price: rentable by that buyer,
so every request that takes listings takes it too, `RENTABLE_KINDS`; never part of a plausibility band).
"""

from __future__ import annotations

import datetime as dt
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from suanli.catalog import lookup
from suanli.catalog.schema import OFFER_KINDS, Accelerator, Catalog, Offer, Purchase, Unpriced
from suanli.errors import InputError, echoed
from suanli.i18n import Message, render
from suanli.units import UNIT_HOURS

__all__ = [
    "DEFAULT_KINDS",
    "DEFAULT_REGION",
    "DEFAULT_STALE_MONTHS",
    "PLAUSIBLE_FACTOR",
    "REGIONS",
    "RENTABLE_KINDS",
    "Band",
    "can_rent",
    "can_span_nodes",
    "china_export_controlled",
    "card_hour_price",
    "filter_catalog",
    "is_international",
    "is_second_hand",
    "is_stale",
    "kinds_message",
    "kinds_priced",
    "mark_second_hand",
    "max_cards",
    "multi_node_gap",
    "network_label",
    "network_text",
    "offer_network_gbit_per_s",
    "offer_age_months",
    "offer_date",
    "parse_kinds",
    "parse_region",
    "planning_offers",
    "plausibility_band",
    "price_decimals",
    "scope_label",
    "scope_message",
    "stale_offers",
    "stale_message",
    "stale_warning",
    "unpriced_reason",
    "usable_offers",
    "variants_of",
    "assumed_variant",
]

REGIONS = ("cn", "any", "international")
DEFAULT_REGION = "cn"
DEFAULT_KINDS: tuple[str, ...] = ("listing",)
#: kinds a buyer can rent at the price shown: a public listing, or the buyer's own contract price. A request for
#: listings (the default) takes contract prices too; `--offer-kinds contract` takes them alone
RENTABLE_KINDS: tuple[str, ...] = ("listing", "contract")
DEFAULT_STALE_MONTHS = 12.0
PLAUSIBLE_FACTOR = 5.0  # a new price must lie within 1/5× … 5× the device's median per card-hour


def is_international(region: str | None) -> bool:
    """Offers outside mainland-China platforms (the catalog marks them `international` or a cloud region such as
    `us-east-1`); an offer without a region is a Chinese platform's."""
    return region is not None and not region.lower().startswith(("cn", "china"))


def parse_region(region: str | None) -> str:
    """`cn` (default), `any` or `international`; anything else is one line naming the allowed values."""
    r = (region or DEFAULT_REGION).strip().lower()
    if r not in REGIONS:
        raise InputError("region", Message("err.is_not_one_of", value=echoed(region), allowed=', '.join(REGIONS)))
    return r


def parse_kinds(kinds: str | Iterable[str] | None) -> tuple[str, ...]:
    """`listing` (default), or a comma-separated / repeated choice of listing, index, reference, contract; `all` =
    all four. A choice with `listing` takes contract prices too (`usable_offers`)."""
    if kinds is None:
        return DEFAULT_KINDS
    items = [k for part in ([kinds] if isinstance(kinds, str) else kinds) for k in str(part).split(",")]
    out: list[str] = []
    for k in (x.strip().lower() for x in items):
        if not k:
            continue
        if k == "all":
            return tuple(OFFER_KINDS)
        if k not in OFFER_KINDS:
            raise InputError("offer-kinds", Message("err.is_not_one_of_or_all", k=k, names_offer_kinds=', '.join(OFFER_KINDS)))
        if k not in out:
            out.append(k)
    if not out:
        raise InputError("offer-kinds", Message("err.give_at_least_one_of", names_offer_kinds=', '.join(OFFER_KINDS)))
    return tuple(out)


def usable_offers(cat: Catalog, region: str = DEFAULT_REGION, kinds: Sequence[str] = DEFAULT_KINDS,
                  billing: str | None = None, device: str | None = None) -> tuple[Offer, ...]:
    """The offers a job may be priced from: in `region` (cn, any, international), of one of `kinds` (`listing`
    takes `contract` too: a buyer's own price is rentable as a listing is), with `billing` unit (None or `any`: every
    unit) and for `device` (None: every device)."""
    region = parse_region(region)
    kinds = tuple(kinds) + (("contract",) if "listing" in kinds else ())
    return tuple(
        o for o in cat.offers
        if o.kind in kinds
        and (region == "any" or is_international(o.region) == (region == "international"))
        and (billing in (None, "any") or o.billing_unit == billing)
        and (device is None or o.device == device)
    )


def kinds_priced(kinds: Sequence[str], used: Iterable[str]) -> tuple[str, ...]:
    """The offer kinds an answer says it priced from: the requested `kinds` and the kind of every offer behind one
    of its figures (`used`), in OFFER_KINDS order. A request for listings takes the buyer's contract prices too
    (`usable_offers`), so a bill a contract price set says 'listing and contract', never 'listing' alone (buyer
    review 2026-12-02 #8: a private quote read as a market listing)."""
    have = {*kinds, *used}
    return tuple(k for k in OFFER_KINDS if k in have)


# an offer kind as `kinds_message` names it (static ids: the catalog-ids test finds them)
_KIND_PHRASES = {"listing": "price_kinds.listing", "index": "price_kinds.index", "reference": "price_kinds.reference",
                 "contract": "price_kinds.contract"}


def kinds_message(kinds: Sequence[str]) -> Message:
    """Offer kinds as one phrase: 'listing', 'listing and contract', 'listing, index, reference and contract';
    in Chinese each with its 价 ('挂牌价与合同价'), so a template does not add a second one. `kinds`: one or more."""
    names = [Message(_KIND_PHRASES[k]) for k in kinds]
    if len(names) == 1:
        return names[0]
    out = Message("price_kinds.and", first=names[-2], last=names[-1])
    for n in reversed(names[:-2]):
        out = Message("price_kinds.comma", first=n, rest=out)
    return out


def filter_catalog(cat: Catalog, region: str = DEFAULT_REGION, kinds: Sequence[str] = DEFAULT_KINDS,
                   billing: str | None = None) -> Catalog:
    """The same catalog with only the usable offers: what cost functions that read `cat.offers` should get."""
    return cat.model_copy(update={"offers": usable_offers(cat, region, kinds, billing)})


def can_span_nodes(offer: Offer) -> bool:
    """True when cards from several instances of this offer can form one job: a whole-node or cluster rental with
    an inter-node fabric (RoCE, InfiniBand or AWS EFA). Single-card rentals never combine into a multi-node job."""
    return offer.scope in ("node", "cluster") and offer.inter_node_network != "none"


_EXPORT_MARKS = ("export-controlled", "banned", "not licensable")


def china_export_controlled(acc: Accelerator) -> str | None:
    """The catalog's `china_market` line when it marks the device as export-controlled for China (not licensable,
    banned by a rule update), whatever platform rents it; None for domestic devices, China variants that pass
    the rules, and devices without such a line."""
    if acc.domestic or acc.china_market is None:
        return None
    text = str(acc.china_market.value)
    return text if any(m in text.lower() for m in _EXPORT_MARKS) else None


def max_cards(offer: Offer, cards_per_node: int) -> int:
    """Most cards one job (or one serving replica) can hold on this offer. Spanning nodes (`can_span_nodes`):
    `max_cards_per_order`, else unbounded. A whole node without a fabric: that node's cards. Card rentals: the
    instance's `cards`, unless the offer says one instance can take more cards of the same machine
    (`max_cards_per_order` above `cards`, or `multi_card_instance`: up to the device's `cards_per_node`); several
    single-card VMs are separate machines and never form one job. Never more than the published `stock`."""
    if can_span_nodes(offer):
        limit = offer.max_cards_per_order if offer.max_cards_per_order is not None else 1 << 30
    elif offer.scope == "node":
        limit = offer.cards
    else:
        one_machine = cards_per_node if offer.multi_card_instance else offer.cards
        if offer.max_cards_per_order is not None:
            one_machine = max(one_machine, offer.max_cards_per_order)
        limit = max(offer.cards, min(one_machine, cards_per_node))
    if offer.stock is not None:
        limit = min(limit, offer.stock)
    return limit


def offer_network_gbit_per_s(offer: Offer) -> float:
    """The offer's published inter-node network in Gbit/s per node; NaN when it publishes none."""
    return offer.inter_node_gbit_per_s.value if offer.inter_node_gbit_per_s else float("nan")


def can_rent(offer: Offer, cards_per_node: int, gpus: Any, tp: Any, serving: bool, net: Any = None) -> Any:
    """Whether `offer` can rent a job of `gpus` cards (tensor-parallel groups of `tp`) on a device with
    `cards_per_node` cards a node: the one rentability rule of `plan`, `compare` and `migrate cost` (arrays or
    scalars). Training on more than one node needs an offer that spans nodes (`can_span_nodes`) and holds the job
    (`max_cards`); serving replicas are independent model copies, so separate instances suffice as long as one holds
    a replica's `tp` cards (its group: tp × ep with expert parallelism). A serving group wider than a node is itself
    a multi-node job: it needs an offer that spans nodes, as training does (buyer review F 3). `net`: the inter-node
    network (Gbit/s per node, NaN = not published) a multi-node row was evaluated on: only offers publishing that
    network rent it; None: any network."""
    import numpy as np  # here: `suanli gpus` and `gpu` read offers without numpy (~0.04 s; cli/test_startup.py)

    multi_node = np.asarray(gpus) > cards_per_node
    # serving: replicas of one node each combine freely; a replica wider than a node does not
    apart = serving & (np.asarray(tp) <= cards_per_node)
    limit = max_cards(offer, cards_per_node)
    ok = (~multi_node | can_span_nodes(offer) | apart) & ((np.asarray(gpus) <= limit) | (serving & (np.asarray(tp) <= limit)))
    if net is not None:
        onet = offer_network_gbit_per_s(offer)
        row_net = np.asarray(net, dtype=float)
        ok &= ~multi_node | apart | (np.isnan(row_net) & math.isnan(onet)) | (row_net == onet)
    return ok


NETWORK_NAMES = {"none": "none", "roce": "RoCE", "infiniband": "InfiniBand", "efa": "EFA"}
LINK_NAMES = {"hccs": "HCCS", "nvswitch": "NVSwitch", "pcie": "PCIe", "nvlink": "NVLink"}  # an intra-node link, as written


def network_label(offer: Offer) -> str:
    """'EFA 3200 Gbit/s per node', 'RoCE', 'none': the offer's inter-node network as people write it."""
    name = NETWORK_NAMES[offer.inter_node_network]
    bw = f" {offer.inter_node_gbit_per_s.value:,.0f} Gbit/s per node" if offer.inter_node_gbit_per_s else ""
    return name + bw


def network_text(offer: Offer) -> dict[str, str]:
    """`network_label` in both languages, as a message parameter takes data text ('EFA，每节点 3,200 Gbit/s')."""
    name = NETWORK_NAMES[offer.inter_node_network]
    bw = offer.inter_node_gbit_per_s.value if offer.inter_node_gbit_per_s else None
    zh = ("无" if offer.inter_node_network == "none" else name) + (f"，每节点 {bw:,.0f} Gbit/s" if bw else "")
    return {"en": network_label(offer), "zh": zh}


def scope_label(offer: Offer) -> str:
    """'1 card', '8-card node (nvswitch; no inter-node fabric)', '8-card nodes, InfiniBand 3200 Gbit/s' …"""
    if offer.scope == "card":
        return f"{offer.cards} card{'s' if offer.cards > 1 else ''}"
    link = f"{offer.intra_node_link}; " if offer.intra_node_link else ""
    if offer.inter_node_network == "none":
        return f"{offer.cards}-card node ({link}no inter-node fabric)"
    return f"{offer.cards}-card {'cluster nodes' if offer.scope == 'cluster' else 'nodes'} ({link}{network_label(offer)})"


def scope_message(offer: Offer) -> Message:
    """`scope_label` as a message (the API's `scope_i18n`): '1 张卡', '8 卡整机（NVSwitch；无节点间网络）' in Chinese (the
    link as people write it; English keeps the catalog's id)."""
    if offer.scope == "card":
        return Message("offer.scope.card") if offer.cards == 1 else Message("offer.scope.cards", cards=offer.cards)
    link = ({"en": f"{offer.intra_node_link}; ", "zh": f"{LINK_NAMES.get(offer.intra_node_link, offer.intra_node_link)}；"}
            if offer.intra_node_link else "")
    if offer.inter_node_network == "none":
        return Message("offer.scope.node", cards=offer.cards, link=link)
    return Message("offer.scope.cluster" if offer.scope == "cluster" else "offer.scope.nodes", cards=offer.cards,
                   link=link, network=network_text(offer))


def card_hour_price(offer: Offer) -> float:
    """CNY per card-hour at full use: price ÷ cards ÷ hours per billing unit."""
    return offer.price_cny.value / offer.cards / UNIT_HOURS[offer.billing_unit]


def is_second_hand(offer: Offer) -> bool:
    """The offer's price was read through a third party (`Offer.second_hand`, set by `mark_second_hand`)."""
    return offer.second_hand


def mark_second_hand(offers: Iterable[Offer], sources: Any) -> list[Offer]:
    """The one second-hand rule: an offer whose source, or a source of one of its prices, is a third party's
    (`Source.third_party`: a scraper's files, a user's notes, an index, a post quoting the platform) is
    `second_hand`, shown "quoted via a third party" (zh 转引) wherever it is named. `sources`: id → Source. Applied when
    the catalog loads and to every imported row; an offer already marked stays marked."""
    def third(sid: str) -> bool:
        src = sources.get(sid)
        return bool(src is not None and getattr(src, "third_party", False))

    out: list[Offer] = []
    for o in offers:
        sids = {o.source, *(v.source for v in o.price_cny.values),
                *((v.source for v in o.price_cny_max.values) if o.price_cny_max else ())}
        out.append(o.model_copy(update={"second_hand": True}) if not o.second_hand and any(map(third, sids)) else o)
    return out


#: billing units whose price per card is written in whole yuan, as every other monthly figure is (¥1,875 per
#: card-month, not ¥1,875.00; buyer review 2026-12-02); an hour's (and a shorter unit's) price keeps the fen (¥8.88)
WHOLE_YUAN_UNITS = frozenset({"day", "week", "month", "year"})


def price_decimals(billing_unit: str) -> int:
    """The decimals a price per card per `billing_unit` is written with: 0 (whole yuan) for a day or longer
    (`WHOLE_YUAN_UNITS`), else 2 (to the fen)."""
    return 0 if billing_unit in WHOLE_YUAN_UNITS else 2


def rent_message(offer: Offer) -> Message:
    """Where a price rents from, the one formatter plans and `rent-vs-buy` share (buyer review 2026-12-01):
    'AutoDL, ¥8.88 per card-hour (listing, 2026-08-13, quoted via a third party)': provider, price per card per
    billing unit (whole yuan for a day or longer, `price_decimals`: '¥1,875 per card-month'), kind, date, and
    'quoted via a third party' (zh 转引) where the offer is second-hand (`mark_second_hand`)."""
    provider: str | dict[str, str] = {"en": offer.provider, "zh": offer.provider_zh} if offer.provider_zh else offer.provider
    msg_id = "offer.rent_whole" if price_decimals(offer.billing_unit) == 0 else "offer.rent"
    return Message(msg_id, provider=provider, price=offer.price_cny.value / offer.cards,
                   unit=Message(f"billing_unit.{offer.billing_unit}"), kind=Message(f"price_kind.{offer.kind}"),
                   date=str(offer.date), second_hand=Message("offer.second_hand") if is_second_hand(offer) else "")


def offer_date(offer: Offer | Purchase) -> dt.date:
    """The first day of the offer's date (2026 → 2026-01-01, 2026-07 → 2026-07-01): a year-only date is read at
    its oldest, so a freshness check never calls an old price new."""
    parts = [int(x) for x in offer.date.split("-")] + [1, 1]
    return dt.date(parts[0], parts[1], parts[2])


def offer_age_months(offer: Offer | Purchase, today: dt.date) -> float:
    """Months (30.44 days) between the offer's date and `today`."""
    return (today - offer_date(offer)).days / 30.436875


def is_stale(offer: Offer | Purchase, today: dt.date, months: float = DEFAULT_STALE_MONTHS) -> bool:
    """The one freshness rule: a price older than `months` (default 12) on `today` is stale. `offers --stale`
    lists such prices, cost answers warn about them, and the planner prices a configuration on a stale offer
    only when no fresh one can rent it (`plan.search._price`); rent-vs-buy warns about a stale purchase price
    (`views.rent_vs_buy`) by the same rule."""
    return offer_age_months(offer, today) > months


def stale_offers(offers: Iterable[Offer], today: dt.date, months: float = DEFAULT_STALE_MONTHS) -> list[Offer]:
    """Offers whose price is older than `months` (default 12) on `today`, oldest first."""
    if not (math.isfinite(months) and months > 0):
        raise InputError("stale-months", Message("err.must_be_a_positive_number_of", months=months))
    return sorted((o for o in offers if is_stale(o, today, months)), key=offer_date)


def stale_message(offer: Offer, today: dt.date, months: float = DEFAULT_STALE_MONTHS) -> Message | None:
    """The staleness warning as a message (`offer.stale`: id, provider, date, age, threshold); None when fresh."""
    if not is_stale(offer, today, months):
        return None
    provider: str | dict[str, str] = {"en": offer.provider, "zh": offer.provider_zh} if offer.provider_zh else offer.provider
    return Message("offer.stale", offer=offer.id, provider=provider, date=str(offer.date),
                   age=offer_age_months(offer, today), months=months)


def stale_warning(offer: Offer, today: dt.date, months: float = DEFAULT_STALE_MONTHS) -> str | None:
    """One line (English) when the offer's price is older than the threshold, naming its date; None when fresh."""
    msg = stale_message(offer, today, months)
    return None if msg is None else render(msg)


def _unpriced_note(u: Unpriced, lang: str) -> str:
    if lang == "zh" and u.note_zh:
        return f"{u.note_zh}（{u.searched} 查询）"
    return u.note + f" (searched {u.searched})"


def unpriced_reason(cat: Catalog, device: str, lang: str = "en", offers: Iterable[Offer] | None = None) -> str | None:
    """The catalog's one-line note on a device searched for and found without a public rental price (`lang` zh:
    its Chinese version where the catalog has one). With `offers` (those a listing may come from, imports included):
    None when one of them rents the device (a listing, or your own contract price: RENTABLE_KINDS), as the note
    explains a missing price to rent at."""
    if offers is not None and any(o.device == device and o.kind in RENTABLE_KINDS for o in offers):
        return None
    return next((_unpriced_note(u, lang) for u in cat.unpriced if u.device == device and u.missing == "price"), None)


def multi_node_gap(cat: Catalog, device: str, offers: Iterable[Offer] = (), lang: str = "en") -> str | None:
    """Why no multi-node job on `device` can be priced from `offers` (the ones a request may use): None when one
    of them spans nodes (`can_span_nodes`); else the catalog's note on the search for Chinese node or cluster
    rentals with an inter-node network (`unpriced` rows with `missing: multi-node`), else a generic line."""
    mine = [o for o in offers if o.device == device]
    if any(can_span_nodes(o) for o in mine):
        return None
    note = next((_unpriced_note(u, lang) for u in cat.unpriced if u.device == device and u.missing == "multi-node"),
                None)
    if note:
        return note
    if lang == "zh":
        return f"所用报价中没有带节点间网络（RoCE、InfiniBand 或 EFA）的 {device} 整机或集群报价，任务无法跨节点"
    return (f"no node or cluster offer of {device} with an inter-node network (RoCE, InfiniBand or EFA) "
            "among the offers used, so no job can span nodes")


@dataclass(frozen=True)
class Band:
    """The plausible CNY per card-hour for one device (and billing unit): `low` … `high`, around the median of
    `n` reference offers."""

    device: str
    billing_unit: str | None
    median_cny_per_card_hour: float
    low: float
    high: float
    n: int
    basis: str

    def contains(self, cny_per_card_hour: float) -> bool:
        return self.low <= cny_per_card_hour <= self.high

    def describe(self) -> str:
        unit = f"{self.billing_unit} billing" if self.billing_unit else "all billing units"
        return (f"plausible band for {self.device} ({unit}): ¥{self.low:,.4g}–¥{self.high:,.4g} per card-hour "
                f"(1/{PLAUSIBLE_FACTOR:g}× to {PLAUSIBLE_FACTOR:g}× the median ¥{self.median_cny_per_card_hour:,.4g} "
                f"of {self.n} {self.basis})")


def plausibility_band(offers: Iterable[Offer], device: str, billing_unit: str | None = None,
                      factor: float = PLAUSIBLE_FACTOR) -> Band | None:
    """The band a new price of `device` must fall in: 1/factor× to factor× the median CNY per card-hour of the
    device's listings with the same billing unit; else of its listings in any unit; else of all its published offers
    (index and reference figures too). A `contract` price (a buyer's own, not public) is never in it, so one buyer's
    imported prices do not move the band their next import is checked against. None when the device has no
    published price at all (nothing to compare with)."""
    mine = [o for o in offers if o.device == device and o.kind != "contract"]
    tiers = (
        ([o for o in mine if o.kind == "listing" and o.billing_unit == billing_unit], billing_unit, "listings"),
        ([o for o in mine if o.kind == "listing"], None, "listings"),
        ([o for o in mine if o.billing_unit == billing_unit], billing_unit, "offers (listing, index, reference)"),
        (mine, None, "offers (listing, index, reference)"),
    )
    for rows, unit, basis in tiers:
        if rows:
            med = statistics.median(card_hour_price(o) for o in rows)
            return Band(device, unit, med, med / factor, med * factor, len(rows), basis)
    return None


# An offer on a generic device is one whose page names no variant (offers-*.yaml put an offer on a variant id only
# where the quote names it, e.g. smm-910b2-8card-month-2026-09), so a plan on it does not know which it rents.
variants_of = lookup.variants_of


def _figures(a: Accelerator) -> tuple[float | None, ...]:
    s = a.specs
    return tuple(None if f is None else f.value for f in (s.memory_gib, s.memory_bandwidth_gb_per_s,
                                                          s.bf16_dense_tflops, s.fp16_dense_tflops))


def assumed_variant(cat: Catalog, device: Accelerator) -> Accelerator | None:
    """The variant whose figures a generic device's default specs are: the one with the same memory size, memory
    bandwidth and 16-bit dense peaks (ascend-910b: the 910B2's, as its china_market note says); None when no variant
    matches or the device has none."""
    mine = _figures(device)
    return next((v for v in variants_of(cat, device.id) if _figures(v) == mine), None)


#: Offer fields that only describe where a price came from: the planner never reads them to choose or price an offer
_DESCRIPTIVE_FIELDS = frozenset({"id", "price_cny", "price_cny_max", "date", "url", "source", "note", "provider",
                                 "provider_zh", "note_zh", "second_hand"})


def planning_offers(cat: Catalog) -> Catalog:
    """The catalog with only the offers the planner could choose: the one rule `suanli plan` (stored catalog) and
    POST /api/plan search with, so plan time does not grow with imported rows that repeat a shape at a higher price.
    Offers of one shape (every field the planner reads: device, billing unit, cards, minimum rental, region, kind,
    scope, order limits, networks, stock …, and the provider) are compared; one is dropped only where another is at
    least as fresh (`offer_date`, so stale on no day it is fresh: `is_stale`) and cheaper, or as cheap and earlier in
    the catalog (the planner's tie rule: `plan.search._price` keeps the first of equal keys). Order is kept."""
    fields = [f for f in Offer.model_fields if f not in _DESCRIPTIVE_FIELDS]
    groups: dict[tuple[Any, ...], list[tuple[dt.date, float, int]]] = {}
    for i, o in enumerate(cat.offers):
        key = (o.provider.strip().lower(), *(getattr(v, "value", v) for v in (getattr(o, f) for f in fields)))
        groups.setdefault(key, []).append((offer_date(o), o.price_cny.value, i))
    keep: set[int] = set()
    for rows in groups.values():
        best: tuple[float, int] | None = None  # the lowest (price, position) at this date or newer
        for _, price, i in sorted(rows, key=lambda r: (-r[0].toordinal(), r[1], r[2])):
            if best is None or (price, i) < best:
                keep.add(i)
                best = (price, i)
    if len(keep) == len(cat.offers):
        return cat
    return cat.model_copy(update={"offers": tuple(o for i, o in enumerate(cat.offers) if i in keep)})
