"""Buyer review 2026-12-02 #8: after `offers import` of a contract price the plan header said '· listing prices' and
rent-vs-buy 'offer kinds listing' while the contract set the number; in Chinese `--offer-kinds all` gave
'挂牌/指数/参考/合同价价格' (价 twice). An answer now says the kinds its figures were priced from (`offers.kinds_priced`:
the requested kinds and those of the offers used) in one phrase per language (`offers.kinds_message`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog.offers import kinds_message, kinds_priced
from suanli.i18n import render

CSV = ("id,provider,device,cards,billing_unit,price_cny,date,source\n"
       "acme-910b-8-month,某云,910b,8,month,12000,2026-11-20,sales quote from 某云 2026-11-20\n")
PLAN = ("plan", "--model", "qwen2.5-72b", "--task", "inference", "--concurrent-users", "100", "--tpot", "0.05",
        "--ttft", "2", "--gpu", "910b")


def test_the_kinds_said_are_the_requested_and_the_used() -> None:
    assert kinds_priced(("listing",), ()) == ("listing",)
    assert kinds_priced(("listing",), ("listing", "contract")) == ("listing", "contract")
    assert kinds_priced(("contract", "listing"), ()) == ("listing", "contract")  # the catalog's order
    assert render(kinds_message(("listing",))) == "listing"
    assert render(kinds_message(("listing",)), "zh") == "挂牌价"
    assert render(kinds_message(("listing", "contract"))) == "listing and contract"
    assert render(kinds_message(("listing", "contract")), "zh") == "挂牌价与合同价"
    every = ("listing", "index", "reference", "contract")
    assert render(kinds_message(every)) == "listing, index, reference and contract"
    assert render(kinds_message(every), "zh") == "挂牌价、指数价、参考价与合同价"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    f = tmp_path / "my.csv"
    f.write_text(CSV, encoding="utf-8")
    code, _, err = run_cli(("offers", "import", str(f)), monkeypatch, capsys, tmp_path, today="2026-12-02")
    assert code == 0, err
    return tmp_path


def test_a_contract_price_is_said_in_the_plan_header(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(PLAN, monkeypatch, capsys, home, today="2026-12-02")
    assert code == 0, err
    assert "(contract, 2026-11-20)" in out  # the contract set the bill
    assert "· listing and contract prices" in out and "· listing prices" not in out
    code, zh, err = run_cli(("--lang", "zh", *PLAN, "--offer-kinds", "all"), monkeypatch, capsys, home,
                            today="2026-12-02")
    assert code == 0, err
    assert "区域为国内平台 · 挂牌价、指数价、参考价与合同价" in zh and "价价" not in zh


def test_rent_vs_buy_says_the_contract_that_set_its_rent(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(("rent-vs-buy", "--gpu", "910b"), monkeypatch, capsys, home, today="2026-12-02")
    assert code == 0, err
    assert "offer kinds listing and contract; rent from acme-910b-8-month" in out
    code, zh, err = run_cli(("--lang", "zh", "rent-vs-buy", "--gpu", "910b"), monkeypatch, capsys, home,
                            today="2026-12-02")
    assert code == 0, err
    assert "报价类型为挂牌价与合同价；" in zh
    # a device no contract prices: its answer says listings alone
    code, out, err = run_cli(("rent-vs-buy", "--gpu", "h800"), monkeypatch, capsys, home, today="2026-12-02")
    assert code == 0, err
    assert "offer kinds listing; rent from" in out
