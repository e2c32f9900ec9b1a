"""The cost tabs add up on every surface (review 2026-12-01, hC).

- `suanli tco` at 60 columns keeps the notes' numbers and ¥/1M tok (--tokens-per-s given), dropping kind and
  billing unit first; the list ¥/card-h is the API row's `list_cny_per_card_hour` (`tco_rows`), the CLI reads it.
- rent-vs-buy's totals (cards × years: rent, own, capex of all cards, running, cheaper, diff) are the core's
  (`plan.cost.rent_vs_buy_totals`) from its parts; the CLI's totals line and POST /api/rent-vs-buy read them, and the
  per-card capex (`capex_cny`) is named apart from all cards' (`totals.capex_all_cards_cny`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from suanli.api import Settings, create_app
from suanli.catalog.offers import card_hour_price
from suanli.plan.cost import rent_vs_buy, rent_vs_buy_totals
from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner


def _run_cli(args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             tmp_path: Path, columns: int = 300) -> tuple[int, str, str]:
    return run_cli(args, monkeypatch, capsys, tmp_path, columns=columns, today="2026-12-01")


TCO = ("tco", "--gpu", "910b", "--hours", "720", "--gpus", "8", "--tokens-per-s", "1234", "--region", "any",
       "--offer-kinds", "all")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_narrow_tco_keeps_notes_and_cost_per_million_tokens(lang: str, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    code, out, err = _run_cli(("--lang", lang, *TCO), monkeypatch, capsys, tmp_path, columns=60)
    assert code == 0, err
    lines = out.splitlines()
    head = "\n".join(lines[:4])
    zh = lang == "zh"
    assert ("说明" if zh else "notes") in head and ("百万" if zh else "1M") in head, out
    left = next(line for line in lines if line.startswith("columns left out" if not zh else "未显示")
                or "left out" in line or "未显示" in line)
    assert ("kind" in left or "报价类型" in left), left  # kind went before the figures and the notes
    assert "(1)" in "\n".join(lines[:lines.index(left)]) and any(line.startswith("(1) ") for line in lines), out


def test_tco_list_price_is_the_rows(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                    tmp_path: Path) -> None:
    from suanli.catalog.load import load_catalog

    code, out, err = _run_cli((*TCO, "--json"), monkeypatch, capsys, tmp_path)
    assert code == 0, err
    rows = json.loads(out)
    by_id = {o.id: o for o in load_catalog().offers}
    for r in rows:
        assert r["list_cny_per_card_hour"] == pytest.approx(card_hour_price(by_id[r["offer"]]), abs=1e-4)
        assert r["effective_cny_per_card_hour"] == pytest.approx(r["cost_cny"] / (8 * 720), abs=1e-4)
    month = next(r for r in rows if r["offer"] == "omniyq-910b-8card-month")
    assert round(month["list_cny_per_card_hour"], 2) == 2.57 and round(month["effective_cny_per_card_hour"], 2) == 2.6


def test_api_tco_row_has_both_prices(tmp_path: Path) -> None:
    c = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 's.db'}")))
    r = c.post("/api/tco", json={"gpu": "ascend-910b", "hours": 720, "gpus": 8, "region": "any",
                                 "offer_kinds": ["listing", "index", "reference"]})
    assert r.status_code == 200, r.text
    for row in r.json():
        assert row["list_cny_per_card_hour"] > 0 and row["effective_cny_per_card_hour"] > 0
    assert any(not row["one_job"] and any("separate instances" in n for n in row["notes"]) for row in r.json())


def test_totals_are_the_cores_and_add_up() -> None:
    r = rent_vs_buy(2.0, 120_000.0, 10_000.0, 400.0, 1.3, 0.6, 1_000.0, 3.0, 0.5)
    t = rent_vs_buy_totals(r, 8, 3.0)
    assert t.capex_all_cards_cny == pytest.approx(130_000.0 * 8) and r.capex_cny == pytest.approx(130_000.0)
    assert t.running_cny == pytest.approx((1_000.0 + r.power_cny_per_year_full_use * 0.5) * 8 * 3)
    assert t.own_cny == pytest.approx(t.capex_all_cards_cny + t.running_cny)
    assert t.own_cny == pytest.approx(r.buy_at_utilization_cny * 8 * 3)
    assert t.rent_cny == pytest.approx(r.rent_at_utilization_cny * 8 * 3)
    assert t.cheaper == r.cheaper == ("rent" if t.rent_cny <= t.own_cny else "buy")
    assert t.diff_cny == pytest.approx(abs(t.own_cny - t.rent_cny))


def test_cli_and_api_read_the_totals(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                     tmp_path: Path) -> None:
    args = ("rent-vs-buy", "--gpu", "ascend-910b", "--cards", "8", "--years", "3")
    code, out, err = _run_cli((*args, "--json"), monkeypatch, capsys, tmp_path)
    assert code == 0, err
    t = json.loads(out)["totals"]
    assert set(t) == {"cards", "years", "rent_cny", "own_cny", "capex_all_cards_cny", "running_cny", "cheaper",
                      "diff_cny", "verdict_note", "verdict_note_i18n"}
    assert t["verdict_note"] is None  # an 8-card offer holds the 8 cards in one job: nothing qualifies the verdict
    assert t["capex_all_cards_cny"] == pytest.approx(1_500_000.0) and t["cheaper"] == "rent"
    code, out, err = _run_cli(("--lang", "en", *args), monkeypatch, capsys, tmp_path)
    line = next(x for x in out.splitlines() if x.startswith("8 cards × 3 years"))
    assert f"capex ¥{t['capex_all_cards_cny']:,.0f}" in line and f"by ¥{t['diff_cny']:,.0f}" in line, line
    assert "the 8-card server" in out and "a 8-card" not in out
    c = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 's.db'}")))
    got = c.post("/api/rent-vs-buy", json={"gpu": "ascend-910b", "cards": 8, "years": 3}).json()
    assert got["totals"]["diff_cny"] == pytest.approx(t["diff_cny"])
    assert got["totals"]["cheaper"] == t["cheaper"] and got["running_cny_per_year"] >= 0
