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
    assert hasattr(root, "commands")
    for name, cmd in root.commands.items():
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
