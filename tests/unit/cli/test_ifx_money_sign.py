"""Negative money has its sign before the currency, "-¥14,500", never "¥-14,500" (task ifx, item 3): the catalog's
templates write ¥ before an amount's format (`¥{saving:,.0f}`), so the one renderer (`i18n.render`) puts the sign
first for every message in every language, and amounts formatted in code go through `i18n.yuan`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner
from suanli.i18n import Message, render, sign_first, yuan

# README's example: the only 910B listing is an 8-card month, so at ¥500 a month the bill rises; the saving at the
# known error (mig.if_known_error_both) is negative too
RISE = ["migrate", "cost", "--model", "qwen2.5-32b", "--task", "lora", "--from-gpu", "h800", "--monthly-spend", "500"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_migrate_cost_puts_the_sign_first(lang: str, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(["--lang", lang, *RISE], monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    assert "¥-" not in out, out
    # (the bill in whole instances carries the slower work too: "the saving stays", mig.if_known_error*_same_bill)
    said = r"saving (stays )?-¥[\d,]+ a month" if lang == "en" else r"每月节省(仍为)? -¥[\d,]+"
    assert re.search(said, out), out  # the known-error line's negative saving
    assert "−¥14,500" in out  # the monthly-saving row: the bill rises (mig.value.rise), as before


def test_every_message_and_amount() -> None:
    msg = Message("mig.measured.saving", bias=10.0, cases="3 cases", src_bias=5.0, saving=-14500.0)
    assert "-¥14,500" in render(msg, "en") and "-¥14,500" in render(msg, "zh")
    assert "¥-" not in render(msg, "en") + render(msg, "zh")
    assert yuan(-14500) == "-¥14,500" and yuan(14500) == "¥14,500" and yuan(-0.5, ",.2f") == "-¥0.50"
    assert sign_first("¥-5–¥10, ¥+3, ¥0") == "-¥5–¥10, +¥3, ¥0"
