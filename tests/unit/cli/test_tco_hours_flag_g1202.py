"""`suanli tco` has --hours and no --days: a refused --hours names --hours alone (buyer review G, 2026-12-02: it
said "--hours/--days", a flag tco refuses with "No such option"); plan and compare, which have both, keep both."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from suanli.cli import main as cli_main
from suanli.cli.main import app
from suanli.errors import InputError, error_text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tco_hours_refusal_names_hours_only(lang: str) -> None:
    r = CliRunner().invoke(app, ["--lang", lang, "tco", "--gpu", "ascend-910b", "--hours", "0"], env={"COLUMNS": "200"})
    e = r.exception
    assert isinstance(e, InputError) and e.field == "hours", e
    line = cli_main._field_line(error_text(e, lang), e)  # the line main() prints
    assert line.startswith("--hours") and "--days" not in line, line


def test_compare_hours_refusal_keeps_both_flags() -> None:
    r = CliRunner().invoke(app, ["compare", "--model", "qwen2.5-7b", "--gpu", "rtx-4090", "--gpu", "h20",
                                 "--requests-per-s", "1", "--hours", "-1"], env={"COLUMNS": "200"})
    e = r.exception
    assert isinstance(e, InputError), e
    assert cli_main._field_line(error_text(e, "en"), e).startswith("--hours/--days"), e
