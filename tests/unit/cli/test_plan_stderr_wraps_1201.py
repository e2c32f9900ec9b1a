"""plan's stderr lines (the --tpot warning, SkyPilot notes, 'no plan') go through the one line breaker the CLI's
errors use (cli.main._err, 6b1a041): on a terminal wrapped at word boundaries within COLUMNS, piped one line each."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli
from rich.cells import cell_len

ARGS = ["plan", "--model", "qwen2.5-7b", "--task", "inference", "--requests-per-s", "1", "--tpot", "30", "--json"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tpot_warning_wraps_on_a_terminal_only(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--lang", lang, *ARGS]
    _, _, piped = run_cli(args, monkeypatch, capsys, tmp_path, columns=60)
    piped_lines = [x for x in piped.splitlines() if x.strip()]
    assert piped_lines and all(cell_len(x) > 60 for x in piped_lines[:1])  # one line, as a script reads it
    monkeypatch.setattr("suanli.cli.main._errors_wrap", lambda: True)  # as on a terminal
    _, _, err = run_cli(args, monkeypatch, capsys, tmp_path, columns=60)
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) > len(piped_lines)
    assert all(cell_len(x) <= 60 for x in lines), err
    assert "".join(err.split()) == "".join(piped.split())  # the same text, broken only between pieces
    if lang == "en":
        assert err.split() == piped.split()  # at spaces: every word and number whole
