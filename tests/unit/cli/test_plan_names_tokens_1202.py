"""`suanli plan` as POST /api/plan (buyer, 2026-12-02): --tokens beside --requests-per-s or --concurrent-users is
refused naming both flags (it was ignored, a month billed); --stack and --already-on read names as --vendor does
(CANN, 华为昇腾 CANN), and an unknown one names the flag typed with the closest stacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner

LORA = ["plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--top", "1"]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("serving", "flag"), [(["--requests-per-s", "5"], "--requests-per-s"),
                                               (["--concurrent-users", "50", "--tpot", "0.05"], "--concurrent-users")])
def test_tokens_beside_a_rate_names_both_flags(lang: str, serving: list[str], flag: str,
                                               monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    code, out, err = run_cli(["--lang", lang, "plan", "--model", "qwen3-32b", "--task", "inference", *serving,
                              "--tokens", "1e9"], monkeypatch, capsys, tmp_path)
    line = " ".join(err.split())
    assert code == 2 and out == "", (code, out, err)
    assert line.count("--tokens") == 2 and flag in line, line  # the field, then both named in the sentence
    assert "`" not in line and "requests_per_s" not in line, line  # flags, not JSON fields
    assert ("不能同时给出" if lang == "zh" else "not both") in line, line


@pytest.mark.parametrize("args", [["--stack", "CANN"], ["--already-on", "CANN"], ["--stack", "华为昇腾 CANN"],
                                  ["--vendor", "华为"]])
def test_stack_names_read_as_vendor_names(args: list[str], monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli([*LORA, "--region", "any", "--offer-kinds", "all", *args, "--json"], monkeypatch, capsys,
                             tmp_path)
    assert code == 0, err
    req = json.loads(out)["request"]
    field = {"--stack": "stacks", "--already-on": "already_on", "--vendor": "vendors"}[args[0]]
    assert req[field] == ["huawei" if field == "vendors" else "cann"], req


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("flag", ["--stack", "--already-on"])
def test_unknown_stack_names_the_flag_with_did_you_mean(lang: str, flag: str, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(["--lang", lang, *LORA, flag, "cuda", flag, "cnn"], monkeypatch, capsys, tmp_path)
    line = " ".join(err.split())
    assert code == 2 and f"{flag}{'：' if lang == 'zh' else ': '}" in line, line
    assert "'cnn'" in line and ("你是不是要找：cann" if lang == "zh" else "Did you mean: cann") in line, line
    assert "musa" not in line, line  # the closest stack, not the list of all (was "… is not one of cann, cuda, …")
    if flag == "--already-on":
        assert "--stack" not in line, line  # was "--stack: 'cnn' is not one of …"
