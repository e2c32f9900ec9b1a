"""Buyer review 2026-12-03 (task J.2): plan's why-not for DeepSeek-R1 at 2,000 users on an A800 said "at tp 8 it needs
78.9 GiB per card" — int8's figure (at bf16 the replica needs about twice that) — without naming int8. A serving
why-not's memory figure now names the precision it was worked out at (`search.at_precision`, `why.at_precision`)."""

from __future__ import annotations

from typer.testing import CliRunner

from suanli.cli.main import app
from suanli.i18n import Message, render
from suanli.plan.search import at_precision

ARGS = ("plan", "--model", "deepseek-r1", "--task", "inference", "--concurrent-users", "2000", "--tpot", "0.05",
        "--offer-kinds", "all")


def _row(lang: str, device: str) -> str:
    out = CliRunner().invoke(app, ["--lang", lang, *ARGS], env={"COLUMNS": "400"})
    line = next(ln for ln in out.output.splitlines() if ln.startswith(device + " "))
    return " ".join(line.split())


def test_a800_why_not_says_its_figure_is_int8() -> None:
    row = _row("en", "a800")
    assert "at tp 8 in int8 it needs 78.9 GiB per card" in row, row
    assert "at tp 8 it needs" not in row
    zh = _row("zh", "a800")
    assert "tp 8（int8）时每卡需要 78.9 GiB" in zh, zh


def test_the_one_wording() -> None:
    assert render(at_precision(8, "int8")) == "8 in int8"
    assert render(at_precision("vLLM", "bf16"), "zh") == "vLLM（bf16）"
    m = Message("why.serve_need_tp", need_tp=16, tp=at_precision(8, "int8"), need_gib=78.9, usable_gib=72.0,
                cap_gib=80.0)
    assert render(m) == "a replica needs 16 cards at tp 16 (at tp 8 in int8 it needs 78.9 GiB per card, 72.0 usable of 80)"
