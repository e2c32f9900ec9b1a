"""`suanli plan --concurrent-users N --tpot S`: the request rate from concurrent users (Little's law, Little 1961),
said in the header and first among the assumptions, in the table and in --json; refusals name the flag."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from suanli.cli.main import app
from suanli.errors import InputError

ARGS = ["plan", "--model", "qwen2.5-7b", "--task", "inference", "--top", "2"]


def _invoke(*args: str, lang: str = "en_US.UTF-8") -> tuple[int, str]:
    r = CliRunner().invoke(app, [*ARGS, *args], env={"LANG": lang, "LC_ALL": "", "COLUMNS": "200"})
    return r.exit_code, r.output


def test_table_and_json_say_the_derived_rate() -> None:
    code, out = _invoke("--concurrent-users", "50", "--tpot", "0.0333", "--ttft", "0.5")
    assert code == 0, out
    rps = 50 / (0.5 + 256 * 0.0333)  # 5.540 req/s
    assert f"50 concurrent users = {rps:.3f} req/s" in out
    assert "Little 1961" in out and "TTFT 500 ms" in out
    code, out = _invoke("--concurrent-users", "50", "--tpot", "0.0333", "--json")
    assert code == 0, out
    d = json.loads(out)
    assert d["request"]["concurrent_users"] == 50
    assert d["request"]["requests_per_s"] == pytest.approx(50 / (256 * 0.0333))
    assert d["assumptions_i18n"][0]["id"] == "plan.assume.users_rate_no_ttft" and "--ttft" in d["assumptions"][0]


def test_zh() -> None:
    code, out = _invoke("--concurrent-users", "50", "--tpot", "0.0333", lang="zh_CN.UTF-8")
    assert code == 0, out
    assert "50 个并发用户" in out and "利特尔定律" in out


@pytest.mark.parametrize(("args", "says"), [
    (["--concurrent-users", "50"], "needs tpot_s (--tpot)"),
    (["--concurrent-users", "50", "--tpot", "0.03", "--requests-per-s", "3"], "not both"),
])
def test_refusals_name_the_flag(args: list[str], says: str) -> None:
    r = CliRunner().invoke(app, [*ARGS, *args])
    assert isinstance(r.exception, InputError), r.output  # suanli's main prints it as "error: <field>: <message>"
    assert r.exception.field == "concurrent-users" and says in str(r.exception)
