"""One framework rule for `estimate` and `plan` (code review 2026-12-01): the task a framework runs, its ZeRO stages,
the ZeRO stages it offloads the optimizer with, and where it runs 8-bit AdamW (frameworks.yaml tasks, zero_stages,
offload_zero_stages, adamw8bit_stacks; capability.framework_refusals / optimizer_zero_stages)."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.errors import InputError, error_text
from suanli.estimate.capability import framework_refusal, framework_refusals, optimizer_zero_stages
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.plan.request import make_request
from suanli.plan.search import _optimizer_options, _unrun_pins

M = "qwen2.5-7b"


def _fw(cat, fid: str):  # type: ignore[no-untyped-def]
    return next(f for f in cat.frameworks if f.id == fid)


def _est(cat, gpu: str = "a100-80g", **kw):  # type: ignore[no-untyped-def]
    return estimate(cat, lookup.model(cat, M), lookup.accelerator(cat, gpu), make_workload(**kw))


def test_megatron_lora_zero2_is_refused_naming_what_megatron_runs(cat) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as e:
        _est(cat, task="lora", framework="megatron", zero=2)
    assert str(e.value).count("\n") == 0
    assert "Megatron" in str(e.value) and "full, pretrain" in str(e.value)
    with pytest.raises(InputError, match=r"does not run ZeRO 2 \(it runs ZeRO 0, 1\)"):
        _est(cat, task="full", framework="megatron", zero=2)


def test_offload_needs_a_stage_the_framework_offloads_with(cat) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as e:  # no framework offloads with ZeRO 0
        _est(cat, task="full", offload_optimizer=True, zero=0)
    assert "DeepSpeed offloads the optimizer only with ZeRO 1, 2, 3" in str(e.value)
    assert "LLaMA-Factory" in str(e.value) and "ZeRO 2, 3" in str(e.value)
    with pytest.raises(InputError, match="ZeRO 2, 3, not ZeRO 1"):
        _est(cat, task="full", offload_optimizer=True, zero=1, framework="llama-factory")
    _est(cat, task="full", offload_optimizer=True, zero=1, framework="deepspeed")  # DeepSpeed does
    _est(cat, task="full", offload_optimizer=True, zero=2)  # some framework does


def test_offload_where_the_framework_offers_none_is_refused_not_a_silent_null(cat) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match="Megatron.* does not offload the optimizer"):
        _est(cat, task="full", offload_optimizer=True, zero=1, framework="megatron")


def test_8bit_adamw_only_on_the_stacks_that_run_it(cat) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as e:
        _est(cat, "ascend-910b", task="full", optimizer="adamw8bit")
    assert "8-bit AdamW only on cuda, not on cann" in str(e.value)
    assert "不支持" in error_text(e.value, "zh")
    _est(cat, task="full", optimizer="adamw8bit")  # CUDA: bitsandbytes


def test_the_planner_applies_the_same_rule(cat) -> None:  # type: ignore[no-untyped-def]
    cuda = next(s for s in cat.stacks if s.id == "cuda")
    cann = next(s for s in cat.stacks if s.id == "cann")
    req = make_request(model=M, task="full", tokens=1e8)
    for fw in cat.frameworks:
        if "full" not in fw.tasks:
            continue
        for stack in (cuda, cann):
            opts = _optimizer_options(fw, stack, req)
            assert (1 in opts) == bool(optimizer_zero_stages(fw, stack.id, offload=True))
            assert (2 in opts) == (framework_refusal(fw, "full", stack.id, optimizer="adamw8bit") is None)
            for z in (1, 2, 3):  # offload offered <=> estimate accepts it with some stage
                ok = framework_refusal(fw, "full", stack.id, z, offload=True) is None
                assert ok <= (1 in opts)
    mg = _fw(cat, "megatron")
    assert _unrun_pins(mg, make_request(model=M, task="full", tokens=1e8, zero=2)) == ["--zero 2"]
    assert framework_refusal(mg, "full", "cuda", 2) is not None
    assert optimizer_zero_stages(_fw(cat, "deepspeed"), "cuda", offload=True) == (1, 2, 3)
    assert optimizer_zero_stages(_fw(cat, "llama-factory"), "cuda", offload=True) == (2, 3)
    assert optimizer_zero_stages(_fw(cat, "deepspeed"), "cann", False, "adamw8bit") == ()


def test_nothing_to_refuse_where_no_framework_runs_the_task_on_the_stack(cat) -> None:  # type: ignore[no-untyped-def]
    assert framework_refusals(cat.frameworks, "full", "no-such-stack", 0) is None
    assert framework_refusals(cat.frameworks, "lora", "cuda", 2) is None
