"""Buyer review 2026-12-03 (task J): `suanli plan --model qwen-32b --task inference --concurrent-users 100` asked for
--tpot first and said the model does not exist only once --tpot was given. An unknown model or --gpu name is now the
first thing said, with its closest names, before any missing-flag refusal (compare already did so)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner


@pytest.mark.parametrize(("args", "said"), [
    (("--model", "qwen-32b", "--task", "inference", "--concurrent-users", "100"),
     "--model: unknown model 'qwen-32b'. Did you mean: Qwen/Qwen3-32B"),
    (("--model", "qwen3-32b", "--gpu", "h1000", "--concurrent-users", "100"),
     "--gpu: unknown gpu 'h1000'. Did you mean: h100"),
    (("--model", "qwen-32b", "--gpu", "h1000", "--task", "lora"), "--model: unknown model 'qwen-32b'"),
])
def test_an_unknown_name_is_said_before_a_missing_flag(args: tuple[str, ...], said: str,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(("--lang", "en", "plan", *args), monkeypatch, capsys, tmp_path)
    assert code == 2
    assert said in err
    assert "--tpot" not in err and "--tokens" not in err  # the missing flag is not what is said


def test_known_names_still_reach_the_missing_flag(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(("--lang", "en", "plan", "--model", "qwen3-32b", "--gpu", "h100",
                            "--concurrent-users", "100"), monkeypatch, capsys, tmp_path)
    assert code == 2
    assert "--concurrent-users: needs --tpot" in err
