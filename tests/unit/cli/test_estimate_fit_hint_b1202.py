"""`suanli estimate` of a training job that does not fit its cards names the layout `suanli plan` runs on them, as
the flags that set it, and those flags fit; where no layout fits those cards, the card count plan finds (buyer review
2026-12-02, task B.1: 'does not fit' with no way out)."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from suanli.cli.main import app

ENV = {"COLUMNS": "400"}
JOB = ["estimate", "--model", "qwen2.5-14b", "--task", "full", "--gpu", "a100-80g", "--gpus", "4"]


def _run(*args: str) -> str:
    r = CliRunner().invoke(app, list(args), env=ENV)
    assert r.exit_code == 0, r.output
    return r.output


def test_the_hint_names_flags_that_fit() -> None:
    out = _run(*JOB)
    hint = next(line for line in out.splitlines() if line.startswith("hint: "))
    assert "on 4 cards it fits as tp" in hint, hint
    flags = re.search(r"runs there: (--tp .*)$", hint)
    assert flags is not None, hint
    fixed = json.loads(_run(*JOB, *flags.group(1).split(), "--json"))
    assert fixed["memory"]["fits"] is True, flags.group(1)
    assert "hint: " not in _run(*JOB, *flags.group(1).split())  # it fits: no hint


def test_no_layout_on_these_cards_names_the_card_count() -> None:
    out = _run("estimate", "--model", "qwen2.5-72b", "--task", "full", "--gpu", "a100-80g", "--gpus", "3")
    assert re.search(r"hint: no layout plan searches fits 3 cards; `?suanli plan`? finds a plan on \d+ cards "
                     r"\(--gpus \d+\)", out), out


def test_chinese_hint() -> None:
    out = _run("--lang", "zh", *JOB)
    assert "提示：在 4 张卡上按 tp" in out, out


def test_inference_and_fitting_jobs_have_no_hint() -> None:
    assert "hint: " not in _run("estimate", "--model", "qwen2.5-7b", "--gpu", "a100-80g")
    assert "hint: " not in _run("estimate", "--model", "qwen2.5-72b", "--gpu", "rtx-4090")  # serving: no layout hint
