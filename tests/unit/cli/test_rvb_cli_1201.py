"""rent-vs-buy and usage errors as the buyer read them (buyer's check 2026-12-01, full-rvb).

- `suanli rent-vs-buy --gpu h100 --offer-kinds all|index`: break-even 0 reads "buying pays off at any use" with
  why (table, JSON, API, en + zh), and the close-call sentence drops its "above 0% use" part.
- `suanli rent-vs-buy --gpu h200`: owning 8 cards costs the quoted ¥1,500,000 server, not 8 × ¥190,000.
- A global option after the command (`suanli plan … --lang zh`) says to put it before the command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from suanli.api import Settings, create_app
from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner


def _run_cli(args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             tmp_path: Path) -> tuple[int, str, str]:
    return run_cli(args, monkeypatch, capsys, tmp_path, today="2026-12-01")


@pytest.mark.parametrize("kinds", ["all", "index"])
def test_break_even_zero_reads_at_any_use(kinds: str, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = _run_cli(("--lang", "en", "rent-vs-buy", "--gpu", "h100", "--offer-kinds", kinds),
                              monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert "above 0% use" not in out and "above 0.0% use" not in out, out
    row = next(line for line in out.splitlines() if line.startswith("break-even use"))
    assert "buying pays off at any use" in row and "rented all year" in out, out
    close = next(line for line in out.splitlines() if line.startswith("close call"))
    assert "pays off" not in close and "¥14." in close, close  # the prices stay; the break-even part goes
    code, out, err = _run_cli(("--lang", "zh", "rent-vs-buy", "--gpu", "h100", "--offer-kinds", kinds),
                              monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert "任何利用率下买卡都更划算" in out and "高于 0%" not in out and "使用率高于" not in out, out
    code, out, err = _run_cli(("rent-vs-buy", "--gpu", "h100", "--offer-kinds", kinds, "--json"),
                              monkeypatch, capsys, tmp_path)
    got = json.loads(out)
    assert got["break_even_utilization"] == 0.0 and got["break_even_note_i18n"]["id"] == "rvb.note.pays_off_any"
    assert got["break_even_note"].startswith("buying pays off at any use")


def test_api_break_even_zero_in_both_languages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUANLI_TODAY", "2026-12-01")
    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 's.db'}")))
    body = {"gpu": "h100", "offer_kinds": ["listing", "index", "reference"]}
    en = client.post("/api/rent-vs-buy", json=body)
    assert en.status_code == 200, en.text
    assert en.json()["break_even_note"].startswith("buying pays off at any use"), en.json()["break_even_note"]
    zh = client.post("/api/rent-vs-buy?lang=zh", json=body).json()
    assert zh["break_even_note"].startswith("任何利用率下买卡都更划算"), zh["break_even_note"]


def test_h200_owning_costs_the_quoted_server(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    code, out, err = _run_cli(("--lang", "en", "rent-vs-buy", "--gpu", "h200"), monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert "buy ¥187,500 card" in out and "¥0 of non-card hardware" not in out, out
    assert "px-h200-card-2026-01" in out and "px-h200-8card-server-2026-01" in out and "disagree" in out
    assert "capex ¥1,500,000" in out and "¥1,520,000 +" not in out, out
    code, out, err = _run_cli(("--lang", "zh", "rent-vs-buy", "--gpu", "h200"), monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert "购买 ¥187,500/卡" in out and "两个数字不一致" in out and "购置 ¥1,500,000" in out, out


@pytest.mark.parametrize(("args", "want"), [
    (("plan", "--file", "examples/lora-7b.yaml", "--lang", "zh"),
     "错误：suanli plan 没有这个选项：--lang 是 suanli 本身的选项，请放在命令前面：suanli --lang zh plan …"),
    (("plan", "--file", "examples/lora-7b.yaml", "--lang=en"),
     "error: No such option for suanli plan: --lang is an option of suanli itself; put it before the command: "
     "suanli --lang en plan …"),
    (("gpus", "--version"),
     "error: No such option for suanli gpus: --version is an option of suanli itself; put it before the command: "
     "suanli --version"),
    (("bench", "run", "--lang", "zh"),
     "错误：suanli bench run 没有这个选项：--lang 是 suanli 本身的选项，请放在命令前面：suanli --lang zh bench run …"),
])
def test_global_option_after_the_command(args: tuple[str, ...], want: str, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    monkeypatch.chdir(Path(__file__).parents[3])
    code, _, err = _run_cli(args, monkeypatch, capsys, tmp_path)
    assert code == 2 and err.rstrip().endswith(want), err


def test_other_unknown_options_keep_the_closest(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    code, _, err = _run_cli(("--lang", "en", "plan", "--modle", "qwen"), monkeypatch, capsys, tmp_path)
    assert err.rstrip().endswith("error: No such option: --modle (Possible options: --file, --model, --name)"), err
