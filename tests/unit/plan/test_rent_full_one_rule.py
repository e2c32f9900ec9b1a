"""rent-vs-buy and migrate cost take the same rules as plan, tco and compare (task full-rent, 2026-12-01).

1. `rent_options`/`rent_for` apply plan's one-job offer rule (`offers.can_rent`, through `compare.separate_instances`,
   the function `tco_rows` uses): the cards bought rent from an offer that holds them as one job when one exists,
   and an offer that cannot says "N separate instances" as tco does.
2. The catalog's card price above a cards-included server's price per card is capped at the server ÷ its cards
   (`plan.cost.card_within_server`); a typed one is the buyer's quote and kept, with a note that the catalog's
   server works out cheaper per card (audit 2026-12-01 reversed the cap on it), CLI and POST /api/rent-vs-buy.
3. `migrate cost --task training` takes compare's training layout for the device and cards (`_training_layout`),
   so both state the same layout and tokens/s."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from cli_run import run_cli
from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.plan.compare import compare_devices, migration_cost, rent_for, rent_options, tco_rows
from suanli.plan.cost import card_within_server
from suanli.units import HOURS_PER_YEAR
from suanli.views.rent_vs_buy import rent_vs_buy_answer

TODAY = dt.date(2026, 12, 1)
LISTING = ("listing",)


def _answer(cat: Catalog, gpu: str, **kw: Any) -> Any:
    return rent_vs_buy_answer(cat, gpu, 0.5, "spread", 3.0, 1.3, 0.6, today=TODAY, region="cn", kinds=LISTING, **kw)


# 1. one job ---------------------------------------------------------------------------------------------------


def test_rent_options_put_one_job_offers_first_and_say_separate_instances(cat: Catalog) -> None:
    """8 H800 cards: AutoDL's 1-card hour (no multi-card instance) is 8 separate instances, never one 8-card job;
    云擎天下's 8-card month holds them, so it rents them, whatever AutoDL's lower card-hour."""
    opts = rent_options(cat, "h800", HOURS_PER_YEAR, "cn", LISTING, gpus=8)
    by_id = {o.id: bill for _, o, bill in opts}
    autodl = by_id["autodl-h800-hour-2026-08"]
    assert [n["id"] for n in autodl.notes_i18n] == ["tco.separate_instances"]
    assert autodl.notes_i18n[0]["params"] == {"gpus": 8, "instances": 8, "limit": 1}
    assert "8 separate instances, not one 8-card job" in autodl.notes[0]
    assert not by_id["omniyq-h800-8card-month"].notes_i18n
    assert opts[0][1].id == "omniyq-h800-8card-month"  # the offers that hold the job first, as tco orders them
    found = rent_for(cat, "h800", HOURS_PER_YEAR, "cn", LISTING, today=TODAY, gpus=8)
    assert found is not None and found[1].id == "omniyq-h800-8card-month"
    # one card: every offer holds it, the cheapest fresh card-hour as before
    one = rent_for(cat, "h800", HOURS_PER_YEAR, "cn", LISTING, today=TODAY)
    assert one is not None and one[1].id == "autodl-h800-hour-2026-08"


def test_rent_vs_buy_rents_the_cards_bought_as_one_job(cat: Catalog) -> None:
    """The H800's 8-card server (capex per card = server ÷ 8) against renting 8 cards as one machine, not 8 AutoDL
    1-card VMs; the rent at the use comes from the same one-job pool."""
    for kw in ({}, {"n_cards": 8}):
        a = _answer(cat, "h800", **kw)
        assert a.rent_offer is not None and a.rent_offer.id == "omniyq-h800-8card-month", kw
        assert a.json["rent_at_utilization_offer"] == "omniyq-h800-8card-month"
        assert a.totals["cards"] == 8 and a.json["rent_notes"] == []


def test_separate_instances_said_as_tco_says_it(cat: Catalog) -> None:
    """8 L20s: only 天翼云's 1-card listings exist, so the rent is 8 separate instances, said with tco's note."""
    a = _answer(cat, "l20", n_cards=8, server_share=3000.0)
    assert a.rent_offer is not None and a.rent_offer.id == "ctyun-l20-1card-month"
    tco = next(r for r in tco_rows(cat, "l20", 100.0, gpus=8, region="cn", kinds=LISTING, today=TODAY)
               if r["offer"] == "ctyun-l20-1card-month")
    apart = [n for n in tco["notes_i18n"] if n["id"] == "tco.separate_instances"]
    assert apart and a.json["rent_notes_i18n"] == apart
    assert a.json["rent_notes"] == [n for n in tco["notes"] if "separate instances" in n]


def test_cli_prints_separate_instances(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    code, out, err = run_cli(["rent-vs-buy", "--gpu", "l20", "--cards", "8", "--server-share", "3000"],
                             monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    assert "8 separate instances, not one 8-card job" in out


# 2. the catalog's card price capped; a typed one kept with a note ------------------------------------------------


def test_card_within_server_is_one_rule() -> None:
    assert card_within_server(190_000.0, 1_500_000.0, 8) == 187_500.0
    assert card_within_server(100_000.0, 1_500_000.0, 8) is None
    assert card_within_server(187_500.0, 1_500_000.0, 8) is None  # exactly the server: within it


def test_typed_card_price_kept_with_a_note(cat: Catalog) -> None:
    a = _answer(cat, "h200", card_price=200_000.0)
    assert a.card_cny == 200_000.0 and a.json["server_share_cny"] == 0.0
    assert a.server_msg is not None and a.server_msg.id == "rvb.server.shared"
    note = a.json["purchase_notes"][-1]
    assert "¥200,000" in note and "¥1,500,000" in note and "¥187,500" in note and "--card-price" in note
    catalog = _answer(cat, "h200")  # the catalog's card, capped
    assert catalog.card_cny == 187_500.0 and catalog.server_msg is not None
    assert catalog.server_msg.id == "rvb.server.over"
    below = _answer(cat, "h200", card_price=100_000.0)  # within the server: kept, the rest is non-card hardware
    assert below.card_cny == 100_000.0 and below.server_msg is not None and below.server_msg.id == "rvb.server.shared"


def test_typed_card_price_kept_cli_and_api_alike(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    fastapi = pytest.importorskip("fastapi.testclient")
    from suanli.api import Settings, create_app

    code, out, err = run_cli(["rent-vs-buy", "--gpu", "h200", "--card-price", "200000", "--json"],
                             monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    cli = json.loads(out)
    monkeypatch.setenv("SUANLI_TODAY", "2026-12-01")
    client = fastapi.TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 'a.db'}")))
    r = client.post("/api/rent-vs-buy", json={"gpu": "h200", "card_price": 200000})
    assert r.status_code == 200, r.text
    api = r.json()
    for got in (cli, api):
        assert got["card_cny"] == 200_000.0 and got["capex_cny"] == 200_000.0
        assert got["purchase_notes_i18n"][-1]["id"] == "rvb.purchase.server_cheaper"
        assert "¥187,500" in got["purchase_notes"][-1]
    assert "`card_price`" in api["purchase_notes"][-1] and "--card-price" in cli["purchase_notes"][-1]


# 3. migrate cost's training layout is compare's ----------------------------------------------------------------


@pytest.mark.parametrize("task", ["full", "lora"])
def test_migrate_training_takes_compares_layout(cat: Catalog, task: str) -> None:
    m = lookup.model(cat, "qwen2.5-14b")
    kinds = ("listing", "index")
    mig = migration_cost(cat, m, "910b", "h100", 100_000.0, task=task, kinds=kinds, today=TODAY)
    rows = {r["device"]: r for r in compare_devices(cat, m, ["h100", "910b"], task=task, gpus=8, kinds=kinds,
                                                     today=TODAY)}
    for dev in ("h100-sxm", "ascend-910b"):
        lay, row = mig["derived"][dev]["workload"], rows[dev]["layout"]
        assert (lay["tp"], lay["pp"], lay["zero"], lay["batch"], lay["recompute"], lay["framework"]) == (
            row["tp"], row["pp"], row["zero"], row["batch"], row["recompute"], row["framework"]), (dev, lay, row)
        assert mig["derived"][dev]["tokens_per_s_8_cards"] == pytest.approx(rows[dev]["tokens_per_s"], rel=1e-9)


def test_issue_11_saving_still_positive(cat: Catalog) -> None:
    """Issue 11's acceptance: qwen2.5-14b H100 → 910B at ¥100k a month saves (priced from listings and SMM's index:
    no Chinese listing of the H100 exists, README)."""
    m = lookup.model(cat, "qwen2.5-14b")
    mig = migration_cost(cat, m, "910b", "h100", 100_000.0, kinds=("listing", "index"), today=TODAY)
    assert mig["monthly_saving_cny"] > 0
