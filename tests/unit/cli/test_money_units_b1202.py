"""Money flags take amounts as Chinese buyers write them (buyer review 2026-12-02, task B.5: `--budget 2万` was
refused): 千/万/亿 (and 百万/千万), k/K thousand, a leading ¥ or trailing 元, by one parser (`units.money_from_text`)
for every money flag and a workload file's `budget`; anything else is one line naming the flag and the forms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner
from suanli.errors import Invalid
from suanli.units import money_from_text

PLAN = ("--lang", "en", "plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--json")
Fixtures = tuple[pytest.MonkeyPatch, pytest.CaptureFixture[str], Path]


@pytest.fixture
def fx(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Fixtures:
    return monkeypatch, capsys, tmp_path


def _run(fx: Fixtures, *args: str) -> tuple[int, str, str]:
    return run_cli(args, *fx)


@pytest.mark.parametrize(("typed", "cny"), [("50000", 50000), ("2万", 20000), ("1.5万", 15000), ("3千", 3000),
                                            ("1亿", 1e8), ("20k", 20000), ("20K", 20000), ("¥2万", 20000),
                                            ("2万元", 20000), ("5千万", 5e7), (" 2 万 ", 20000), (1234.5, 1234.5)])
def test_money_forms(typed: object, cny: float) -> None:
    assert money_from_text(typed) == cny


@pytest.mark.parametrize("typed", ["2w", "20M", "1.5B", "abc", "万", ""])
def test_other_text_is_refused(typed: str) -> None:
    with pytest.raises(Invalid):
        money_from_text(typed)


def test_plan_budget_in_wan(fx: Fixtures) -> None:
    code, out, err = _run(fx, *PLAN, "--budget", "2万")
    assert code == 0, err
    assert json.loads(out)["request"]["budget_cny"] == 20000


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "--budget: must be an amount in CNY such as 50000, 2万, 1.5万, 3千, 1亿 or 20k (千 or k thousand, 万 ten "
           "thousand, 亿 a hundred million; a leading ¥ or a trailing 元 allowed; got '2w')"),
    ("zh", "--budget：必须是金额（元），如 50000、2万、1.5万、3千、1亿 或 20k（千 或 k 表示一千，万 表示一万，亿 表示一亿；"
           "可带前缀 ¥ 或后缀 元；实际为 '2w'）"),
])
def test_plan_budget_refusal_names_the_flag_and_forms(fx: Fixtures, lang: str, said: str) -> None:
    code, out, err = _run(fx, "--lang", lang, *PLAN[2:], "--budget", "2w")
    assert code == 2 and out == "" and "Traceback" not in err
    assert said in " ".join(err.split()).replace("。 ", "。"), err


def test_workload_file_budget(fx: Fixtures) -> None:
    f = fx[2] / "w.yaml"
    f.write_text("model: qwen2.5-7b\ntask: lora\ntokens: 1e8\nbudget: 1.5万\n", encoding="utf-8")
    code, out, err = _run(fx, "plan", "--file", str(f), "--json")
    assert code == 0, err
    assert json.loads(out)["request"]["budget_cny"] == 15000


@pytest.mark.parametrize(("args", "flag"), [
    (("rent-vs-buy", "--gpu", "h100", "--card-price", "x"), "--card-price"),
    (("rent-vs-buy", "--gpu", "h100", "--rent-price", "x"), "--rent-price"),
    (("migrate", "cost", "--model", "qwen2.5-7b", "--to-gpu", "910b", "--monthly-spend", "x"), "--monthly-spend"),
    (("migrate", "cost", "--model", "qwen2.5-7b", "--to-gpu", "910b", "--saving", "x"), "--saving"),
    (("migrate", "cost", "--model", "qwen2.5-7b", "--to-gpu", "910b", "--engineer-week", "x"), "--engineer-week"),
])
def test_other_money_flags_share_the_parser(fx: Fixtures, args: tuple[str, ...], flag: str) -> None:
    code, _, err = _run(fx, "--lang", "en", *args)
    assert code == 2 and f"{flag}: must be an amount in CNY" in " ".join(err.split()), err


def test_rent_vs_buy_card_price_in_wan(fx: Fixtures) -> None:
    base = ("rent-vs-buy", "--gpu", "rtx-4090", "--json")
    (c1, wan, e1), (c2, plain, _) = _run(fx, *base, "--card-price", "2万"), _run(fx, *base, "--card-price", "20000")
    assert c1 == 0 and c2 == 0, e1
    assert json.loads(wan) == json.loads(plain)
