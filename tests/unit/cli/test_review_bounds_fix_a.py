"""Code review findings 8 and 11: bad input on the CLI is one line naming the field and its allowed values (en and
zh, message ids), never a traceback nor an answer built on it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from suanli.cli.main import app
from suanli.errors import InputError


def _refused(*args: str) -> InputError:
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert isinstance(r.exception, InputError), (r.exit_code, r.output, r.exception)
    return r.exception


@pytest.mark.parametrize(("args", "field", "says", "zh"), [
    (["validate", "--group", "nope"], "group", "groups: inference-memory, training-memory", "可选组"),
    (["validate", "--group", "decode-sped"], "group", "did you mean decode-speed?", "是否想用 decode-speed"),
    (["compare", "--model", "qwen2.5-7b", "--gpu", "h100", "--gpu", "h20", "--task", "lora", "--tokens", "-1"],
     "tokens", "above 0 and at most 1e+18 (got -1)", "大于 0"),
    (["tco", "--gpu", "h100", "--hours", "10", "--gpus", "100000000000", "--offer-kinds", "all"], "gpus",
     "from 1 to 100,000", "1 到 100,000"),
    (["offers", "--stale-months", "nan"], "stale-months", "at most 1200 (got nan)", "不超过 1200"),
    (["plan", "--vpp", "3", "--framework", "megatron", "--model", "qwen2.5-7b", "--task", "full", "--tokens", "1e9"],
     "vpp", "vpp that runs: 1, 2, 7, 14", "可运行的 vpp：1、2、7、14"),
])
def test_bad_input_names_the_field_and_allowed_values(args: list[str], field: str, says: str, zh: str,
                                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))  # no database, no calibration
    e = _refused(*args)
    assert e.field == field and says in str(e), str(e)
    from suanli.errors import error_text

    assert e.i18n is not None and zh in error_text(e, "zh")


def test_plans_show_out_of_range_is_refused_not_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sqlalchemy", reason="the service extra (make test installs it)")
    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))
    monkeypatch.delenv("SUANLI_DATABASE_URL", raising=False)
    e = _refused("plans", "--show", "99999999999999999999999")
    assert e.field == "show" and "from 1 to 2,147,483,647" in str(e)
    from suanli.errors import NotFoundError
    from suanli.store.db import open_store

    with pytest.raises(NotFoundError):  # the store itself: no OverflowError binding a 64-bit id
        open_store().plan(2**63)
