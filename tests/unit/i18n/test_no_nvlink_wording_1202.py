"""The no-NVLink warning names the link the cards talk over (buyer review 2026-12-02: "no NVLink-class interconnect
(none)", zh "没有 NVLink 级互联（none）", printed the catalog's `interconnect` value)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_run import run_cli
from suanli.i18n import Message, render


@pytest.mark.parametrize("interconnect", ["none", "pcie"])
def test_the_warning_says_pcie_not_the_catalog_value(interconnect: str) -> None:
    msg = Message("plan.warn.no_nvlink", interconnect=interconnect, efficiency=0.67)
    en, zh = render(msg, "en"), render(msg, "zh")
    assert en == "no NVLink-class interconnect (the cards talk over PCIe): multi-card efficiency 67% by the " \
                 "communication model"
    assert zh.startswith("没有 NVLink 级互联（卡间经 PCIe 通信）：") and "67%" in zh
    assert f"({interconnect})" not in en and f"（{interconnect}）" not in zh


def test_the_4090_plan_prints_it(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                 tmp_path: Path) -> None:
    args = ["plan", "--model", "qwen2.5-14b", "--concurrent-users", "50", "--tpot", "0.05", "--ttft", "1",
            "--gpu", "rtx-4090"]
    code, out, err = run_cli(["--lang", "zh", *args], monkeypatch, capsys, tmp_path, today="2026-12-02")
    assert code == 0, (out, err)
    flat = "".join(out.split())
    assert "没有NVLink级互联（卡间经PCIe通信）" in flat and "（none）" not in flat
