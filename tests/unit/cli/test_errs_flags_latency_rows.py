"""The CLI names a refused input by the flag typed, in en and zh; estimate's latency rows say which TTFT/TPOT is
which (and which plan judges by); one output token has no TPOT, said in estimate and compare (errs task 2026-12-01)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from suanli.i18n import render
from suanli.plan.compare import serving_target


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "200"})


@pytest.mark.parametrize(("args", "en", "zh"), [
    (("plan", "--model", "qwen2.5-7b", "--task", "inference", "--requests-per-s", "-1"),
     "error: --requests-per-s: must be greater than 0", "错误：--requests-per-s：必须大于 0"),
    (("estimate", "--model", "qwen2.5-7b", "--gpu", "h100", "--task", "dpo"),
     "error: --task: 'dpo' is not one of", "错误：--task：'dpo' 不是可选值之一"),
    (("plan", "--model", "qwen2.5-7b", "--task", "inference", "--concurrent-users", "1e9"),  # click's own parse error
     "error: --concurrent-users: must be a whole number (got '1e9')", "错误：--concurrent-users：必须是整数（实际为 '1e9'）"),
    (("plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--budget", "-1"),  # field budget_cny
     "error: --budget: ", "错误：--budget："),
    (("offers", "import", "/nonexistent-suanli.csv"),  # an argument has no flag: its name (zh: its Chinese name)
     "error: file: '/nonexistent-suanli.csv' does not exist", "错误：文件：'/nonexistent-suanli.csv' 不存在"),
])
def test_error_line_names_the_flag_typed(args: tuple[str, ...], en: str, zh: str) -> None:
    for lg, head in (("en", en), ("zh", zh)):
        r = _run("--lang", lg, *args)
        lines = [x for x in r.stderr.splitlines() if x.strip()]
        assert r.returncode == 2 and lines[-1].startswith(head), r.stderr


def test_bad_lang_names_its_flag() -> None:
    r = _run("--lang", "xx", "gpus")
    assert r.returncode == 2 and r.stderr.startswith("error: --lang: 'xx' is not one of zh, en"), r.stderr


BUYER = ("estimate", "--model", "qwen2.5-14b", "--task", "inference", "--gpu", "rtx-5090", "--batch", "80",
         "--precision", "int4", "--engine", "vllm")


def test_latency_rows_say_which_is_which_and_which_plan_judges_by() -> None:
    en = _run("--lang", "en", *BUYER).stdout
    for row in ("TTFT, batch of 80 started at once, s", "TPOT, that batch with no new prompts, s",
                "TTFT joining a running batch of 80, s (plan's)", "TPOT, batch kept full at 80, s (plan's)"):
        assert row in en, en
    assert "plan judges --ttft and --tpot by the two rows marked plan's" in en
    zh = _run("--lang", "zh", *BUYER).stdout
    for row in ("TTFT：80 个请求的批次同时开始（秒）", "TTFT：加入已有 80 个请求的运行中批次（秒，规划用）",
                "TPOT：批次保持 80 个请求满载（秒，规划用）"):
        assert row in zh, zh
    speed = json.loads(_run(*BUYER, "--json").stdout)["speed"]  # the keys stay
    assert {"ttft_s", "tpot_s", "ttft_joining_s", "tpot_steady_s"} <= set(speed)
    assert speed["ttft_joining_s"] < speed["ttft_s"]  # the joining TTFT is the small one here (0.101 vs 6.07 s)


def test_one_output_token_says_no_tpot() -> None:
    args = ("estimate", "--model", "qwen2.5-7b", "--gpu", "h100", "--output", "1")
    en = _run("--lang", "en", *args).stdout
    row = next(x for x in en.splitlines() if x.startswith("TPOT, batch kept full"))
    assert row.rstrip().endswith("no TPOT (one output token)"), en
    assert "无 TPOT（只输出一个 token）" in _run("--lang", "zh", *args).stdout
    assert json.loads(_run(*args, "--json").stdout)["speed"]["tpot_steady_s"] is None
    for rate, tpot, ttft in ((None, None, None), (None, 0.02, None), (5.0, 0.02, 1.0)):
        said = render(serving_target(rate, tpot, ttft, 1)[1], "en")
        assert "no TPOT (one output token" in said and "decode step" not in said, said
        assert "无 TPOT（只输出一个 token" in render(serving_target(rate, tpot, ttft, 1)[1], "zh")
    said = render(serving_target(None, 0.02, None, 256)[1], "en")  # two or more output tokens: the TPOT bound
    assert "steady-state TPOT" in said and "no TPOT" not in said
