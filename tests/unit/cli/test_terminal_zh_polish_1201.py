"""Terminal and Chinese output polish (2026-12-01): money defaults in help read as typed (no ".0"), error lines wrap
at word boundaries through the one breaker, migrate check's operator table keeps op names whole at 80 columns,
migrate check names the checkpoint a training task downloads, migrate cost takes `training`, and tco at 80 columns
fits, error included."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_run import run_cli
from rich.cells import cell_len


def _fits(text: str, columns: int) -> None:
    for line in text.splitlines():
        assert cell_len(line) <= columns, f"{cell_len(line)} > {columns}: {line!r}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_engineer_week_default_reads_as_money(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--lang", lang, "migrate", "cost", "--help"], monkeypatch, capsys, tmp_path, columns=200)
    assert code == 0
    line = next(x for x in out.splitlines() if "--engineer-week" in x)
    assert "10000.0" not in out and "¥10,000" in line, line
    assert not re.search(r"\[(default|默认)[:：] ?\d+\.0\]", out), out  # whole numbers as typed: 12, not 12.0
    assert re.search(r"--horizon-months.*\[(default: |默认：)12\]", out)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_error_line_wraps_at_words(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--lang", lang, "tco", "--gpu", "h100", "--gpus", "8", "--hours", "40"]  # a long no-price refusal
    code, _, piped = run_cli(args, monkeypatch, capsys, tmp_path, columns=80)
    assert code == 2 and len(piped.strip().splitlines()) == 1  # piped or captured: one line, as a script reads it
    monkeypatch.setattr("suanli.cli.main._errors_wrap", lambda: True)  # as on a terminal
    _, _, wide = run_cli(args, monkeypatch, capsys, tmp_path, columns=1000)
    assert len(wide.strip().splitlines()) == 1 and len(wide) > 200
    code, _, err = run_cli(args, monkeypatch, capsys, tmp_path, columns=80)
    assert code == 2
    _fits(err, 80)
    assert len(err.splitlines()) > 2
    # the same text, broken only where the breaker breaks: English at spaces, every word and number whole
    assert "".join(err.split()) == "".join(wide.split())
    if lang == "en":
        assert err.split() == wide.split()


def test_usage_error_wraps_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("suanli.cli.main._errors_wrap", lambda: True)  # as on a terminal
    code, _, err = run_cli(["plan", "--no-such-option-long-name-here"], monkeypatch,
                           capsys, tmp_path, columns=40)
    assert code == 2
    _fits(err, 40)
    assert "--no-such-option-long-name-here" in err  # a flag never splits


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("task", ["inference", "full"])
def test_operator_table_keeps_op_names_whole(lang: str, task: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--lang", lang, "migrate", "check", "--model", "qwen3-30b-a3b", "--task", task]
    code, wide, _ = run_cli([*args, "--json"], monkeypatch, capsys, tmp_path)
    assert code == 0
    import json

    ops = [r["op"] for r in json.loads(wide)["ops"]]
    code, out, err = run_cli(args, monkeypatch, capsys, tmp_path, columns=80)
    assert code == 0
    _fits(out + err, 80)
    assert "┃" not in out and "│" not in out  # every other table's look (output.emit_rows), no box
    cells = {c for line in out.splitlines() for c in re.split(r"\s{2,}", line.strip())}
    assert set(ops) <= cells, set(ops) - cells  # each op name whole in its cell, never folded mid-name
    left = {"en": "columns left out at 80 terminal columns", "zh": "终端宽 80 列，未显示的列"}[lang]
    assert left in out.replace("\n", "")  # a column that did not fit is named, as tco names its


@pytest.mark.parametrize(("task", "want"), [("full", "Qwen/Qwen2.5-7B"), ("training", "Qwen/Qwen2.5-7B"),
                                            ("lora", "Qwen/Qwen2.5-7B"), ("inference", "Qwen/Qwen2.5-7B-Instruct")])
def test_check_names_the_checkpoint_the_task_downloads(task: str, want: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["migrate", "check", "--model", "qwen2.5-7b", "--task", task], monkeypatch, capsys,
                           tmp_path)
    assert code == 0
    assert out.split()[0] == want, out.splitlines()[0]
    # asked for the tuned one by its full id: named as given, for any task
    code, out, _ = run_cli(["migrate", "check", "--model", "Qwen/Qwen2.5-7B-Instruct", "--task", task], monkeypatch,
                           capsys, tmp_path)
    assert code == 0 and out.split()[0] == "Qwen/Qwen2.5-7B-Instruct"


def test_migrate_cost_takes_training_as_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    import json

    base = ["migrate", "cost", "--model", "qwen2.5-7b", "--from-gpu", "a800", "--json"]
    code, training, err = run_cli([*base, "--task", "training"], monkeypatch, capsys, tmp_path)
    assert code == 0, err
    code, full, _ = run_cli([*base, "--task", "full"], monkeypatch, capsys, tmp_path)
    assert code == 0
    assert json.loads(training) == json.loads(full)
    code, _, err = run_cli([*base, "--task", "trainin"], monkeypatch, capsys, tmp_path)
    assert code == 2 and "inference, lora, qlora, full, pretrain" in err  # the allowed values, one line


@pytest.mark.parametrize("args", [
    ["tco", "--gpu", "h100", "--gpus", "8", "--hours", "100", "--offer-kinds", "all", "--region", "any"],
    ["tco", "--gpu", "a100-80g", "--gpus", "8", "--hours", "100", "--offer-kinds", "all", "--region", "any"],
    ["tco", "--gpu", "910b", "--gpus", "64", "--hours", "2000", "--tokens-per-s", "5000", "--offer-kinds", "all"],
    ["tco", "--gpu", "h200", "--gpus", "16", "--hours", "720", "--utilization", "0.5", "--offer-kinds", "all",
     "--region", "any"],
])
def test_tco_english_fits_80_columns(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--lang", "en", *args], monkeypatch, capsys, tmp_path, columns=80)
    assert code == 0, err
    _fits(out + err, 80)
