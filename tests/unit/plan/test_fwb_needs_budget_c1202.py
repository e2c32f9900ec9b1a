"""Buyer review C (2026-12-02): `suanli plan ... --objective fastest-within-budget` without --budget answered
"错误：方案：目标“预算内最快”需要 `budget_cny`" — the field named "plan" and the request's internal name, not the flag
to type. It is now refused on the budget field, named as the CLI's --budget (the API's budget_cny), as a training
plan without tokens names --tokens."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner
from suanli.errors import InputError
from suanli.i18n import render
from suanli.plan.request import make_request


def test_the_request_refuses_it_on_the_budget_field() -> None:
    with pytest.raises(InputError) as e:
        make_request(model="qwen2.5-7b", task="lora", tokens=1e8, objective="fastest-within-budget")
    assert e.value.field == "budget-cny"
    assert e.value.i18n is not None
    assert render(e.value.i18n, surface="api") == "objective fastest-within-budget needs `budget_cny`"  # the API names its field


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "--budget: objective fastest-within-budget needs --budget"),
    ("zh", "--budget：目标“预算内最快”需要 --budget"),
])
def test_the_cli_names_the_budget_flag(lang: str, said: str, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(("--lang", lang, "plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8",
                              "--objective", "fastest-within-budget"), monkeypatch, capsys, tmp_path)
    assert code == 2 and out == ""
    assert said in err
    assert "budget_cny" not in err and "方案" not in err
