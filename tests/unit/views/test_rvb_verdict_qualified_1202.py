"""Buyer review 2026-12-02, items 3 and 4 (rent-vs-buy).

3. `--gpu h20 --cards 96 --years 3 --utilization 1` printed "buy is cheaper by ¥2,611,477" where the rent side is 96
   separate 1-card instances (only a warning above said so): the verdict itself is now qualified when no rental offer
   holds the cards in one job (`totals.verdict_note`, the CLI's line, the API, the page).
4. `--gpu h20-141g` / `--gpu 910c` stopped at "no purchase price ... pass --card-price", then at the server share,
   then at the rent: the first line now names every input the answer also lacks, so one retry works."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from cli_run import run_cli
from fastapi.testclient import TestClient
from one_card_h20 import one_card_h20

from suanli.api import Settings, create_app
from suanli.catalog.load import packaged_catalog
from suanli.errors import InputError
from suanli.views.rent_vs_buy import rent_vs_buy_answer

TODAY = dt.date(2026, 12, 2)
ALL = ("listing", "index", "reference", "contract")


def _answer(gpu: str, cat=None, **kw):  # type: ignore[no-untyped-def]
    """PUE 1.3 and ¥0.8/kWh (the catalog's defaults), full use over 3 years unless given."""
    return rent_vs_buy_answer(cat or packaged_catalog(), gpu, kw.pop("utilization", 1.0), "spread", kw.pop("years", 3.0),
                              1.3, 0.8, today=TODAY, **kw)


def test_separate_instances_qualify_the_verdict() -> None:
    # the H20 rented one card per instance (its 1-card index row only, before offers-7.yaml's AutoDL listing)
    t = _answer("h20", one_card_h20(), n_cards=96, kinds=ALL).totals
    assert t["cards"] == 96 and t["verdict_note"] is not None, t
    assert t["verdict_note"].startswith("no rental offer holds 96 cards in one job"), t
    assert "96 separate instances of at most 1 card" in t["verdict_note"], t
    assert t["verdict_note_i18n"]["id"] == "rvb.verdict.separate"


def test_an_offer_holding_the_cards_leaves_the_verdict_plain() -> None:
    # whole 8-card servers bought, an 8-card instance rented per server: like for like, nothing to qualify
    a = _answer("h100", n_cards=16, kinds=ALL)
    assert a.rent_instances == 2, a.json["rent_from"]
    assert a.totals["verdict_note"] is None


def test_a_typed_rent_has_no_offer_to_qualify() -> None:
    assert _answer("h20", n_cards=96, rent_price=7.5).totals["verdict_note"] is None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_verdict_line(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    # the L20: 1-card listings only (the H20 was this example until offers-7.yaml listed AutoDL's multi-card rows)
    code, out, err = run_cli(["--lang", lang, "rent-vs-buy", "--gpu", "l20", "--cards", "96", "--years", "3",
                              "--utilization", "1", "--offer-kinds", "all", "--server-share", "0"], monkeypatch, capsys,
                             tmp_path, today="2026-12-02")
    assert code == 0, err
    flat = " ".join(out.split())
    assert ("is cheaper by ¥17,562,311, but no rental offer holds 96 cards in one job: the rent side is priced as 96 "
            "separate instances" if lang == "en" else "便宜 ¥17,562,311，但没有哪个租用报价能在一个任务中容纳 96 张卡") in flat, out


def test_api_totals_carry_the_note(tmp_path: Path) -> None:
    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 's.db'}")))
    body = {"gpu": "l20", "cards": 96, "years": 3, "utilization": 1, "offer_kinds": list(ALL), "server_share": 0}
    r = client.post("/api/rent-vs-buy?lang=zh", json=body)
    assert r.status_code == 200, r.text
    assert r.json()["totals"]["verdict_note"].startswith("没有哪个租用报价能在一个任务中容纳 96 张卡"), r.json()["totals"]


def _error(gpu: str, **kw) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as e:
        _answer(gpu, utilization=0.5, **kw)
    assert e.value.field == "card-price"
    return str(e.value)


def test_missing_card_price_names_the_other_missing_inputs() -> None:
    h20 = _error("h20-141g")  # default listing offers: none for the 141 GB H20 either
    assert "pass --card-price; and --server-share" in h20 and "or pass --rent-price" in h20, h20
    assert "--tdp-w" not in h20  # the catalog has its TDP
    h20_all = _error("h20-141g", kinds=ALL)
    assert "--server-share" in h20_all and "--rent-price" not in h20_all, h20_all
    c = _error("910c", kinds=ALL)
    assert "--server-share" in c and "--tdp-w" in c and "--rent-price" not in c, c
    only = _error("910c", kinds=ALL, server_share=40000.0, tdp_w=550.0)
    assert only.endswith("pass --card-price") and "; and" not in only, only


def test_one_retry_works() -> None:
    for gpu, extra in (("h20-141g", {}), ("910c", {"tdp_w": 550.0})):
        a = _answer(gpu, utilization=0.5, kinds=ALL, card_price=120000.0, server_share=40000.0, **extra)
        assert a.totals["cheaper"] in ("rent", "buy")
