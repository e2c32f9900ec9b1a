"""A serving period (--hours/--days) with no request rate: the refusal names the flag the user types
(--requests-per-s), not the request model ("plan: … requests_per_s …"), in English and Chinese."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from suanli.cli import main as cli_main
from suanli.cli.main import app
from suanli.errors import InputError, error_text


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("cmd", [["plan", "--model", "qwen2.5-7b"],
                                 ["compare", "--model", "qwen2.5-7b", "--gpu", "rtx-4090", "--gpu", "a100-80g"]])
def test_period_without_rate_names_the_flag(lang: str, cmd: list[str]) -> None:
    r = CliRunner().invoke(app, ["--lang", lang, *cmd, "--task", "inference", "--hours", "10"],
                           env={"COLUMNS": "200"})
    e = r.exception
    assert isinstance(e, InputError) and e.field == "requests-per-s", e  # main() prints it as one line, exit 2
    line = cli_main._field_line(error_text(e, lang), e)  # the line main() prints
    assert line.startswith("--requests-per-s") and "--concurrent-users" in line, line
    assert "plan:" not in line and "方案：" not in line and "requests_per_s" not in line, line
