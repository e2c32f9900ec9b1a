"""Subsidies and purchase prices a grant report can use (buyer's review 2026-12-01, task full-subsidy).

1. The subsidy is said wherever it applies: gross and net from one rule (`plan.cost.subsidy_note`, job_cost's
   `gross_cost_cny`), in tco's rows, plan's reason and JSON, and POST /api/tco and /api/plan.
2. rent-vs-buy takes a subsidy on the rent side only (seed-003 §八 Q4 speaks of it for rented domestic compute), and
   cards as whole servers (a multiple of the server's cards: n servers bought, rented under the one-job rule).
3. Purchase prices are dated, warned when older than 12 months (rent offers' `offers.is_stale`) and the catalog
   row's low-confidence note shown (`card_price_date`, `server_price_date`, `purchase_notes`)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from suanli.api import Settings, create_app
from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.errors import InputError
from suanli.plan.compare import tco_rows
from suanli.plan.cost import job_cost, rent_vs_buy, subsidy_note
from suanli.views.money import round_money
from suanli.views.rent_vs_buy import rent_vs_buy_answer

TODAY = dt.date(2026, 12, 1)
LISTING = ("listing",)


def _answer(cat: Catalog, gpu: str, **kw: Any) -> Any:
    return rent_vs_buy_answer(cat, gpu, 0.5, "spread", 3.0, 1.3, 0.6, today=TODAY, region="cn", kinds=LISTING, **kw)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    db = tmp_path_factory.mktemp("subsidy") / "s.db"
    return TestClient(create_app(Settings(database_url=f"sqlite:///{db}")))


# 1. gross and net -------------------------------------------------------------------------------------------


def test_subsidy_note_is_gross_and_net() -> None:
    assert subsidy_note(15_000.0, 0.0) is None
    m = subsidy_note(15_000.0, 0.25)
    assert m is not None and m.id == "cost.subsidy"
    assert m.params == {"pct": 25.0, "gross": 15_000.0, "net": 11_250.0}
    from suanli.i18n import render

    assert render(m, "en") == "subsidy 25 % of domestic compute: ¥15,000 → ¥11,250"
    assert render(m, "zh") == "国产算力补贴 25%：¥15,000 → ¥11,250"


def test_tco_row_carries_gross_and_net(cat: Catalog) -> None:
    """The README's example: 8 × 910B for 300 h at 25 %: the ¥15,000 month is ¥11,250, both in the row."""
    row = tco_rows(cat, "910b", 300, 8, 0.25, 5000, region="cn", kinds=LISTING, today=TODAY)[0]
    assert row["offer"] == "omniyq-910b-8card-month"
    assert row["cost_cny"] == pytest.approx(11_250) and row["gross_cost_cny"] == pytest.approx(15_000)
    assert row["subsidy"] == 0.25
    assert row["subsidy_note"] == "subsidy 25 % of domestic compute: ¥15,000 → ¥11,250"
    # without a subsidy: gross = net, no note
    plain = tco_rows(cat, "910b", 300, 8, 0.0, region="cn", kinds=LISTING, today=TODAY)[0]
    assert plain["gross_cost_cny"] == plain["cost_cny"] and plain["subsidy_note"] is None


def test_job_cost_gross_is_the_bill_without_the_subsidy(cat: Catalog) -> None:
    o = next(o for o in cat.offers if o.id == "omniyq-910b-8card-month")
    c = job_cost(o, 8, 300, 0.3)
    assert c.gross_cost_cny == job_cost(o, 8, 300).cost_cny
    assert c.cost_cny == pytest.approx(c.gross_cost_cny * 0.7)


def test_api_tco_and_plan_say_the_subsidy(client: TestClient, cat: Catalog) -> None:
    r = client.post("/api/tco", json={"gpu": "910b", "gpus": 8, "hours": 300, "subsidy": 0.25})
    assert r.status_code == 200, r.text
    row = r.json()[0]
    assert (row["cost_cny"], row["gross_cost_cny"], row["subsidy"]) == (11250.0, 15000.0, 0.25)
    zh = client.post("/api/tco?lang=zh", json={"gpu": "910b", "gpus": 8, "hours": 300, "subsidy": 0.25}).json()[0]
    assert zh["subsidy_note"] == "国产算力补贴 25%：¥15,000 → ¥11,250"
    p = client.post("/api/plan", json={"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8,
                                      "devices": ["ascend-910b", "h800"], "subsidy": 0.3})
    assert p.status_code == 200, p.text
    plans = p.json()["plans"]
    dom = [x for x in plans if x["device"].startswith("ascend-910b")]
    assert dom, [x["device"] for x in plans]
    top = dom[0]
    assert top["subsidy"] == 0.3
    assert top["gross_cost_cny"] == round(top["cost_cny"] / 0.7, 2)  # rounded once, as views/money.py does
    assert "subsidy 30 % of domestic compute" in top["reason"]
    foreign = [x for x in plans if not lookup.accelerator(cat, x["device"]).domestic]
    assert foreign, [x["device"] for x in plans]  # the H800's plans: the check below has something to check
    for x in foreign:  # a device that is not domestic gets no subsidy (audit 2026-12-01: was skipped when it did)
        assert x["subsidy"] == 0 and x["gross_cost_cny"] == x["cost_cny"], x["device"]


# 2. rent-vs-buy: subsidy and whole servers -----------------------------------------------------------------


def test_rent_vs_buy_subsidy_is_the_rent_side_only(cat: Catalog) -> None:
    plain, sub = _answer(cat, "910b"), _answer(cat, "910b", subsidy=0.3)
    assert sub.result.rent_at_utilization_cny == pytest.approx(plain.result.rent_at_utilization_cny * 0.7)
    assert sub.result.gross_rent_at_utilization_cny == pytest.approx(plain.result.rent_at_utilization_cny)
    assert sub.result.rent_cny_per_year_full_use == pytest.approx(plain.result.rent_cny_per_year_full_use * 0.7)
    # the purchase is not subsidised: capex and owning unchanged
    assert sub.result.capex_cny == plain.result.capex_cny
    assert sub.result.buy_at_utilization_cny == plain.result.buy_at_utilization_cny
    assert sub.totals["rent_cny"] == pytest.approx(plain.totals["rent_cny"] * 0.7)
    assert sub.totals["own_cny"] == plain.totals["own_cny"]
    assert sub.json["subsidy_note"] == "subsidy 30 % of domestic compute: ¥22,500 → ¥15,750"
    assert plain.json["subsidy"] == 0.0 and plain.json.get("subsidy_note") is None


def test_rent_vs_buy_subsidy_with_a_typed_rent_price(cat: Catalog) -> None:
    r = rent_vs_buy(2.0, 100_000, 0, 400, 1.3, 0.6, 0, 3, 0.5, subsidy=0.25)
    assert r.rent_at_utilization_cny == pytest.approx(2.0 * 0.75 * 8760 * 0.5)
    assert r.gross_rent_at_utilization_cny == pytest.approx(2.0 * 8760 * 0.5)


def test_rent_vs_buy_subsidy_refused_for_a_foreign_device(cat: Catalog) -> None:
    with pytest.raises(InputError) as e:
        _answer(cat, "h800", subsidy=0.3)
    assert e.value.field == "subsidy"


def test_rent_vs_buy_cards_as_whole_servers(cat: Catalog) -> None:
    one, two = _answer(cat, "910b", n_cards=8), _answer(cat, "910b", n_cards=16)
    assert two.json["servers"] == 2 and two.json["server_cards"] == 8 and one.json["servers"] is None
    assert two.totals["cards"] == 16
    assert two.result.capex_cny == one.result.capex_cny  # each server's hardware shared by its own 8 cards
    assert two.totals["capex_all_cards_cny"] == pytest.approx(2 * one.totals["capex_all_cards_cny"])
    # rented as bought (audit 2026-12-01): 2 instances of the 8-card month, each server's cards one job; the notes
    # say they are 2 separate instances and neither side prices an inter-node network (buyer review 2026-12-02, F.4)
    assert two.rent_instances == 2 and two.rent_instance_cards == 8
    assert [n["id"] for n in two.json["rent_notes_i18n"]] == ["tco.separate_instances", "rvb.no_fabric"]
    assert one.json["rent_notes_i18n"] == []
    assert two.json["rent_cny_per_card_year"] == one.json["rent_cny_per_card_year"]
    for bad in (12, 9):
        with pytest.raises(InputError) as e:
            _answer(cat, "910b", n_cards=bad)
        assert e.value.field == "cards"
        assert e.value.i18n is not None and e.value.i18n.id == "err.cards_whole_servers"


# 3. purchase prices dated, stale and noted -------------------------------------------------------------------


def test_purchase_prices_dated_warned_and_noted(cat: Catalog) -> None:
    a = _answer(cat, "910b", n_cards=8)
    j = a.json
    assert (j["card_price_id"], j["card_price_date"]) == ("px-reuters-910b-card-2024-02", "2024-02")
    assert (j["server_price_id"], j["server_price_date"]) == ("px-aqiusha-910b-8card-server-2024-03", "2024-03-25")
    ids = [n["id"] for n in j["purchase_notes_i18n"]]
    assert ids == ["rvb.purchase.stale", "rvb.purchase.stale", "rvb.purchase.note"]
    assert "low confidence" in j["purchase_notes"][2]
    assert j["purchase_notes_i18n"][0]["params"]["months"] == 12
    # the same rule as rent offers: fresh when the date is within 12 months
    fresh = rent_vs_buy_answer(cat, "910b", 0.5, "spread", 3.0, 1.3, 0.6, today=dt.date(2024, 6, 1), region="cn",
                               kinds=LISTING, n_cards=8, rent_price=2.0)
    assert [n["id"] for n in fresh.json["purchase_notes_i18n"]] == ["rvb.purchase.note"]
    # typed prices: no catalog row, no date
    typed = _answer(cat, "910b", card_price=100_000, server_share=10_000)
    assert typed.json["card_price_date"] is None and typed.json["server_price_date"] is None
    assert typed.json["purchase_notes"] == []


def test_api_rent_vs_buy_takes_subsidy_and_whole_servers(client: TestClient) -> None:
    r = client.post("/api/rent-vs-buy", json={"gpu": "910b", "subsidy": 0.3, "cards": 16})
    assert r.status_code == 200, r.text
    j = r.json()
    assert j["subsidy"] == 0.3 and j["servers"] == 2
    assert j["gross_rent_at_utilization_cny"] == 22500.0 and j["rent_at_utilization_cny"] == 15750.0
    assert j["card_price_date"] == "2024-02" and j["server_price_date"] == "2024-03-25"
    assert len(j["purchase_notes"]) == 3
    assert round_money(j) == j  # money rounded once
    zh = client.post("/api/rent-vs-buy?lang=zh", json={"gpu": "910b", "cards": 8}).json()
    assert zh["purchase_notes"][0].startswith("采购价 px-reuters-910b-card-2024-02 的日期是 2024-02")


def test_web_page_form_field_named(tmp_path: Path) -> None:
    """The subsidy's refusal names the API field (`subsidy`), never a CLI flag."""
    app = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 's.db'}")))
    r = app.post("/api/rent-vs-buy", json={"gpu": "h800", "subsidy": 0.3})
    assert r.status_code == 422 and r.json()["field"] == "subsidy"
