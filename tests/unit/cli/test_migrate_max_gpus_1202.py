"""`suanli migrate cost --max-gpus` (buyer review 2026-12-02, task G): plan's card limit for the sides a rate sizes,
named by its flag where it is what stops a side, and each side's precision as plan picks it without --precision."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run_cli

ARGS = ["migrate", "cost", "--model", "qwen3-235b-a22b", "--task", "inference", "--from-gpu", "h20-141g", "--to-gpu",
        "910b", "--concurrent-users", "2000", "--offer-kinds", "all", "--input", "1024", "--output", "1024", "--ttft",
        "2", "--tpot", "0.05"]


def test_the_limit_names_its_flag_and_the_flag_raises_it(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli([*ARGS, "--precision", "int8"], monkeypatch, capsys, tmp_path, today="2026-12-02")
    assert code == 0, err
    # 320 cards (160 until vLLM-Ascend's per-step overhead was fitted, 2026-12-02)
    assert "needs 320 cards (limit 64)" in out and "raise --max-gpus to 320" in out
    code, out, err = run_cli([*ARGS, "--precision", "int8", "--max-gpus", "320", "--json"], monkeypatch, capsys,
                             tmp_path, today="2026-12-02")
    assert code == 0, err
    bill = json.loads(out)["derived"]["ascend-910b"]["rate_bill"]
    assert bill["carried"] and bill["gpus"] == 320 and bill["max_gpus"] == 320 and bill["precision"] == "int8"


def test_without_precision_each_side_says_plans_pick(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(ARGS, monkeypatch, capsys, tmp_path, today="2026-12-02")
    assert code == 0, err  # was refused: "does not fit on 8 × Huawei Ascend 910B at bf16"
    assert "32×tp1·ep8 b63 fp8 on 32 cards" in out and "¥192,000" in out
    flat = " ".join(out.split())  # the table wraps its value column
    assert "at fp8, the precision plan picks of those it searches (bf16, fp8; pin one with --precision)" in flat


def test_max_gpus_without_a_rate_is_refused(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    code, _, err = run_cli(["migrate", "cost", "--model", "qwen2.5-7b", "--task", "inference", "--tpot", "0.05",
                            "--max-gpus", "16"], monkeypatch, capsys, tmp_path)
    assert code != 0 and "--max-gpus" in err and "--concurrent-users" in err and "Traceback" not in err
