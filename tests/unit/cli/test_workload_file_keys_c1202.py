"""Buyer review C (2026-12-02): a workload file (`suanli plan --file w.yaml`) written as the flags are typed.

1. `budgett: 100` answered "budgett: not a field of this request" (zh "budgett: 不是此请求的字段"), naming neither the
   file nor the key meant: now "--file: unknown workload-file key 'budgett'. Did you mean: budget, budget_cny?";
2. `gpu: [4090]` answered "devices.0: must be text (got 4090)" — the request's internal field, for the name
   `--gpu 4090` takes — and `gpu: 4090` "--gpu: must be a list": YAML reads 4090 as a number; both are the name now;
3. zh: "不是有效的 YAML at line 3" carried English words: "（第 3 行）"."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner
from suanli.cli.plan_cmd import read_workload_file


def _file(tmp_path: Path, text: str) -> str:
    p = tmp_path / "w.yaml"
    p.write_text("model: qwen2.5-7b\ntask: lora\ntokens: 1e8\n" + text, encoding="utf-8")
    return str(p)


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "--file: unknown workload-file key 'budgett'. Did you mean: budget"),
    ("zh", "--file：未知的工作负载文件键：'budgett'。你是不是要找：budget"),
])
def test_an_unknown_key_is_named_with_the_closest(lang: str, said: str, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _file(tmp_path, "budgett: 100\n")
    code, out, err = run_cli(("--lang", lang, "plan", "--file", path), monkeypatch, capsys, tmp_path)
    assert code == 2 and out == ""
    assert said in err


@pytest.mark.parametrize(("text", "devices"), [
    ("gpu: [4090]\n", ("4090",)),
    ("gpu: 4090\n", ("4090",)),
    ("gpu: [4090, 910b]\n", ("4090", "910b")),
    ("gpu: a100, h800\n", ("a100", "h800")),
    ("devices: [4090]\n", ("4090",)),
])
def test_device_names_read_as_the_flag_takes_them(tmp_path: Path, text: str, devices: tuple[str, ...]) -> None:
    assert read_workload_file(_file(tmp_path, text))["devices"] == devices


def test_gpus_as_a_number_stays_the_card_count(tmp_path: Path) -> None:
    fields = read_workload_file(_file(tmp_path, "gpus: 8\ndeadline-hours: 48\nno_migration: true\n"))
    assert fields["gpus"] == 8 and fields["deadline_hours"] == 48 and fields["allow_migration"] is False


def test_a_numeric_gpu_name_plans(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                  tmp_path: Path) -> None:
    path = _file(tmp_path, "gpu: [4090]\n")
    code, out, err = run_cli(("--lang", "en", "plan", "--file", path), monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert "rtx-4090" in out and "devices.0" not in err


def test_a_yaml_error_line_is_said_in_chinese(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    p = tmp_path / "bad.yaml"
    p.write_text("model: qwen2.5-7b\ntask: [lora\n", encoding="utf-8")
    code, _, err = run_cli(("--lang", "zh", "plan", "--file", str(p)), monkeypatch, capsys, tmp_path)
    assert code == 2 and "不是有效的 YAML（第 3 行）：" in err and "at line" not in err
    code, _, err = run_cli(("--lang", "en", "plan", "--file", str(p)), monkeypatch, capsys, tmp_path)
    assert code == 2 and "is not valid YAML at line 3: " in err
