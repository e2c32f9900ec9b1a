"""`suanli compare` and `suanli migrate cost` print plan's caveats on the offers they price (task full-warn
2026-12-02): the A100 node that does not say SXM or PCIe, the A800 node that says neither that nor its memory size,
a '910B' without its variant; en and zh. And plan's 'assumed: prices' line names the kinds the plans were priced
from, as its header does ('listing and contract' after an imported contract price), not the kinds asked alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli

COMPARE = ("compare", "--model", "qwen2.5-72b", "--concurrent-users", "100", "--tpot", "0.05", "--ttft", "2",
           "--gpus", "8", "--gpu", "a100-80g", "--gpu", "910b", "--gpu", "a800")
MIGRATE = ("migrate", "cost", "--model", "qwen2.5-7b", "--from-gpu", "a100-80g", "--to-gpu", "910b")
TODAY = "2026-12-02"


def test_compare_prints_the_caveats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(COMPARE, monkeypatch, capsys, tmp_path, today=TODAY)
    assert code == 0, err
    assert ("NVIDIA A100 SXM4 80GB: ! offer omniyq-a100-80g-8card-month does not say the card's form factor (SXM "
            "or PCIe): specs assume the NVIDIA A100 SXM4 80GB") in out
    assert "the same layout on NVIDIA A100 PCIe 80GB (80 GiB, 1.935 TB/s): fits" in out
    assert ("Huawei Ascend 910B: ! offer omniyq-910b-8card-month names the Huawei Ascend 910B without its variant: "
            "specs assume the Huawei Ascend 910B2") in out
    assert "NVIDIA A800 SXM4 80GB: ! offer omniyq-a800-8card-month does not say the card's form factor" in out
    code, zh, err = run_cli(("--lang", "zh", *COMPARE), monkeypatch, capsys, tmp_path, today=TODAY)
    assert code == 0, err
    assert "报价 omniyq-a100-80g-8card-month 未写明卡的形态（SXM 或 PCIe）" in zh
    assert "华为昇腾 910B：! 报价 omniyq-910b-8card-month 只写了华为昇腾 910B，未写具体型号" in zh
    assert "未写明卡的形态（SXM 或 PCIe）和显存容量" in zh


def test_compare_of_stated_cards_prints_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    # (AutoDL's H800 hour was here until buyer review 2026-12-03 E: its listing does not say SXM or PCIe either,
    # `unstated: [form_factor]`, so its rows now say so: tests/unit/plan/test_single_card_form_factor_e1203.py)
    code, out, err = run_cli(("compare", "--model", "qwen2.5-7b", "--gpu", "rtx-4090", "--gpu", "l40s", "--gpus", "8"),
                             monkeypatch, capsys, tmp_path, today=TODAY)
    assert code == 0, err
    assert "used autodl-rtx4090-hour-2026-08" in out and "omniyq-l40s-8card-month" in out
    assert "does not say the card" not in out and "without its variant" not in out and "! offer" not in out


def test_migrate_cost_prints_the_caveats_of_both_sides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(MIGRATE, monkeypatch, capsys, tmp_path, today=TODAY)
    assert code == 0, err
    assert "NVIDIA A100 SXM4 80GB: ! offer omniyq-a100-80g-8card-month does not say the card's form factor" in out
    assert "tokens/s (" in out and "% of the assumed)" in out
    assert "Huawei Ascend 910B: ! offer omniyq-910b-8card-month names the Huawei Ascend 910B without its" in out
    code, zh, err = run_cli(("--lang", "zh", *MIGRATE), monkeypatch, capsys, tmp_path, today=TODAY)
    assert code == 0, err
    assert "NVIDIA A100 SXM4 80GB：! 报价 omniyq-a100-80g-8card-month 未写明卡的形态" in zh
    assert "只写了华为昇腾 910B，未写具体型号" in zh


CSV = ("id,provider,device,cards,billing_unit,price_cny,date,source\n"
       "acme-910b-8-month,某云,910b,8,month,12000,2026-11-20,sales quote from 某云 2026-11-20\n")
PLAN = ("plan", "--model", "qwen2.5-72b", "--task", "inference", "--concurrent-users", "100", "--tpot", "0.05",
        "--ttft", "2", "--gpu", "910b")


def test_the_assumed_prices_line_names_the_kinds_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(PLAN, monkeypatch, capsys, tmp_path, today=TODAY)
    assert code == 0, err  # listings alone: the header and the line say so
    assert "· listing prices" in out and "assumed: prices: listing offers in region cn (Chinese platforms)" in out
    f = tmp_path / "my.csv"
    f.write_text(CSV, encoding="utf-8")
    code, _, err = run_cli(("offers", "import", str(f)), monkeypatch, capsys, tmp_path, today=TODAY)
    assert code == 0, err
    code, out, err = run_cli(PLAN, monkeypatch, capsys, tmp_path, today=TODAY)
    assert code == 0, err
    assert "(contract, 2026-11-20)" in out  # the contract set the bill
    assert "· listing and contract prices" in out
    assert "assumed: prices: listing and contract offers in region cn (Chinese platforms)" in out
    assert "prices: listing offers" not in out
    code, zh, err = run_cli(("--lang", "zh", *PLAN), monkeypatch, capsys, tmp_path, today=TODAY)
    assert code == 0, err
    assert "区域为国内平台 · 挂牌价与合同价" in zh
    assert "假设：价格：区域为国内平台，采用挂牌价与合同价" in zh and "价价" not in zh
