"""The CLI says the subsidy and the purchase prices' dates (buyer's review 2026-12-01, task full-subsidy), en and zh:
tco and plan print gross → net, rent-vs-buy takes --subsidy and --cards as whole servers, and dates, warns about and
notes its purchase prices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_run import run_cli

TODAY = "2026-12-01"


def _run(args: list[str], mp: pytest.MonkeyPatch, cap: pytest.CaptureFixture[str], home: Path) -> str:
    code, out, err = run_cli(args, mp, cap, home, today=TODAY)
    assert code == 0, (out, err)
    return out if "--json" in args else " ".join(out.split())  # a long reason wraps at the terminal's width


def test_tco_says_the_subsidy(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                              tmp_path: Path) -> None:
    args = ["tco", "--gpu", "910b", "--gpus", "8", "--hours", "300", "--subsidy", "0.25", "--tokens-per-s", "5000"]
    out = _run(args, monkeypatch, capsys, tmp_path)
    assert "11,250" in out
    assert "subsidy 25 % of domestic compute: ¥15,000 → ¥11,250" in out
    zh = _run(["--lang", "zh", *args], monkeypatch, capsys, tmp_path)
    assert "国产算力补贴 25%：¥15,000 → ¥11,250" in zh
    rows = json.loads(_run([*args, "--json"], monkeypatch, capsys, tmp_path))
    assert (rows[0]["gross_cost_cny"], rows[0]["cost_cny"], rows[0]["subsidy"]) == (15000.0, 11250.0, 0.25)
    plain = _run(args[:-4], monkeypatch, capsys, tmp_path)
    assert "subsidy" not in plain


def test_plan_says_the_subsidy(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                               tmp_path: Path) -> None:
    args = ["plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--gpu", "910b", "--subsidy", "0.3"]
    out = _run(args, monkeypatch, capsys, tmp_path)
    # ¥1,875 per card-month × 8 cards = ¥15,000 before the subsidy, ¥10,500 after it: the figures add up
    assert "¥1,875 per card-month" in out and "subsidy 30 % of domestic compute: ¥15,000 → ¥10,500" in out
    zh = _run(["--lang", "zh", *args], monkeypatch, capsys, tmp_path)
    assert "国产算力补贴30%：¥15,000→¥10,500" in zh.replace(" ", "")  # Chinese lines break between characters
    p = json.loads(_run([*args, "--json"], monkeypatch, capsys, tmp_path))["plans"][0]
    assert (p["cost_cny"], p["gross_cost_cny"], p["subsidy"]) == (10500.0, 15000.0, 0.3)


def test_rent_vs_buy_subsidy_and_whole_servers(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    out = _run(["rent-vs-buy", "--gpu", "910b", "--subsidy", "0.3"], monkeypatch, capsys, tmp_path)
    assert "subsidy 30 % of domestic compute: ¥22,500 → ¥15,750 per card-year at this use; rent side only" in out
    zh = _run(["--lang", "zh", "rent-vs-buy", "--gpu", "910b", "--subsidy", "0.3"], monkeypatch, capsys, tmp_path)
    assert "国产算力补贴 30%：¥22,500 → ¥15,750（此利用率下每卡每年）；仅计入租用一侧" in zh
    out = _run(["rent-vs-buy", "--gpu", "910b", "--cards", "16"], monkeypatch, capsys, tmp_path)
    assert "2 × 8-card servers bought for 16 cards" in out
    assert "2 × 8-card instances, one per server bought" in out
    assert "2 separate instances, not one 16-card job" in out and "neither side includes an inter-node network" in out
    assert "16 cards × 3 years" in out
    code, out, err = run_cli(["rent-vs-buy", "--gpu", "910b", "--cards", "12"], monkeypatch, capsys, tmp_path,
                             today=TODAY)
    assert code == 2 and "must be 1 to 8 or a multiple of 8 (whole ascend-910b servers; got 12)" in out + err
    code, out, err = run_cli(["--lang", "zh", "rent-vs-buy", "--gpu", "910b", "--cards", "12"], monkeypatch, capsys,
                             tmp_path, today=TODAY)
    assert code == 2 and "或为 8 的整数倍" in out + err


def test_rent_vs_buy_dates_and_notes_purchase_prices(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = ["rent-vs-buy", "--gpu", "910b", "--cards", "8", "--years", "3", "--utilization", "0.7"]
    out = _run(args, monkeypatch, capsys, tmp_path)
    assert "card price: purchase px-reuters-910b-card-2024-02, dated 2024-02" in out
    assert "server price: purchase px-aqiusha-910b-8card-server-2024-03, dated 2024-03-25" in out
    assert "purchase price px-reuters-910b-card-2024-02 is dated 2024-02, 34 months old (older than 12)" in out
    assert "low confidence: the device is identified by sound" in out
    zh = _run(["--lang", "zh", *args], monkeypatch, capsys, tmp_path)
    assert "单卡价格：采购价 px-reuters-910b-card-2024-02，日期 2024-02" in zh
    assert "已有 34 个月（超过 12 个月）" in zh
    j = json.loads(_run([*args, "--json"], monkeypatch, capsys, tmp_path))
    assert j["card_price_date"] == "2024-02" and j["server_price_date"] == "2024-03-25"
    assert len(j["purchase_notes"]) == 3
