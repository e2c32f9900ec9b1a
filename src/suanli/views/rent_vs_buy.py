"""Rent vs buy for one device, one function for `suanli rent-vs-buy` and POST /api/rent-vs-buy: the card and server
prices the catalog gives (or the caller's), the rent offer (the cheapest way to hold a card for a year, any billing
unit; `plan.compare.rent_for`), the core's verdict (`plan.cost.rent_vs_buy`), the fresh-price range of a close
verdict and the whole purchase's totals. The CLI prints `RentVsBuyAnswer` as text or its `json` (`--json`); the API
returns its `json`. Errors name the CLI's flags (`rent-price`, `cards`); the API renames them to its fields."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from suanli.catalog import lookup
from suanli.catalog import offers as offer_q
from suanli.catalog.offers import rent_message
from suanli.catalog.schema import Accelerator, Catalog, Offer
from suanli.errors import InputError, echoed
from suanli.i18n import Message, both, render
from suanli.plan.compare import (no_price, no_price_message, offer_facts, one_job_options, rent_for, rent_options,
                                 separate_instances)
from suanli.catalog.schema import Purchase
from suanli.plan.cost import (USE_PATTERNS, RentVsBuy, card_within_server, cost_assumptions, host_w_per_card,
                               rent_vs_buy, rent_vs_buy_totals)
from suanli.units import HOURS_PER_MONTH, HOURS_PER_YEAR

__all__ = ["DEFAULT_UTILIZATION", "RVB_CLOSE_MARGIN", "RentVsBuyAnswer", "assumptions", "fresh_range",
           "rent_vs_buy_answer"]

RVB_CLOSE_MARGIN = 0.10  # assumed: a verdict whose rent and own costs at full use are within 10 % shows the price range
# assumed: the share of the year the cards work when none is given (`suanli rent-vs-buy --utilization`, the API's
# `utilization`): no source knows the buyer's hours; said as an assumption in every answer (`assumptions`)
DEFAULT_UTILIZATION = 0.5


def fresh_range(cat: Catalog, device: str, reg: str, kinds: tuple[str, ...], today: dt.date, r: RentVsBuy,
                card: float, srv: float, tdp: float, pue: float, electricity: float, ops: float, years: float,
                utilization: float, use_pattern: str = "spread", gpus: int = 1,
                subsidy: float = 0.0, host_w: float = 0.0) -> dict[str, Any] | None:
    """When renting and owning at full use are within `RVB_CLOSE_MARGIN`, break-even at the cheapest and dearest
    fresh price (`offers.is_stale`) the usable offers give for a card-year: one price moves a close verdict. Each
    break-even rents from that offer alone, billed in its own unit as the verdict is (`rent_vs_buy`). The offers are
    those that hold the `gpus` cards bought as one job, else all (`plan.compare.one_job_options`, rent_for's pool)."""
    margin = abs(r.rent_cny_per_year_full_use - r.buy_cny_per_year) / max(r.buy_cny_per_year, 1e-9)
    if margin >= RVB_CLOSE_MARGIN:
        return None
    opts = [t for t in one_job_options(cat, device, rent_options(cat, device, HOURS_PER_YEAR, reg, kinds, gpus), gpus)
            if not offer_q.is_stale(t[1], today)]
    lo, hi = (opts[0], opts[-1]) if opts else (None, None)
    be = [rent_vs_buy([t[1]], card, srv, tdp, pue, electricity, ops, years, utilization,
                      use_pattern, subsidy, host_w).break_even_utilization if t is not None else None for t in (lo, hi)]
    return {"margin": margin, "offers": [{"offer": t[1].id, "provider": t[1].provider, "date": str(t[1].date),
                                          "rent_cny_per_card_hour": t[0]} for t in opts],
            "break_even_at_lowest": be[0], "break_even_at_highest": be[1]}


@dataclass(frozen=True)
class RentVsBuyAnswer:
    """The answer and what its text needs: `json` is `suanli rent-vs-buy --json` and POST /api/rent-vs-buy."""

    json: dict[str, Any]
    acc: Accelerator
    result: RentVsBuy
    rent_cny_per_card_hour: float
    card_cny: float
    server_share_cny: float  # always priced: a catalog server, its cards-included price or --server-share
    server_msg: Message | None
    rent_offer: Offer | None  # None: --rent-price
    rent_bill: Any
    at_offer: Offer | None
    fresh: dict[str, Any] | None
    totals: dict[str, Any]
    region: str
    kinds: tuple[str, ...]
    rent_instances: int | None = None  # whole servers bought: rented as this many instances of a server's cards
    rent_instance_cards: int | None = None  # the cards of each (the device's cards per node)


def purchase_notes(rows: list[tuple[str, Purchase]], today: dt.date,
                   months: float = offer_q.DEFAULT_STALE_MONTHS) -> tuple[dict[str, Any], list[Message]]:
    """The purchase prices an answer used, as rent offers are cited: each row's date (`card_price_date`,
    `server_price_date`), the staleness warning by rent offers' rule (`offers.is_stale`: older than `months`) and
    the catalog row's own note (a low-confidence identification) — the warnings first."""
    dates: dict[str, Any] = {}
    stale: list[Message] = []
    notes: list[Message] = []
    for what, p in rows:
        dates[f"{what}_price_date"] = p.date
        dates[f"{what}_price_id"] = p.id
        if offer_q.is_stale(p, today, months):
            stale.append(Message("rvb.purchase.stale", id=p.id, date=p.date, age=offer_q.offer_age_months(p, today),
                                 months=months))
        if p.note:
            notes.append(Message("rvb.purchase.note", id=p.id, note=both(p.note, p.note_zh)))  # its zh twin in zh
    return dates, stale + notes


def _mid(p: Any) -> float:
    return float((p.price_cny.value + (p.price_cny_max.value if p.price_cny_max else p.price_cny.value)) / 2)


def _fabric_notes(acc: Accelerator, o: Offer, cards: int, servers: int, server_cards: int) -> list[Message]:
    """Whole servers bought and rented one instance per server: tco's note where `o` cannot hold the `cards` as one
    job (`plan.compare.separate_instances`: "8 separate instances, not one 64-card job … never a training job across
    them"), and that neither side prices an inter-node network; where `o` spans nodes, that the purchase prices none
    (buyer review 2026-12-02, task F.4: 64 × 910B rented as '8 × 8-card instances' with neither said)."""
    apart = separate_instances(acc, o, cards)
    if apart is None:
        return [Message("rvb.buy_no_fabric", servers=servers, cards=cards, offer=o.id)]
    return [apart, Message("rvb.no_fabric", servers=servers, server_cards=server_cards, cards=cards)]


def rent_vs_buy_answer(cat: Catalog, gpu: str, utilization: float, use_pattern: str, years: float, pue: float,
                       electricity: float, ops: float = 0.0, card_price: float | None = None,
                       server_share: float | None = None, rent_price: float | None = None,
                       tdp_w: float | None = None, n_cards: int | None = None, region: str = offer_q.DEFAULT_REGION,
                       kinds: tuple[str, ...] = ("listing",), today: dt.date | None = None,
                       subsidy: float = 0.0, host_w: float | None = None,
                       given: Collection[str] = ()) -> RentVsBuyAnswer:
    """Per card per year: renting against buying (capex, power = (TDP + the card's share of its server's non-card
    draw, `host_w` else `plan.cost.host_w_per_card`) × PUE × price, ops) and break-even use, and
    the whole purchase (`n_cards`, else the catalog server's cards, else 1, × `years`). `n_cards` above the cards
    of one server is whole servers (a multiple of them): bought as n servers, each sharing its own non-card
    hardware, and rented as n instances of a server's cards, each one job where an offer holds it (`rent_for`'s
    rule with the server's cards). A typed `card_price` is kept as typed (the buyer's quote); when the catalog's
    cards-included server works out cheaper per card a purchase note says so. `subsidy` refunds that share of
    the rent (tco's rule, domestic devices only); purchases are not subsidised: seed-003 §八 Q4 speaks of
    "对国产算力有20%-30%的补贴" answering whether renting domestic compute is cheaper, and names no purchase.
    `given`: the inputs the caller typed (`pue`, `electricity`, `ops`, `years`, `utilization`), each said "as given"
    in `assumptions` whatever its value, the default's too."""
    if use_pattern not in USE_PATTERNS:
        raise InputError("use-pattern", Message("err.is_not_one_of", value=echoed(use_pattern),
                                                allowed=", ".join(USE_PATTERNS)))
    today = today or dt.date.today()
    reg = region
    acc = lookup.accelerator(cat, gpu)
    per_node = acc.max_cards_per_node
    if n_cards is not None and not (1 <= n_cards <= per_node or n_cards % per_node == 0 and n_cards <= 4096):
        raise InputError("cards", Message("err.cards_whole_servers", max_cards=per_node, acc_id=acc.id,
                                          n_cards=n_cards))
    if subsidy and not acc.domestic:  # tco's rule (`tco_rows`): a subsidy for domestic compute
        raise InputError("subsidy", Message("err.subsidies_apply_to_domestic_compute_is", acc_id=acc.id))
    whole = n_cards is not None and n_cards > per_node  # whole servers: the server's own cards share its hardware
    cards = [p for p in cat.purchases if p.device == acc.id and p.item == "card"]
    servers = [p for p in cat.purchases if p.device == acc.id and p.item == "server"]
    if n_cards is not None and servers and server_share is None:
        # only a server row for --cards prices that server's non-card hardware: one for 1 card spread over 8 is
        # no figure (and flips verdicts), so the buyer gives the share
        same = [p for p in servers if p.cards == n_cards or whole and p.cards > 0 and n_cards % p.cards == 0]
        if not same:
            have = "/".join(str(c) for c in sorted({p.cards for p in servers}))
            raise InputError("cards", Message("error.rvb_no_server", cards=n_cards, device=acc.id, have=have,
                                              field="server_share"))
        servers = same

    used_rows: list[tuple[str, Purchase]] = []  # the purchase rows the capex comes from, dated and noted below
    card = card_price if card_price is not None else (cards[0].price_cny.value if cards else None)
    if card_price is None and cards:
        used_rows.append(("card", cards[0]))
    # where the card's price comes from, as a message (`card_from_i18n`: the API's field name and language; the JSON's
    # English line is its CLI rendering, "--card-price" or "purchase <row>")
    card_from: Message | None = (Message("rvb.card_from.given", field="card_price") if card_price is not None else
                                 Message("rvb.card_from.purchase", id=cards[0].id) if cards else None)
    srv = server_share
    srv_msg: Message | None = Message("rvb.server.flag", cny=server_share, field="server_share") if server_share is not None else None
    included_cards: int | None = None  # the cards of a server whose price per card is the capex
    if card is None and servers:  # only a server price: its cards included, so the whole capex per card
        included_cards = servers[0].cards
        used_rows.append(("server", servers[0]))
        card = _mid(servers[0]) / max(servers[0].cards, 1)
        card_from = Message("rvb.card_from.server", id=servers[0].id, cards=servers[0].cards)
        if srv is None:
            srv, srv_msg = 0.0, Message("rvb.server.included", cards=servers[0].cards)
    if card is None:
        # every other input the answer will also lack, named in the same line so that one retry works (buyer review
        # 2026-12-02: the H20 141GB and 910C stopped at the card, then at the server share, then at the rent)
        also = _also_missing(cat, acc, srv is None, rent_price is None and rent_for(
            cat, acc.id, HOURS_PER_YEAR, reg, kinds, today=today, gpus=per_node if whole else n_cards or 1) is None,
            tdp_w is None and acc.specs.tdp_w is None, reg, kinds)
        raise InputError("card-price", Message("err.no_purchase_price_for_in_the", acc_id=acc.id, field="card_price")
                         if also is None else Message("error.rvb_no_purchase_also", acc_id=acc.id, field="card_price",
                                                      also=also))
    share_cards = None
    cheaper_server: Message | None = None  # a typed card dearer than the catalog's cards-included server per card
    if srv is None and servers:  # a server's price includes its cards (SCHEMA.md, purchases): the rest is the
        # server's non-card hardware, shared by the cards it holds (--cards; default the catalog server's)
        sv = servers[0]
        used_rows.append(("server", sv))
        share_cards = sv.cards if whole else n_cards or sv.cards
        capped = card_within_server(card, _mid(sv), sv.cards)  # the one cap (plan.cost)
        if capped is not None and card_price is not None:
            # the buyer's own quote wins: kept as typed (the server's non-card share is then 0), and the catalog's
            # cards-included server, cheaper per card, said beside it (audit 2026-12-01: 28fa9eb capped it)
            cheaper_server = Message("rvb.purchase.server_cheaper", id=sv.id, server=_mid(sv), server_cards=sv.cards,
                                     per_card=capped, card=card, field="card_price")
        if capped is not None and card_price is None:
            # the catalog's card × the server's cards costs more than the whole server, cards included (two rounded
            # reports that disagree, e.g. H200's ¥190,000 a card and ¥1,500,000 for 8): a card is the server ÷ its
            # cards and no non-card hardware is left
            over, card = card, capped
            srv = 0.0
            card_from = Message("rvb.card_from.server_over", id=sv.id, cards=sv.cards, card_id=cards[0].id,
                                total=over * sv.cards)
            srv_msg = Message("rvb.server.over", id=sv.id, server=_mid(sv), server_cards=sv.cards,
                              server_source=sv.price_cny.chosen.source, per_card=card, card_id=cards[0].id,
                              card=over, card_source=cards[0].price_cny.chosen.source,
                              cards_total=over * sv.cards)
        else:
            chassis = max(_mid(sv) - card * sv.cards, 0.0)
            srv = chassis / share_cards
            srv_msg = Message("rvb.server.shared", id=sv.id, server=_mid(sv), server_cards=sv.cards, chassis=chassis,
                              cards=share_cards, assumed=Message("rvb.server.assumed_chassis", server_cards=sv.cards,
                                                                 cards=share_cards, field="server_share") if share_cards > sv.cards else "")
    if srv is None:
        # no server row for the device and no --server-share: a card (PCIe or module) runs only in a server, so a
        # card-only capex is no buy figure and its verdict no verdict (buyer review 2026-12-01: an L20 "buy is
        # cheaper by ¥127,803" beside "buying counts the card only"). The one rule --cards keeps above
        # (`error.rvb_no_server`): without a priced server share, refuse and name the flag that supplies it
        raise InputError("server-share", Message("error.rvb_server_unpriced", device=acc.id, card=card,
                                                 field="server_share"))
    srv_note = render(srv_msg, "en") if srv_msg is not None else None  # the JSON contract stays English
    # the whole purchase: --cards, else the catalog server's cards (the one its share or its price per card comes
    # from), else 1; renting them is one job where an offer holds them so (plan's rule, `rent_for`'s `gpus`)
    total_cards = n_cards or share_cards or included_cards or 1
    # whole servers: each server's cards rented as one instance (n instances of the node offer), as they are bought
    rent_gpus = per_node if whole else total_cards
    instances: int | None = None
    given_rent = Message("rvb.rent_from.given", field="rent_price")  # the API names its field (`rent_price`)
    rent_info: dict[str, Any] = {"rent_from": render(given_rent, "en"), "rent_from_i18n": given_rent.to_json()}
    rent_o: Offer | None = None
    rent_bill: Any = None
    separate: Message | None = None  # no offer holds the cards as one job: the verdict says so (rent_vs_buy_totals)
    pool: list[Offer] = []  # the offers renting at a use is billed from: the fresh ones, else all (rent_for's rule)
    if rent_price is not None:
        rent = rent_price
    else:
        found = rent_for(cat, acc.id, HOURS_PER_YEAR, reg, kinds, today=today, gpus=rent_gpus)
        if found is None:
            raise InputError("rent-price", no_price_message(cat, acc.id, reg, kinds) + "; or pass --rent-price",
                             Message("error.rent_no_price", why=no_price(cat, acc.id, reg, kinds),
                                                             field="rent_price"))
        rent, o, bill = found
        if separate_instances(acc, o, rent_gpus) is not None:  # counted over every card bought, as the bill's note
            separate = separate_instances(acc, o, total_cards)
        if whole and separate_instances(acc, o, per_node) is None:
            instances = total_cards // per_node  # n × one server's cards, each one job
        elif whole:  # no offer holds a server's cards: the note counts every card bought (tco's "N separate")
            bill = next(c for _, u, c in rent_options(cat, acc.id, HOURS_PER_YEAR, reg, kinds, total_cards)
                        if u.id == o.id)
        rent_o, rent_bill = o, bill
        # the offers that hold the cards as one job, else all (`one_job_options`, rent_for's pool)
        usable = [t[1] for t in one_job_options(cat, acc.id, rent_options(cat, acc.id, HOURS_PER_YEAR, reg, kinds,
                                                                          rent_gpus), rent_gpus)]
        pool = [u for u in usable if not offer_q.is_stale(u, today)] or list(usable)
        # the offer as plans cite it too (catalog.offers.rent_message: one formatter), its bill for the year; one
        # message for the JSON (English), the API's other language (`rent_from_i18n`) and the CLI's line
        rent_from = Message("rvb.rent_from", offer=o.id, rent=rent_message(o), billing_unit=o.billing_unit,
                            cards=bill.cards_rented, units=bill.units_billed, cost=bill.cost_cny,
                            per_card=Message("cli.rvb.per_card", cards=bill.cards_rented) if bill.cards_rented > 1 else "",
                            instances=Message("cli.rvb.instances", instances=instances, cards=per_node) if instances else "")
        rent_info = {
            "rent_from": render(rent_from, "en"), "rent_from_i18n": rent_from.to_json(),
            "rent_offer": offer_facts(o, today), "rent_billing_unit": o.billing_unit,
            "rent_cny_per_card_year": bill.cost_cny / bill.cards_rented,
            # the bill's notes: "N separate instances, not one N-card job" when no offer holds the cards as one
            # (`plan.compare.separate_instances`, tco's note), a block rented whole, the billing rounding
            "rent_notes": list(bill.notes), "rent_notes_i18n": list(bill.notes_i18n),
        }
        if instances and instances > 1:  # several servers each rented alone: what neither side prices (task F.4)
            for note in _fabric_notes(acc, o, total_cards, instances, per_node):
                rent_info["rent_notes"].append(render(note, "en"))
                rent_info["rent_notes_i18n"].append(note.to_json())
    if tdp_w is not None:
        tdp = tdp_w
    elif acc.specs.tdp_w is not None:
        tdp = acc.specs.tdp_w.value
    else:  # never a silent ¥0 of power: the buyer supplies the figure the catalog lacks
        raise InputError("tdp-w", Message("err.no_power_figure_tdp_for_in", acc_id=acc.id, field="tdp_w"))
    assume = cost_assumptions(cat)
    share = assume.host_power_share.value if assume.host_power_share is not None else 0.0
    host, host_cited = (host_w, False) if host_w is not None else host_w_per_card(acc, tdp, share)
    r = rent_vs_buy(pool or rent, card, srv, tdp, pue, electricity, ops, years, utilization, use_pattern,
                    subsidy, host)
    fresh = fresh_range(cat, acc.id, reg, kinds, today, r, card, srv, tdp, pue, electricity, ops,
                        years, utilization, use_pattern, rent_gpus, subsidy, host) if rent_price is None else None
    said = assumptions(cat, acc, pue, electricity, ops, years, utilization, tdp, host, host_cited,
                       host_given=host_w is not None, given=given)
    dates, p_notes = purchase_notes(used_rows, today)
    if cheaper_server is not None:
        p_notes.append(cheaper_server)
    rent_vs_price = _rent_vs_price(card, srv, rent, rent_o, dates.get("card_price_date") or dates.get("server_price_date"))
    at_o = next((u for u in pool if u.id == r.rent_at_utilization_offer), None)
    extra_at: dict[str, Any] = {"rent_at_utilization_offer_facts": offer_facts(at_o, today)} if at_o is not None else {}
    # the whole purchase beside the rent for it: total_cards × --years
    # the core's sums (`plan.cost.rent_vs_buy_totals`): rent, own = capex + running, the verdict and the difference
    totals = rent_vs_buy_totals(r, total_cards, years, separate).model_dump(mode="json")
    # a server's cards when whole servers are bought: the priced row's (shared or cards-included), else the node's
    server_cards = share_cards or included_cards or per_node
    extra = {"rent_cny_per_card_hour": rent, **rent_info, "card_cny": card,
             "card_from": render(card_from, "en") if card_from is not None else None,
             "card_from_i18n": card_from.to_json() if card_from is not None else None,
             "server_share_cny": srv, "server_share_note": srv_note,
             "server_share_note_i18n": srv_msg.to_json() if srv_msg is not None else None,
             # the cards of one server bought: its non-card share's, else (whole servers) the included server's
             "server_cards": share_cards or (server_cards if whole else None), "fresh_rent_range": fresh, "totals": totals, **extra_at,
             # whole servers bought (--cards a multiple of the server's cards), else null
             "servers": total_cards // server_cards if whole else None,
             # the purchase rows' dates, their staleness (rent offers' rule) and low-confidence notes
             "card_price_date": None, "server_price_date": None, **dates,
             "purchase_notes": [render(m, "en") for m in p_notes], "purchase_notes_i18n": [m.to_json() for m in p_notes],
             # the card bought in months of this rent, and how a node offer's price became a card's (`_rent_vs_price`)
             "rent_vs_price": render(rent_vs_price, "en"), "rent_vs_price_i18n": rent_vs_price.to_json(),
             # every input the verdict rests on that no quote gives: PUE, ¥/kWh, operations, years, use, host power
             "assumptions": said}
    out = {**r.model_dump(mode="json"), "years": years, "resale_value_cny": 0.0, "region": reg,
           "offer_kinds": list(kinds), **extra}  # the years the capex is spread over (--years)
    return RentVsBuyAnswer(json=out, acc=acc, result=r, rent_cny_per_card_hour=rent, card_cny=card,
                           server_share_cny=srv, server_msg=srv_msg, rent_offer=rent_o,
                           rent_bill=rent_bill, at_offer=at_o, fresh=fresh, totals=totals, region=reg, kinds=kinds,
                           rent_instances=instances, rent_instance_cards=per_node if instances else None)


def _rent_vs_price(card: float, server_share: float, rent_cny_per_card_hour: float, offer: Offer | None,
                   price_date: Any) -> Message:
    """The card bought (card + its server share) in months of the rent at full use (a month = 730 h,
    `units.HOURS_PER_MONTH`), so a low monthly rent beside a purchase price reads as what it is: where the offer prices
    a whole multi-card instance (an 8-card 910B machine at ¥15,000 a month: ¥1,875 per card-month) it says the
    price was divided by its cards, and with a catalog purchase row the two dates (buyer review 2026-12-02)."""
    per_month = rent_cny_per_card_hour * HOURS_PER_MONTH
    per_card = (Message("rvb.rent_vs_price.per_card", cards=offer.cards, billing_unit=offer.billing_unit)
                if offer is not None and offer.cards > 1 else "")
    when = (Message("rvb.rent_vs_price.dates", price_date=str(price_date), rent_date=str(offer.date))
            if offer is not None and price_date is not None else "")
    return Message("rvb.rent_vs_price", capex=card + server_share, card=card, share=server_share,
                   months=(card + server_share) / per_month if per_month > 0 else 0.0, per_month=per_month,
                   per_card=per_card, dates=when)


def _also_missing(cat: Catalog, acc: Accelerator, server: bool, rent: bool, tdp: bool, reg: str,
                  kinds: tuple[str, ...]) -> Message | None:
    """The inputs besides the card price that a rent-vs-buy answer for `acc` also lacks — the server share (no
    server price either), a rent (no usable offer under `reg`/`kinds`: why, `plan.compare.no_price`), the TDP — as
    one chained clause each naming its flag; None when the card price is the only one missing."""
    parts: list[tuple[str, dict[str, Any]]] = []
    if server:
        parts.append(("error.rvb_also.server_share", {"field": "server_share"}))
    if rent:
        parts.append(("error.rvb_also.rent_price", {"field": "rent_price", "why": no_price(cat, acc.id, reg, kinds)}))
    if tdp:
        parts.append(("error.rvb_also.tdp_w", {"field": "tdp_w"}))
    out: Message | None = None
    for msg_id, params in reversed(parts):
        out = Message(msg_id, params, more=out if out is not None else "")
    return out


def assumptions(cat: Catalog, acc: Accelerator, pue: float, electricity: float, ops: float, years: float,
                utilization: float, tdp: float, host_w: float, host_cited: bool,
                host_given: bool = False, given: Collection[str] = ()) -> list[dict[str, Any]]:
    """The inputs of a rent-vs-buy answer that no price quote gives, each as used, one entry a key (`pue`,
    `electricity`, `ops`, `years`, `utilization`, `host_w`): `status` `assumed` (the catalog's `assumed` default, or
    the default use and ¥0 operations: `source` `assumed`, `text` says why), `cited` (a sourced default: `source`
    names it) or `given` (typed: `source` the field); `field` the request field (the CLI's flag) that changes it,
    `text`/`text_i18n` the entry in words. An input is `given` when it is in `given` (the caller typed it, the
    default's value too: a flag or field typed is never "assumed") or differs from its default."""
    a = cost_assumptions(cat)
    out: list[dict[str, Any]] = []

    def add(key: str, value: float, default: Any, what: Message, why: Message | None, unit: str) -> None:
        if default is None:
            status, source = "given", key
        else:
            source = default
            status = "assumed" if default == "assumed" else "cited"
        msg = Message(f"rvb.assume.{status}", what=what, why=why or "", source=source, field=key)
        out.append({"key": key, "value": value, "unit": unit, "status": status, "assumed": status == "assumed",
                    "source": source, "field": key, "text": render(msg, "en"), "text_i18n": msg.to_json()})

    def default_source(key: str, value: float, default: float, source: str) -> str | None:
        """The default's source where the input is the default nobody typed; None: given."""
        return source if key not in given and value == default else None

    def catalog_default(key: str, value: float, row: Any) -> str | None:
        return default_source(key, value, row.value, str(row.chosen.source))

    add("pue", pue, catalog_default("pue", pue, a.pue), Message("rvb.assume.what.pue", value=pue),
        Message("rvb.why.pue"), "")
    add("electricity", electricity, catalog_default("electricity", electricity, a.electricity_cny_per_kwh),
        Message("rvb.assume.what.electricity", value=electricity), Message("rvb.why.electricity"), "CNY/kWh")
    add("ops", ops, default_source("ops", ops, 0.0, "assumed"), Message("rvb.assume.what.ops", value=ops),
        Message("rvb.why.ops"), "CNY/card-year")
    add("years", years, catalog_default("years", years, a.amortization_years),
        Message("rvb.assume.what.years", value=years), Message("rvb.why.years"), "years")
    add("utilization", utilization, default_source("utilization", utilization, DEFAULT_UTILIZATION, "assumed"),
        Message("rvb.assume.what.utilization", value=utilization, hours=utilization * HOURS_PER_YEAR),
        Message("rvb.why.utilization"), "share of the year")
    what = Message("rvb.assume.what.host_w", value=host_w, tdp=tdp)
    if host_given:
        add("host_w", host_w, None, what, None, "W/card")
    elif host_cited and acc.server_power_w is not None and acc.specs.tdp_w is not None:
        sp = acc.server_power_w.chosen
        add("host_w", host_w, sp.source, what,
            Message("rvb.why.host_cited", server=sp.value, cards=acc.max_cards_per_node, tdp=acc.specs.tdp_w.value,
                    note=both(sp.note or "", sp.note_zh)), "W/card")
    else:
        share = a.host_power_share.value if a.host_power_share is not None else 0.0
        add("host_w", host_w, "assumed", what, Message("rvb.why.host_assumed", share=share), "W/card")
    return out
