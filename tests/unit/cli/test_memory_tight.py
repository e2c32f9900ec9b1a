"""Buyer regression 4 (2026-12-01): `estimate` and `compare` call the plan's memory-within-error check
(`plan.search.memory_within_error`, one function) and say a fit within the known memory error as a plan does:
'fits (tight)' with the plan's warning, in en and zh, and in JSON (`fits_tight`, `memory_warning`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.i18n import render
from suanli.plan.search import memory_within_error
from suanli.validate.bands import packaged_error_bands

GiB = 2**30
R1 = ("estimate", "--model", "deepseek-r1", "--gpu", "h20", "--gpus", "8", "--tp", "8", "--precision", "int8")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "220"})


def test_estimate_says_fits_tight_with_the_plans_warning_in_both_languages() -> None:
    """78.89 of 86.40 GiB: 8.7 % headroom, within CUDA's inference-memory error (before: '放得下' alone)."""
    out = _run(*R1, "--json")
    assert out.returncode == 0, out.stderr
    j = json.loads(out.stdout)
    assert j["fits_tight"] is True and j["memory_warning_i18n"]["id"].startswith("plan.warn.memory_within_error")
    stack = lookup.stack(packaged_catalog(), "cuda")
    m = j["memory"]
    same = memory_within_error(packaged_error_bands(), stack, "inference", m["needed_bytes"], m["usable_bytes"])
    assert same is not None and j["memory_warning"] == render(same)  # the plan's function, word for word
    assert "8.7 % headroom, within the inference-memory error" in j["memory_warning"]
    zh = _run("--lang", "zh", *R1)
    assert zh.returncode == 0, zh.stderr
    assert "放得下（余量紧）" in zh.stdout and "余量 8.7 %" in zh.stdout
    en = _run(*R1)
    assert "fits (tight)" in en.stdout and "8.7 % headroom" in en.stdout


def test_an_estimate_with_room_is_not_tight() -> None:
    out = _run("estimate", "--model", "qwen2.5-7b", "--gpu", "h100-sxm", "--json")
    j = json.loads(out.stdout)
    assert j["fits_tight"] is False and j["memory_warning"] is None


def test_compare_marks_the_row_tight_with_the_plans_warning() -> None:
    out = _run("compare", "--model", "qwen2.5-72b", "--gpu", "h20", "--gpu", "h200", "--gpus", "8", "--json")
    rows = {r["device"]: r for r in json.loads(out.stdout)}
    h20 = rows["h20"]
    assert h20["fits_tight"] is True and "within the inference-memory error" in h20["memory_warning"]
    assert rows["h200"]["fits_tight"] is False
    text = _run("compare", "--model", "qwen2.5-72b", "--gpu", "h20", "--gpu", "h200", "--gpus", "8")
    assert "fits (tight)" in text.stdout and "NVIDIA H20 96GB: ! memory" in text.stdout
