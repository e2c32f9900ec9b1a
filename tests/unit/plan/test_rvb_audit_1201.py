"""rent-vs-buy findings of the 2026-12-01 audit (task full-auditA).

1. Whole servers bought (`--cards` a multiple of the node's cards) are rented as bought: n instances of an offer
   that holds one server's cards as one job (16 H800: 2 × 云擎天下's 8-card month, ¥103,500 a card-year as for 8),
   never AutoDL's 1-card hour as "16 separate instances" (¥77,789, 25 % less per card than 8 cards). The fallback
   when no offer holds all the cards (`compare.one_job_options`) takes one that holds a server's cards first.
2. A server priced with its cards included (H800: no card row, share_cards None) still counts the servers bought:
   JSON `servers` / `server_cards`, the CLI's "2 × 8-card server(s)" line.
3. A typed `--card-price` is the buyer's quote: kept as typed, with a note that the catalog's cards-included server
   works out cheaper per card (CLI and API); the catalog's own card price keeps the cap.
(4. tests/unit/plan/test_subsidy_purchase_1201.py asserts every non-domestic plan has no subsidy.)"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from cli_run import run_cli
from suanli.catalog.schema import Catalog
from suanli.i18n import Message, render
from suanli.plan.compare import one_job_options, rent_for, rent_options
from suanli.units import HOURS_PER_YEAR
from suanli.views.rent_vs_buy import rent_vs_buy_answer

TODAY = dt.date(2026, 12, 1)
LISTING = ("listing",)
NODE_OFFER = "omniyq-h800-8card-month"
HOURLY_1CARD = "autodl-h800-hour-2026-08"


def _answer(cat: Catalog, gpu: str, **kw: Any) -> Any:
    return rent_vs_buy_answer(cat, gpu, 0.5, "spread", 3.0, 1.3, 0.6, today=TODAY, region="cn", kinds=LISTING, **kw)


# 1. whole servers rented as bought ------------------------------------------------------------------------------


def test_16_h800_cost_what_8_cost_per_card(cat: Catalog) -> None:
    eight, sixteen = _answer(cat, "h800", n_cards=8), _answer(cat, "h800", n_cards=16)
    for a in (eight, sixteen):
        assert a.rent_offer is not None and a.rent_offer.id == NODE_OFFER
        assert a.json["rent_at_utilization_offer"] == NODE_OFFER
        # one server: one job, no note; two: 2 separate 8-card instances, neither side with an inter-node network
        ids = [n["id"] for n in a.json["rent_notes_i18n"]]
        assert ids == ([] if a is eight else ["tco.separate_instances", "rvb.no_fabric"]), ids
    assert sixteen.json["rent_cny_per_card_year"] == eight.json["rent_cny_per_card_year"] == 103_500.0
    assert sixteen.result.rent_at_utilization_cny == eight.result.rent_at_utilization_cny
    assert sixteen.totals["cards"] == 16 and sixteen.totals["rent_cny"] == pytest.approx(2 * eight.totals["rent_cny"])
    assert (sixteen.rent_instances, sixteen.rent_instance_cards) == (2, 8) and eight.rent_instances is None
    assert "2 × 8-card instances, one per server bought" in sixteen.json["rent_from"]
    assert "instances" not in eight.json["rent_from"]


def test_fallback_keeps_a_servers_cards_in_one_instance(cat: Catalog) -> None:
    """rent_for for 16 cards straight (no offer holds 16 as one job): the 8-card month, which holds a server's
    cards, before AutoDL's 1-card hour; only when no offer holds a server's cards does every offer count."""
    opts = rent_options(cat, "h800", HOURS_PER_YEAR, "cn", LISTING, gpus=16)
    pool = one_job_options(cat, "h800", opts, 16)
    assert [o.id for _, o, _ in pool] == [NODE_OFFER]
    assert opts[0][1].id == NODE_OFFER and opts[-1][1].id == HOURLY_1CARD
    found = rent_for(cat, "h800", HOURS_PER_YEAR, "cn", LISTING, today=TODAY, gpus=16)
    assert found is not None and found[1].id == NODE_OFFER
    # L20: only 1-card listings, so every offer, as before (tco's "separate instances" note, all the cards)
    l20 = _answer(cat, "l20", n_cards=16, server_share=3000.0)
    assert l20.rent_instances is None
    assert [n["params"]["gpus"] for n in l20.json["rent_notes_i18n"]] == [16]


def test_whole_910b_servers_rent_two_8_card_instances(cat: Catalog) -> None:
    one, two = _answer(cat, "910b", n_cards=8), _answer(cat, "910b", n_cards=16)
    assert two.rent_offer is not None and two.rent_offer.id == one.rent_offer.id
    assert two.rent_instances == 2 and one.json["rent_notes"] == []
    assert [n["id"] for n in two.json["rent_notes_i18n"]] == ["tco.separate_instances", "rvb.no_fabric"]


# 2. servers counted from a cards-included server ------------------------------------------------------------------


def test_servers_counted_from_the_included_server(cat: Catalog) -> None:
    a = _answer(cat, "h800", n_cards=16)
    assert a.json["servers"] == 2 and a.json["server_cards"] == 8
    assert _answer(cat, "h800", n_cards=8).json["servers"] is None


def test_cli_says_the_servers_and_instances(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    code, out, err = run_cli(["rent-vs-buy", "--gpu", "h800", "--cards", "16"], monkeypatch, capsys, tmp_path,
                             today="2026-12-01")
    assert code == 0, err
    assert "2 × 8-card servers bought for 16 cards" in out
    words = " ".join(out.split())  # the rent-from line wraps at the terminal's width
    assert "2 × 8-card instances, one per server bought" in words
    assert "2 separate instances, not one 16-card job" in words  # tco's note, said since 2026-12-02 (F.4)
    assert "¥11.82/card-h" in out
    code, out, err = run_cli(["--lang", "zh", "rent-vs-buy", "--gpu", "h800", "--cards", "16"], monkeypatch, capsys,
                             tmp_path, today="2026-12-01")
    assert code == 0, err
    flat = out.replace("\n", "").replace(" ", "")
    assert "购买2台8卡服务器" in flat and "共2个8卡实例" in flat


# 3. the buyer's own card price wins -----------------------------------------------------------------------------


def test_typed_card_price_kept_and_the_cheaper_server_said(cat: Catalog) -> None:
    a = _answer(cat, "h200", card_price=190_000.0)
    assert a.card_cny == 190_000.0 and a.result.capex_cny == 190_000.0 and a.json["card_from"] == "--card-price"
    assert a.server_msg is not None and a.server_msg.id == "rvb.server.shared"
    note = a.json["purchase_notes_i18n"][-1]
    assert note["id"] == "rvb.purchase.server_cheaper" and note["params"]["per_card"] == 187_500.0
    assert "¥187,500 a card (cheaper)" in a.json["purchase_notes"][-1]
    assert "折合每卡 ¥187,500（更便宜）" in render(Message.from_json(note), "zh")
    # the catalog's own card keeps the cap, said as before
    c = _answer(cat, "h200")
    assert c.card_cny == 187_500.0 and c.server_msg is not None and c.server_msg.id == "rvb.server.over"
    assert all(n["id"] != "rvb.purchase.server_cheaper" for n in c.json["purchase_notes_i18n"])
    # a typed card within the server: no note
    below = _answer(cat, "h200", card_price=100_000.0)
    assert all(n["id"] != "rvb.purchase.server_cheaper" for n in below.json["purchase_notes_i18n"])


def test_typed_card_price_cli_and_api(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                      tmp_path: Path) -> None:
    fastapi = pytest.importorskip("fastapi.testclient")
    from suanli.api import Settings, create_app

    code, out, err = run_cli(["rent-vs-buy", "--gpu", "h200", "--card-price", "190000"], monkeypatch, capsys,
                             tmp_path, today="2026-12-01")
    assert code == 0, err
    assert "buy ¥190,000 card" in out and "works out at ¥187,500 a card (cheaper)" in out
    code, out, err = run_cli(["rent-vs-buy", "--gpu", "h200", "--card-price", "190000", "--json"], monkeypatch,
                             capsys, tmp_path, today="2026-12-01")
    cli = json.loads(out)
    monkeypatch.setenv("SUANLI_TODAY", "2026-12-01")
    client = fastapi.TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 'a.db'}")))
    api = client.post("/api/rent-vs-buy", json={"gpu": "h200", "card_price": 190000}).json()
    zh = client.post("/api/rent-vs-buy?lang=zh", json={"gpu": "h200", "card_price": 190000}).json()
    for got in (cli, api, zh):
        assert got["card_cny"] == 190_000.0 and got["capex_cny"] == 190_000.0
        assert got["purchase_notes_i18n"][-1]["id"] == "rvb.purchase.server_cheaper"
    assert "¥187,500" in api["purchase_notes"][-1] and "`card_price`" in api["purchase_notes"][-1]
    assert "折合每卡 ¥187,500（更便宜）" in zh["purchase_notes"][-1]
