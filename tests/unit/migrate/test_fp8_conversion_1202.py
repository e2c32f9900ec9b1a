"""Buyer review 2026-12-02: DeepSeek-R1/V3 on Ascend is not a "port". Their FP8-only release is converted once with
the vendor's tool (msModelSlim W8A8/W4A8, which vLLM-Ascend and MindIE serve; bf16 via DeepSeek's fp8_cast_bf16.py for
a bf16 plan or MindSpeed-LLM training), so `migrate check` calls them as their trace and adapted lists say
(npu-native, on the lists) and charges the lists' range — the 1–8 weeks Qwen3-235B-A22B (also MoE) gets — and
`migrate cost` and plan charge the same weeks (one rule, `migrate.effort`). "Dequantize to bf16" is the bf16 plan's
advice only. CLI and API, en and zh."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import accelerator as lookup_accelerator
from suanli.catalog.lookup import model as lookup_model
from suanli.catalog.lookup import stack as lookup_stack
from suanli.estimate.precision import native_precision_note
from suanli.i18n import render
from suanli.migrate.effort import checkpoint_uses
from suanli.plan.compare import migration_cost
from suanli.plan.search import migration_weeks

MOE_LISTED = (1.0, 8.0)  # seed-000's 1–2 weeks on the list to seed-003's 4–8 for MoE (migration.adapted_moe)


def _check(args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
           tmp_path: Path) -> str:
    pytest.importorskip("torch", reason="tracing needs the optional `torch` extra; `make test` installs it")
    pytest.importorskip("transformers", reason="tracing needs the optional `torch` extra; `make test` installs it")
    code, out, err = run_cli(args, monkeypatch, capsys, tmp_path)
    assert code == 0, err
    return out


def test_check_json_is_npu_native_with_the_conversion(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    d = json.loads(_check(["migrate", "check", "--model", "deepseek-r1", "--task", "inference", "--json"],
                          monkeypatch, capsys, tmp_path))
    assert d["verdict"] == "npu-native" and tuple(d["migration_weeks"]) == MOE_LISTED
    assert d["migration_person_weeks"] == [2.0, 16.0]
    assert "not a port" in d["verdict_text"] and "fp8" in d["verdict_text"]
    assert "a port)" not in d["migration_basis"] and "no NPU build" not in d["migration_basis"]
    (fp8,) = d["libraries"]
    assert (fp8["id"], fp8["status"]) == ("fp8", "convert")
    # the advice names the tool and the precisions; bf16 only as a bf16 plan's (with its memory), never "load it so"
    assert "msModelSlim" in fp8["message"] and "W8A8 or W4A8" in fp8["message"]
    assert "a bf16 plan" in fp8["message"] and "twice the FP8 weight memory" in fp8["message"]
    assert "load the weights dequantized" not in json.dumps(d)
    assert "Ascend/msmodelslim:example/DeepSeek/README.md" in fp8["sources"]


def test_check_says_it_in_english_and_chinese(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    en = _check(["migrate", "check", "--model", "deepseek-r1", "--task", "inference"], monkeypatch, capsys, tmp_path)
    assert "verdict: npu-native" in en and "needs-port" not in en
    assert "converted once before use (the fp8 warning below), not a port" in en
    assert "migration effort: 1–8 weeks × 2 engineers = 2–16 engineer-weeks" in en
    assert "→ converted with msModelSlim (W8A8/W4A8) or to bf16): no NPU kernel; converted once before use, not a port" in en
    zh = _check(["--lang", "zh", "migrate", "check", "--model", "deepseek-r1", "--task", "inference"],
                monkeypatch, capsys, tmp_path)
    assert "结论：NPU 原生可跑" in zh and "使用前转换一次（见下方 fp8 警告），不是移植" in zh
    assert "迁移工作量：1–8 周 × 2 名工程师" in zh
    assert "→ 用 msModelSlim 转换（W8A8/W4A8）或转为 bf16）：没有 NPU 内核；使用前转换一次，不是移植" in zh
    assert "需要移植" not in zh


@pytest.mark.parametrize("model", ["deepseek-r1", "deepseek-v3"])
@pytest.mark.parametrize("task", ["inference", "full"])
def test_check_cost_and_plan_charge_the_lists_weeks(model: str, task: str) -> None:
    """The conversion is no port in the one rule every caller asks: the weeks are the adapted lists' (vLLM-Ascend and
    MindIE-LLM for serving, MindSpeed-LLM for training), the MoE span Qwen3-235B-A22B gets too."""
    cat = packaged_catalog()
    m, cann = lookup_model(cat, model), lookup_stack(cat, "cann")
    assert [u.status for u in checkpoint_uses(m, cat)] == ["convert"]
    lo, hi, why = migration_weeks(cat, cann, m, task=task)
    assert (lo, hi) == MOE_LISTED and why.id == "migration.adapted_moe"
    assert migration_weeks(cat, cann, lookup_model(cat, "qwen3-235b-a22b"), task=task)[:2] == MOE_LISTED
    out = migration_cost(cat, m, "ascend-910b", "h200", saving=10000.0, task=task)
    assert tuple(out["calendar_weeks"]) == MOE_LISTED
    assert "no NPU build" not in out["weeks_reason"] and "a port" not in out["weeks_reason"]


def test_dequantizing_to_bf16_is_the_bf16_plans_note_only() -> None:
    """The plan says the FP8 release is converted to bf16 (2x the weights) for a bf16 plan; an int8/int4 plan on
    Ascend is the msModelSlim W8A8/W4A8 checkpoint (its scheme note), with no bf16 conversion said."""
    cat = packaged_catalog()
    m = lookup_model(cat, "deepseek-r1")
    for gpu in ("910b", "910c"):
        acc = lookup_accelerator(cat, gpu)
        stack = lookup_stack(cat, acc.stack)
        bf16 = native_precision_note(m, acc, stack, "inference", "bf16")
        assert bf16 is not None and render(bf16) == "the checkpoint is FP8; this device runs it converted to bf16 (2x the weights)"
        assert native_precision_note(m, acc, stack, "inference", "int8") is None
        assert native_precision_note(m, acc, stack, "inference", "int4") is None
        assert stack.int8_scheme is not None and stack.int8_scheme.value == "W8A8"
        assert stack.int4_scheme is not None and stack.int4_scheme.value == "W4A8"
        assert "msModelSlim" in (stack.int8_scheme.chosen.note or "") and "msModelSlim" in (stack.int4_scheme.chosen.note or "")
