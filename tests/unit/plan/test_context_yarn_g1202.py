"""Buyer review 2026-12-02 (G2): `plan --model qwen3-32b --input 65536 --output 8192` was refused "input + output
exceeds Qwen/Qwen3-32B's context of 40,960 tokens" without the sum or the way out the model card gives (YaRN to
131,072 by adding rope_scaling to config.json). One refusal for plan and estimate (`estimate.context_refusal`), with
the sum and, where the catalog records the card's YaRN extension (`yarn_context`), how to get it. The Qwen2.5-7B/14B
base checkpoints' config.json set 131,072 (as the 72B's): training them is checked against that."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import context_of
from suanli.catalog.lookup import model as lookup_model

PLAN = ["plan", "--model", "qwen3-32b", "--concurrent-users", "200", "--tpot", "0.05", "--output", "8192",
        "--domestic-only"]


def _refusal(args: list[str], lang: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             tmp_path: Path) -> str:
    code, out, err = run_cli(["--lang", lang, *args], monkeypatch, capsys, tmp_path)
    assert code == 2, out + err
    return " ".join((out + err).split())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_plan_and_estimate_say_the_sum_and_the_cards_yarn(lang: str, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    plan = _refusal([*PLAN, "--input", "65536"], lang, monkeypatch, capsys, tmp_path)
    est = _refusal(["estimate", "--model", "qwen3-32b", "--gpu", "910b", "--input", "65536", "--output", "8192"],
                   lang, monkeypatch, capsys, tmp_path)
    if lang == "en":
        want = ("input + output = 73,728 tokens exceeds Qwen/Qwen3-32B's context of 40,960 tokens; its model card "
                "extends the context to 131,072 tokens with YaRN: pass the model as its config.json with rope_scaling "
                "added (type yarn, factor 4)")
    else:
        want = "输入 + 输出 = 73,728 个 token，超过 Qwen/Qwen3-32B 的上下文长度 40,960 个 token；其模型卡说明可用 YaRN 把上下文扩展到 131,072 个 token"
    assert want in plan and want in est  # one message, plan and estimate alike


def test_past_the_yarn_context_or_without_one_no_hint(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    far = _refusal([*PLAN, "--input", "165536"], "en", monkeypatch, capsys, tmp_path)
    assert "173,728 tokens exceeds Qwen/Qwen3-32B's context of 40,960 tokens" in far and "YaRN" not in far
    small = _refusal(["estimate", "--model", "qwen2.5-3b", "--gpu", "910b", "--input", "40000", "--output", "100"],
                     "en", monkeypatch, capsys, tmp_path)
    assert "40,100 tokens exceeds Qwen/Qwen2.5-3B-Instruct's context of 32,768 tokens" in small
    assert "YaRN" not in small


def test_a_config_with_the_cards_rope_scaling_is_planned(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cfg = tmp_path / "config.json"
    cfg.write_text('{"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 5120, '
                   '"intermediate_size": 25600, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, '
                   '"num_hidden_layers": 64, "vocab_size": 151936, "max_position_embeddings": 40960, '
                   '"torch_dtype": "bfloat16", "rope_scaling": {"rope_type": "yarn", "factor": 4.0, '
                   '"original_max_position_embeddings": 32768}}', encoding="utf-8")
    code, out, err = run_cli(["estimate", "--model", str(cfg), "--gpu", "910b", "--gpus", "8", "--input", "65536",
                              "--output", "8192"], monkeypatch, capsys, tmp_path)
    assert code == 0, out + err
    assert "exceeds" not in err


@pytest.mark.parametrize("name", ["qwen2.5-7b", "qwen2.5-14b", "qwen2.5-72b"])
def test_qwen25_base_checkpoints_have_131072(name: str) -> None:
    m = lookup_model(packaged_catalog(), name)
    assert context_of(m, "full") == 131072  # training downloads the base (its config.json)
    assert context_of(m, "inference") == 32768  # serving the -Instruct (its config.json)
    assert m.yarn_context == 131072 and m.yarn_factor == 4.0
