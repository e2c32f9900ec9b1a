"""9ab3a2b's context refusal names the YaRN extension where the catalog records the model card's (`yarn_context`), but
only Qwen2.5 7B–72B and Qwen3 4B–235B had it: Qwen2-7B/72B-Instruct and Qwen2.5-Coder-7B/32B-Instruct, whose cards
give the same rope_scaling (type yarn, factor 4.0, original 32768) for 131,072 tokens, were refused with the sum alone.
Now they carry it, each cited to its cards (hf-qwen2-card-yarn, hf-qwen2.5-coder-card-yarn); the cards that name no
extension (Qwen3-0.6B: 'Context Length: 32,768'; Qwen2.5-3B-Instruct: 'Full 32,768 tokens') still get the sum alone.
Mirrors tests/unit/plan/test_context_yarn_g1202.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import model as lookup_model

NEW = [("qwen2-7b", "Qwen/Qwen2-7B-Instruct"), ("qwen2-72b", "Qwen/Qwen2-72B-Instruct"),
       ("qwen2.5-coder-7b", "Qwen/Qwen2.5-Coder-7B-Instruct"), ("qwen2.5-coder-32b", "Qwen/Qwen2.5-Coder-32B-Instruct")]


def _refusal(args: list[str], lang: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             tmp_path: Path) -> str:
    code, out, err = run_cli(["--lang", lang, *args], monkeypatch, capsys, tmp_path)
    assert code == 2, out + err
    return " ".join((out + err).split())


@pytest.mark.parametrize(("name", "model_id"), NEW)
def test_estimate_refusal_names_the_cards_yarn(name: str, model_id: str, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    est = _refusal(["estimate", "--model", name, "--gpu", "910b", "--input", "65536", "--output", "8192"], "en",
                   monkeypatch, capsys, tmp_path)
    assert (f"input + output = 73,728 tokens exceeds {model_id}'s context of 32,768 tokens; its model card extends the "
            "context to 131,072 tokens with YaRN: pass the model as its config.json with rope_scaling added (type yarn, "
            "factor 4)") in est, est


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_plan_refusal_names_the_cards_yarn(lang: str, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    plan = _refusal(["plan", "--model", "qwen2.5-coder-32b", "--concurrent-users", "20", "--tpot", "0.05", "--input",
                     "65536", "--output", "8192", "--domestic-only"], lang, monkeypatch, capsys, tmp_path)
    if lang == "en":
        want = ("input + output = 73,728 tokens exceeds Qwen/Qwen2.5-Coder-32B-Instruct's context of 32,768 tokens; its "
                "model card extends the context to 131,072 tokens with YaRN")
    else:
        want = ("输入 + 输出 = 73,728 个 token，超过 Qwen/Qwen2.5-Coder-32B-Instruct 的上下文长度 32,768 个 token；"
                "其模型卡说明可用 YaRN 把上下文扩展到 131,072 个 token")
    assert want in plan, plan


@pytest.mark.parametrize(("name", "model_id"), [("qwen3-0.6b", "Qwen/Qwen3-0.6B"),
                                                ("qwen2.5-3b", "Qwen/Qwen2.5-3B-Instruct")])
def test_a_card_without_yarn_gets_the_sum_alone(name: str, model_id: str, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    m = lookup_model(packaged_catalog(), name)
    est = _refusal(["estimate", "--model", name, "--gpu", "910b", "--input", "65536", "--output", "8192"], "en",
                   monkeypatch, capsys, tmp_path)
    assert f"73,728 tokens exceeds {model_id}'s context of {m.max_context:,} tokens" in est, est
    assert "YaRN" not in est


def test_every_yarn_source_quotes_the_cards_context_and_factor() -> None:
    cat = packaged_catalog()
    with_yarn = [m for m in cat.models if m.yarn_context is not None]
    assert {mid for _, mid in NEW} <= {m.id for m in with_yarn}
    for m in with_yarn:
        title = cat.sources[m.yarn_source].title  # type: ignore[index]
        assert f"{m.yarn_context:,}" in title and f'"factor": {m.yarn_factor}' in title, (m.id, title)
        assert "yarn" in title.lower() and '"original_max_position_embeddings": 32768' in title, (m.id, title)
