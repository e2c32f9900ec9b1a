"""Review: `suanli estimate --gpu nonexistent` said `unknown gpu 'nonexistent'.` with neither the closest names nor
the known ones, and an unknown engine or framework listed the allowed values without the closest. One helper now
(`errors.unknown_name`): one line naming the field, the closest names (difflib) or else the known ones, in every
command."""

from __future__ import annotations

from pathlib import Path

import pytest

from suanli.errors import unknown_name
from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner

CASES = [
    (("estimate", "--model", "qwen2.5-7b", "--gpu", "nonexistent"), "gpu: unknown gpu 'nonexistent'; known: a10, "),
    (("estimate", "--model", "qwen2.5-7b", "--gpu", "h10"), "gpu: unknown gpu 'h10'. Did you mean: h100"),
    (("estimate", "--model", "nonexistent", "--gpu", "h100"), "model: unknown model 'nonexistent'; known: "),
    (("estimate", "--model", "qwen2.5-7b", "--gpu", "h100", "--engine", "vlm"), "engine: unknown engine 'vlm'. Did you mean: vllm"),
    (("estimate", "--model", "qwen2.5-7b", "--gpu", "h100", "--engine", "xyz"),
     "engine: unknown engine 'xyz'; known: hf, llama.cpp, lmdeploy, mindie, sglang, trt-llm, vllm, vllm-ascend."),
    (("plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--framework", "deepspeedx"),
     "framework: unknown framework 'deepspeedx'. Did you mean: deepspeed"),
    (("plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--gpu", "nonexistent"), "unknown gpu 'nonexistent'; known: "),
    (("compare", "--model", "qwen2.5-7b", "--gpu", "h100", "--gpu", "nonexistent"), "unknown gpu 'nonexistent'; known: "),
    (("tco", "--gpu", "nonexistent", "--hours", "10"), "unknown gpu 'nonexistent'; known: "),
    (("rent-vs-buy", "--gpu", "nonexistent"), "unknown gpu 'nonexistent'; known: "),
    (("migrate", "cost", "--model", "qwen2.5-7b", "--to-gpu", "nonexistent"), "unknown gpu 'nonexistent'; known: "),
]


def _err(args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
         tmp_path: Path) -> str:
    code, _, err = run_cli(("--lang", "en", *args), monkeypatch, capsys, tmp_path)
    assert code == 2
    return err


@pytest.mark.parametrize(("args", "said"), CASES, ids=lambda a: "-".join(a[:1] + a[-1:]) if isinstance(a, tuple) else "")
def test_every_command_names_the_closest_or_the_known(args: tuple[str, ...], said: str, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    err = _err(args, monkeypatch, capsys, tmp_path)
    assert len(err.strip().splitlines()) == 1 and said in err, err


def test_the_helper() -> None:
    close, msg = unknown_name("engine", "vlm", ["hf", "vllm", "sglang"])
    assert close == ["vllm"] and msg.id == "error.unknown_hint"
    close, msg = unknown_name("gpu", "zzzz", [f"g{i:02}" for i in range(30)] + ["alias"], [f"g{i:02}" for i in range(30)])
    assert close == [] and msg.id == "error.unknown_known"
    assert msg.params["names"] == ", ".join(f"g{i:02}" for i in range(8)) and msg.params["more"].params == {"n": 30}
