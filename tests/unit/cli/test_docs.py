"""Every command has help text and is mentioned in the README (sqlite-utils' habit)."""

from __future__ import annotations

from pathlib import Path

from typing import Any

import typer.main

from suanli.cli.main import app

README = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")


def _commands() -> list[tuple[str, Any]]:
    root = typer.main.get_command(app)
    out: list[tuple[str, Any]] = []
    ctx = root.make_context("suanli", ["--help"], resilient_parsing=True)
    for name in root.list_commands(ctx):  # the commands are imported lazily: load each one
        cmd = root.get_command(ctx, name)
        assert cmd is not None, name
        if hasattr(cmd, "commands"):
            out.append((name, cmd))
            for sub, c in cmd.commands.items():
                out.append((f"{name} {sub}", c))
        else:
            out.append((name, cmd))
    return out


def test_there_are_commands() -> None:
    names = {n for n, _ in _commands()}
    assert {"gpus", "gpu", "models", "model", "offers", "estimate", "plan", "validate"} <= names


def test_every_command_has_help_and_a_readme_mention() -> None:
    for name, cmd in _commands():
        assert (cmd.help or "").strip(), f"`suanli {name}` has no help text"
        assert f"suanli {name}" in README, f"`suanli {name}` is not in the README"


def test_catalog_help_matches_each_command() -> None:
    """`suanli --help` lists commands from the message catalog without importing them: it must say what
    each command's own docstring says."""
    from suanli.i18n import messages

    en = messages("en")
    for name, cmd in _commands():
        if " " not in name:
            assert en[f"cmd.{name}"] == (cmd.help or "").strip().split("\n\n")[0].replace("\n", " "), name
            assert f"cmd.{name}" in messages("zh")


def test_help_imports_no_command_module() -> None:
    import subprocess
    import sys

    code = ("import sys\nfrom suanli.cli.main import run\nsys.argv=['suanli','--help']\n"
            "try:\n    run()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.endswith('_cmd') or m in ('numpy', 'pydantic')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
