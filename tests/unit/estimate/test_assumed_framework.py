"""`estimate` without --framework assumes the framework `plan` picks for the same task, stack and layout
(estimate.assumed_framework, capability.framework_order, plan.search._one_framework_per_layout), names it in a note and
in --json `framework`, and so gives the planner's memory per card for a plan's layout: Megatron-LM's fp32 gradients
where the plan ran Megatron-LM, not the 2-byte ones of no framework."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.cli.main import app
from suanli.estimate.capability import framework_order
from suanli.estimate.estimate import assumed_framework, estimate
from suanli.plan.request import make_request
from suanli.plan.search import plan, plan_workload

EVERY = dict(region="any", offer_kinds=("listing", "index", "reference"))


def _estimate_as_plan(cat: Any, model: str, **kw: Any) -> list[tuple[Any, Any]]:
    """Each plan of the request beside `estimate` of its layout without --framework (as the CLI and API call it)."""
    m = lookup.model(cat, model)
    req = make_request(model=m.id, **EVERY, **kw)
    plans = plan(cat, m, req).plans
    assert plans, kw
    out = []
    for p in plans:
        w = plan_workload(p, req).model_copy(update={"framework": None})
        out.append((p, estimate(cat, m, lookup.accelerator(cat, p.device), w, assume_framework=True)))
    return out


@pytest.mark.parametrize("case", [
    dict(model="llama-3.1-8b", task="full", tokens=1e10, devices=("h200", "a100-80g"), gpus=16, tp=8, zero=1),
    dict(model="qwen2.5-7b", task="lora", tokens=1e8, devices=("rtx-4090", "a100-80g", "l40s"), gpus=1),
    dict(model="llama-3.1-8b", task="pretrain", tokens=1e10, devices=("910b",), gpus=8),
    dict(model="qwen2.5-72b", task="full", tokens=1e10, devices=("h200", "a100-80g", "h20"), top=6),
    dict(model="llama-3.1-8b", task="pretrain", tokens=1e10, devices=("h100", "a100-80g", "rtx-4090"), top=6),
], ids=["cuda-full-tp8-zero1", "cuda-lora-1-card", "ascend-pretrain", "cuda-full-any", "cuda-pretrain-any"])
def test_estimate_assumes_the_plans_framework_and_gives_its_memory(cat, case) -> None:  # type: ignore[no-untyped-def]
    for p, e in _estimate_as_plan(cat, **case):
        assert e.framework is not None and e.framework.chosen == "assumed"
        assert e.framework.id == p.framework, (p.device, p.tp, p.pp, p.zero)
        assert e.workload.framework == p.framework
        assert e.memory.per_gpu_bytes == pytest.approx(p.memory_per_gpu_bytes, rel=1e-9)
        assert any(n["id"] == "est.note.framework_assumed" for n in e.notes_i18n if isinstance(n, dict))


def test_cuda_tp8_full_is_megatron_with_fp32_gradients(cat) -> None:  # type: ignore[no-untyped-def]
    (p, e), *_ = _estimate_as_plan(cat, "llama-3.1-8b", task="full", tokens=1e10, devices=("h200",), gpus=16, tp=8,
                                   zero=1)
    assert p.framework == e.framework.id == "megatron"  # DeepSpeed (the default for full) runs no tp
    m = lookup.model(cat, "llama-3.1-8b")
    unnamed = estimate(cat, m, lookup.accelerator(cat, "h200"), e.workload.model_copy(update={"framework": None}))
    # without assume_framework (validation cases, the core's callers): no framework's rule, 2-byte gradients
    assert e.memory.breakdown_bytes["gradients"] == pytest.approx(2 * unnamed.memory.breakdown_bytes["gradients"])


def test_the_order_puts_the_tasks_default_first(cat) -> None:  # type: ignore[no-untyped-def]
    assert [f.id for f in framework_order(cat.frameworks, "pretrain", "cuda")][0] == "megatron"
    assert [f.id for f in framework_order(cat.frameworks, "full", "cuda")][0] == "deepspeed"
    assert [f.id for f in framework_order(cat.frameworks, "full", "cann")][:2] == ["mindspeed", "deepspeed"]
    assert [f.id for f in framework_order(cat.frameworks, "lora", "cuda")][0] == "llama-factory"


def test_no_framework_for_inference_or_a_layout_none_runs(cat) -> None:  # type: ignore[no-untyped-def]
    from suanli.estimate.workload import Workload

    m, acc = lookup.model(cat, "llama-3.1-8b"), lookup.accelerator(cat, "h100")
    assert assumed_framework(cat, m, acc, Workload(task="inference")) is None
    # ZeRO 2 beside tensor parallelism: Megatron runs ZeRO 0/1, torchtitan 3: none runs it, no rule applied
    assert assumed_framework(cat, m, acc, Workload(task="pretrain", gpus=8, tp=2, zero=2)) is None


def test_estimate_json_names_the_framework_and_how_it_was_chosen() -> None:
    base = ["estimate", "--model", "llama-3.1-8b", "--task", "pretrain", "--gpu", "h100", "--gpus", "8", "--tp", "8",
            "--zero", "1", "--json"]
    r = CliRunner().invoke(app, base)
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["framework"]["id"] == d["workload"]["framework"] == "megatron"
    assert d["framework"]["chosen"] == "assumed" and d["framework"]["rule"] in ("fastest", "first")
    assert d["framework"]["candidates"][0] == "megatron"
    note = next(n for n in d["notes_i18n"] if isinstance(n, dict) and n["id"] == "est.note.framework_assumed")
    assert note["params"]["layout"] == "tp8·pp1·z1"
    assert any(n.startswith("framework: Megatron-LM") and "--framework to change" in n for n in d["notes"])
    pinned = json.loads(CliRunner().invoke(app, [*base, "--framework", "nemo"]).stdout)
    assert pinned["framework"] == {"id": "nemo", "name": pinned["framework"]["name"], "chosen": "pinned",
                                   "rule": None, "candidates": []}
    assert not any(isinstance(n, dict) and n["id"] == "est.note.framework_assumed" for n in pinned["notes_i18n"])
    text = CliRunner().invoke(app, base[:-1])
    assert text.exit_code == 0 and "framework: Megatron-LM" in text.output


def test_chinese_note_names_it() -> None:
    r = CliRunner().invoke(app, ["--lang", "zh", "estimate", "--model", "llama-3.1-8b", "--task", "lora", "--gpu",
                                 "a100-80g"])
    assert r.exit_code == 0, r.output
    assert "训练框架：LLaMA-Factory" in r.output.replace("\n", "")
