"""Whole numbers in a table keep their thousands separated, as the other figures do (buyer review G, 2026-12-02:
`suanli model qwen3-8b` printed 8190735360 parameters and `suanli estimate … --task lora` tokens_per_step 2048
beside 33,897,500,672 FLOPs); a saved plan's id stays an id (`suanli plans`: 1234, not 1,234)."""

from __future__ import annotations

from typer.testing import CliRunner

from suanli.cli.main import app
from suanli.cli.output import _cell

ENV = {"COLUMNS": "200"}


def test_ints_get_separators_bools_do_not() -> None:
    assert _cell(8190735360) == "8,190,735,360" and _cell(2048) == "2,048" and _cell(8) == "8"
    assert _cell(True) in ("yes", "是")


def test_model_parameters_are_readable() -> None:
    for lang in ("en", "zh"):
        out = CliRunner().invoke(app, ["--lang", lang, "model", "qwen3-8b"], env=ENV).output
        assert "8,190,735,360" in out and "8190735360" not in out, out
        assert "131,072" in out or "40,960" in out, out  # max_context, an int of the architecture table


def test_estimate_tokens_per_step() -> None:
    r = CliRunner().invoke(app, ["estimate", "--model", "qwen3-8b", "--task", "lora", "--gpu", "ascend-910b"],
                           env=ENV)
    line = next(x for x in r.output.splitlines() if x.startswith("tokens_per_step"))
    assert line.split()[-1] == "2,048", line
