"""`suanli compare` said --gpus, --tokens, --region or the device count before an unknown --model or --gpu name;
`suanli plan` (f84a55b) and `suanli estimate` say the unknown name first. compare now does too, through plan's one
device-name check (views.bounds.check_device_names), as POST /api/compare does."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner

MODEL = ("--model", "qwen3-32b")


@pytest.mark.parametrize(("args", "said"), [
    (("--model", "qwen-32b", "--gpu", "h100", "--gpu", "a100-80g", "--gpus", "0"),
     "--model: unknown model 'qwen-32b'. Did you mean: Qwen/Qwen3-32B"),
    ((*MODEL, "--gpu", "h100", "--gpu", "h1000", "--gpus", "0"), "--gpu: unknown gpu 'h1000'. Did you mean: h100-sxm"),
    ((*MODEL, "--gpu", "h100", "--gpu", "h1000", "--tokens", "-1"), "--gpu: unknown gpu 'h1000'."),
    ((*MODEL, "--gpu", "h100", "--gpu", "h1000", "--region", "mars"), "--gpu: unknown gpu 'h1000'."),
    ((*MODEL, "--gpu", "h1000"), "--gpu: unknown gpu 'h1000'."),  # one device: the name before the count
])
def test_an_unknown_name_is_said_before_another_refusal(args: tuple[str, ...], said: str,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(("--lang", "en", "compare", *args), monkeypatch, capsys, tmp_path)
    assert code == 2
    assert said in err, err


@pytest.mark.parametrize(("args", "said"), [
    (("--gpu", "h100", "--gpu", "a100-80g", "--gpus", "0"), "--gpus: must be a whole number from 1 to 4,096"),
    (("--gpu", "h100"), "--gpu: give 2 to 4 devices (got 1)"),
])
def test_known_names_still_reach_the_refusal(args: tuple[str, ...], said: str, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(("--lang", "en", "compare", *MODEL, *args), monkeypatch, capsys, tmp_path)
    assert code == 2
    assert said in err, err
