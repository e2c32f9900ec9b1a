"""`suanli compare --concurrent-users` when one device cannot carry the rate (buyer regression 2026-12-01): the
row says what its layout serves at most, in English and Chinese (was: "--concurrent-users: needs --tpot"); with
users, the most users its cards hold and the limit that binds (task H 2026-12-01)."""

from __future__ import annotations

from typer.testing import CliRunner

from suanli.cli.main import app

ARGS = ("compare", "--model", "qwen2.5-72b", "--gpu", "h800", "--gpu", "910b", "--gpus", "16",
        "--concurrent-users", "200", "--tpot", "0.05")


def test_users_beyond_one_devices_capacity_en_zh() -> None:
    for lang, says in (("en", "does not serve 200 concurrent users (15.62 requests/s)"),
                       ("zh", "承载不了 200 个并发用户（15.62")):
        r = CliRunner().invoke(app, ["--lang", lang, *ARGS], env={"COLUMNS": "200"})
        assert r.exit_code == 0 and r.exception is None, (r.exception, r.output)
        assert says in r.output
        assert "--tpot" not in r.output.strip().splitlines()[0]  # no refusal line (the limit may name --tpot)
