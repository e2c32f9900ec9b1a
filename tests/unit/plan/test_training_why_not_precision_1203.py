"""Task Q.2 (2026-12-03): a training why-not's memory figure names its precision where plan searched the device at
more than one (bf16, and Megatron-LM's / torchtitan's fp8 on Hopper: `_precisions`, `_framework_candidates`), in the
serving rows' one wording (`search.at_precision`, since 88aec09); a device searched at bf16 alone says nothing more
(qwen2.5-72b full fine-tuning on 8 RTX 4090s: DeepSpeed, bf16 only)."""

from __future__ import annotations

from typer.testing import CliRunner

from suanli.cli.main import app

PRETRAIN = ("plan", "--model", "llama3.1-405b", "--task", "pretrain", "--tokens", "1e9", "--gpu", "h800", "--gpus", "8")
FULL_4090 = ("plan", "--model", "qwen2.5-72b", "--task", "full", "--tokens", "1e8", "--gpu", "rtx-4090", "--gpus", "8")


def _row(lang: str, device: str, args: tuple[str, ...]) -> str:
    out = CliRunner().invoke(app, ["--lang", lang, *args], env={"COLUMNS": "400"})
    line = next(ln for ln in out.output.splitlines() if ln.startswith(device + " "))
    return " ".join(line.split())


def test_pretraining_searched_at_bf16_and_fp8_names_the_figures_precision() -> None:
    row = _row("en", "h800", PRETRAIN)
    assert "does not fit with DeepSpeed in bf16 on 8 cards: the leanest layout needs 191.5 GiB per card" in row, row
    zh = _row("zh", "h800", PRETRAIN)
    assert "用 DeepSpeed（bf16）在 8 张卡上放不下" in zh, zh


def test_a_bf16_only_search_says_no_precision() -> None:
    row = _row("en", "rtx-4090", FULL_4090)
    assert "does not fit with DeepSpeed on 8 cards: the leanest layout needs" in row, row
    assert "bf16" not in row, row
    assert "（bf16）" not in _row("zh", "rtx-4090", FULL_4090)
