"""An export-controlled device (catalog `china_market`: RTX 4090, H800, …) is warned in compare, migrate cost and
tco as plan and rent-vs-buy warn it (buyer review G, 2026-12-02: `compare --gpu 4090 --gpu 910b` and `tco --gpu
4090` said nothing of it); domestic devices and the H20 are not."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from suanli.cli.main import app

ENV = {"COLUMNS": "200", "SUANLI_NO_CACHE": "1"}


def _run(*args: str) -> str:
    r = CliRunner().invoke(app, list(args), env=ENV)
    assert r.exit_code == 0, r.output
    return r.output


def test_compare_rows_warn_export_control() -> None:
    rows = json.loads(_run("compare", "--model", "qwen2.5-7b", "--task", "lora", "--gpu", "rtx-4090", "--gpu",
                           "ascend-910b", "--gpu", "h20", "--gpus", "8", "--tokens", "1e8", "--json"))
    ids = {r["device"]: [w["id"] for w in r["offer_warnings_i18n"]] for r in rows}
    assert "plan.warn.china_export" in ids["rtx-4090"], ids
    assert "plan.warn.china_export" not in ids["ascend-910b"] and "plan.warn.china_export" not in ids["h20"], ids


@pytest.mark.parametrize("lang, words", [("en", "is export-controlled for China"), ("zh", "受对华出口管制")])
def test_compare_text_says_it(lang: str, words: str) -> None:
    out = _run("--lang", lang, "compare", "--model", "qwen2.5-7b", "--task", "lora", "--gpu", "rtx-4090", "--gpu",
               "ascend-910b", "--gpus", "8", "--tokens", "1e8")
    assert words in out and "rtx-4090" in out.split(words)[1].splitlines()[0], out


@pytest.mark.parametrize("lang, words", [("en", "is export-controlled for China"), ("zh", "受对华出口管制")])
def test_tco_says_it(lang: str, words: str) -> None:
    assert words in _run("--lang", lang, "tco", "--gpu", "rtx-4090", "--gpus", "8", "--hours", "72")
    assert words not in _run("--lang", lang, "tco", "--gpu", "ascend-910b", "--gpus", "8", "--hours", "72")


def test_migrate_cost_side_warns_export_control() -> None:
    d = json.loads(_run("migrate", "cost", "--model", "qwen2.5-7b", "--task", "lora", "--from-gpu", "h800",
                        "--to-gpu", "ascend-910b", "--json"))
    ids = {k: [w["id"] for w in v["offer_warnings_i18n"]] for k, v in d["derived"].items() if isinstance(v, dict)}
    assert "plan.warn.china_export" in ids["h800"] and "plan.warn.china_export" not in ids["ascend-910b"], ids
