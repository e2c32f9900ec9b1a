"""rent-vs-buy answers that add up (buyer's check 2026-12-01, full-rvb).

1. A cards-included server quoted below n × the card (H200: ¥190,000 a card, ¥1,500,000 for the 8-card server,
   offers-2.yaml) counts a card at the server ÷ n, so owning is never billed above the quoted server; the note names
   both figures and their sources.
2. Break-even 0 (owning cheaper even at 1 h of use: with spread use a monthly offer is rented all year) says
   "buying pays off at any use" and why, in en and zh, not "above 0.0% use"."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from suanli.catalog.offers import DEFAULT_REGION
from suanli.catalog.schema import Catalog, Offer
from suanli.i18n import Message, render
from suanli.plan.cost import rent_vs_buy
from suanli.views.rent_vs_buy import RentVsBuyAnswer, rent_vs_buy_answer

TODAY = dt.date(2026, 12, 1)


def _answer(cat: Catalog, gpu: str, **kw: Any) -> RentVsBuyAnswer:
    return rent_vs_buy_answer(cat, gpu, 0.5, "spread", 3.0, 1.3, 0.6, today=TODAY, region=DEFAULT_REGION, **kw)


def test_server_below_n_cards_counts_the_server_per_card(cat: Catalog) -> None:
    card = next(p for p in cat.purchases if p.device == "h200" and p.item == "card")
    server = next(p for p in cat.purchases if p.device == "h200" and p.item == "server")
    assert card.price_cny.value * server.cards > server.price_cny.value  # the data this guards (offers-2.yaml)
    a = _answer(cat, "h200")
    per_card = server.price_cny.value / server.cards
    assert a.card_cny == pytest.approx(per_card) and a.server_share_cny == 0.0
    assert a.result.capex_cny == pytest.approx(per_card)
    assert a.totals["cards"] == server.cards
    assert a.totals["capex_all_cards_cny"] == pytest.approx(server.price_cny.value)  # was ¥1,520,000 > the quoted ¥1,500,000
    assert a.json["card_from"].startswith(f"purchase {server.id} ÷ {server.cards} cards")
    note = a.json["server_share_note"]
    for said in (card.id, server.id, card.price_cny.chosen.source, server.price_cny.chosen.source,
                 f"¥{card.price_cny.value:,.0f}", f"¥{server.price_cny.value:,.0f}", f"¥{per_card:,.0f}"):
        assert said in note, (said, note)
    zh = render(Message.from_json(a.json["server_share_note_i18n"]), "zh")
    assert card.id in zh and server.id in zh and "不一致" in zh


def test_server_above_n_cards_keeps_the_chassis_share(cat: Catalog) -> None:
    """Unchanged where the server costs more than its cards (the H100 HGX: the rest is non-card hardware)."""
    a = _answer(cat, "h100", kinds=("listing", "index", "reference"))
    card = next(p for p in cat.purchases if p.device == a.acc.id and p.item == "card")
    assert a.card_cny == card.price_cny.value and a.server_share_cny and a.server_share_cny > 0
    assert a.server_msg is not None and a.server_msg.id == "rvb.server.shared"


def test_card_price_given_is_kept(cat: Catalog) -> None:
    """The buyer's own quote wins (audit 2026-12-01 reversed 28fa9eb's cap on it): kept as typed, the rest of the
    server is its non-card hardware (none here), and the cheaper catalog server is a purchase note."""
    a = _answer(cat, "h200", card_price=190_000.0)
    assert a.card_cny == 190_000.0 and a.server_msg is not None and a.server_msg.id == "rvb.server.shared"
    kept = _answer(cat, "h200", card_price=190_000.0, server_share=0.0)
    assert kept.card_cny == 190_000.0


def _offer(unit: str, price: float, cards: int = 1) -> Offer:
    return Offer.model_validate({
        "id": f"t-{unit}", "provider": "p", "device": "h100-sxm", "cards": cards, "billing_unit": unit,
        "price_cny": {"value": price, "source": "seed-000"}, "min_units": 1, "date": "2026-07", "source": "seed-000",
    })


def test_break_even_zero_says_at_any_use_and_why() -> None:
    """A monthly offer used spread over the year is rented all 12 months: ¥120,000 a card-year whatever the use,
    above owning's ¥100,000 + power, so buying pays off at any use."""
    r = rent_vs_buy([_offer("month", 10_000.0)], 300_000.0, 0.0, 700.0, 1.3, 0.6, 0.0, 3.0, 0.5)
    assert r.break_even_utilization == 0.0
    assert r.break_even_note_i18n["id"] == "rvb.note.pays_off_any"
    en = r.break_even_note
    assert en.startswith("buying pays off at any use") and "0.0%" not in en
    assert "¥120,000" in en and "12 months" in en and "rented all year" in en and "--use-pattern blocks" in en
    zh = render(Message.from_json(r.break_even_note_i18n), "zh")
    assert zh.startswith("任何利用率下买卡都更划算") and "12 个月" in zh and "全年租用" in zh
    # in whole months the same offer bills the month in use: break-even above 0, the plain sentence
    b = rent_vs_buy([_offer("month", 10_000.0)], 300_000.0, 0.0, 700.0, 1.3, 0.6, 0.0, 3.0, 0.5, "blocks")
    assert b.break_even_utilization and b.break_even_note_i18n["id"] == "rvb.note.pays_off"


def test_break_even_zero_in_blocks_names_the_minimum_bill() -> None:
    """A yearly offer in whole blocks bills the whole year for 1 h: at any use, without the spread clause."""
    r = rent_vs_buy([_offer("year", 120_000.0)], 300_000.0, 0.0, 700.0, 1.3, 0.6, 0.0, 3.0, 0.5, "blocks")
    assert r.break_even_utilization == 0.0 and r.break_even_note_i18n["id"] == "rvb.note.pays_off_any"
    assert "bills 1 year for it" in r.break_even_note and "spread" not in r.break_even_note
