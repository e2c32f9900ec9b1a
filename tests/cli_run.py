"""Run the `suanli` CLI in-process for a test, as a user's shell would (the one copy of what eight test files each
wrote): argv set, SUANLI_HOME the test's own folder, a wide terminal, and optionally a fixed date (SUANLI_TODAY);
the language choice reset after. Returns (exit code, stdout, stderr). Importable from every test: tests/conftest.py
puts its folder on sys.path (the tests run with --import-mode=importlib)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest


def run_cli(args: Sequence[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], home: Path,
            *, columns: int = 300, today: str | None = None) -> tuple[int, str, str]:
    from suanli.cli.main import run
    from suanli.cli.output import set_lang

    monkeypatch.setattr("sys.argv", ["suanli", *args])
    monkeypatch.setenv("SUANLI_HOME", str(home))
    if today is not None:
        monkeypatch.setenv("SUANLI_TODAY", today)
    monkeypatch.setenv("COLUMNS", str(columns))
    code = 0
    try:
        run()
    except SystemExit as e:
        code = int(e.code or 0)
    finally:
        set_lang(None)
    out = capsys.readouterr()
    return code, out.out, out.err
