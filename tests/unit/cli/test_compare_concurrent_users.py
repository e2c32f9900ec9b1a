"""`suanli compare --concurrent-users` means what plan's flag means (plan.request's Little's-law rate, needs --tpot):
the CLI passes it to compare_devices and prints the rate it derived; without --tpot it is refused in one line."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from suanli.cli.main import app
from suanli.errors import InputError


def _run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def test_compare_takes_concurrent_users_as_plan() -> None:
    base = ("compare", "--model", "qwen2.5-14b", "--gpu", "h800", "--gpu", "910b", "--gpus", "2", "--tpot", "0.05")
    users = _run(*base, "--concurrent-users", "100", "--json")
    assert users.exit_code == 0, users.output
    rate = _run(*base, "--requests-per-s", "7.8125", "--json")
    assert rate.exit_code == 0, rate.output
    by_users, by_rate = json.loads(users.output), json.loads(rate.output)
    rows_u = by_users["rows"] if isinstance(by_users, dict) else by_users
    rows_r = by_rate["rows"] if isinstance(by_rate, dict) else by_rate
    # 100 users ÷ (256 output tokens × 50 ms) = 7.8125 requests/s: the same serving rows as that rate
    assert [r["layout"] for r in rows_u] == [r["layout"] for r in rows_r]
    assert rows_u[0]["users_note"] and "7.812" in rows_u[0]["users_note"]
    text = _run(*base, "--concurrent-users", "100")
    assert text.exit_code == 0 and "100 users" in text.output


def test_compare_concurrent_users_needs_a_tpot() -> None:
    r = _run("compare", "--model", "qwen2.5-14b", "--gpu", "h800", "--gpu", "910b", "--gpus", "2",
             "--concurrent-users", "100")
    assert isinstance(r.exception, InputError)  # the CLI's main() prints it as one line, exit 2
    assert "tpot" in str(r.exception).lower()
