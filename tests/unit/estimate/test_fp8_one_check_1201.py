"""An fp8 KV cache (and fp8 weights) is refused where neither the device nor the stack has FP8 — SGLang documents
its fp8 KV cache on CUDA, not on a 910B — in one line naming the field and the allowed values, by the one FP8 check
(`capability.fp8_problem`) that estimate, the API and the planner share; CUDA keeps vLLM's fp8 KV cache on Ampere."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.estimate.capability import capability_problems, fp8_problem
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan


def _est(cat, gpu: str, **kw):  # type: ignore[no-untyped-def]
    return estimate(cat, lookup.model(cat, "qwen2.5-7b"), lookup.accelerator(cat, gpu),
                    make_workload(task="inference", **kw))


@pytest.mark.parametrize("gpu", ["910b", "910c"])
def test_sglang_fp8_kv_cache_is_refused_on_ascend(cat, gpu: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as ei:
        _est(cat, gpu, engine="sglang", kv_dtype="fp8")
    assert ei.value.field == "kv-dtype"
    line = str(ei.value)
    assert "\n" not in line and line.endswith("allowed: bf16, fp16") and "has no FP8 tensor cores" in line
    assert "tilelang-ascend-pr-1177" in line
    zh = render(Message.from_json(ei.value.i18n.to_json()), "zh")  # type: ignore[union-attr]
    assert "可选：bf16、fp16" in zh and "FP8" in zh
    # the engine's own list still speaks first where it has no fp8 (vLLM-Ascend: int8, its source)
    with pytest.raises(InputError, match=r"engine vllm-ascend does not store the KV cache in fp8; allowed: bf16, fp16, int8"):
        _est(cat, gpu, engine="vllm-ascend", kv_dtype="fp8")


def test_fp8_weights_refusal_names_the_allowed_precisions(cat) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as ei:
        _est(cat, "910b", engine="sglang", precision="fp8")
    assert ei.value.field == "precision" and str(ei.value).endswith("allowed: bf16, fp16, int8, int4")
    # the planner's why-not is the same check's message
    acc, stack = lookup.accelerator(cat, "910b"), lookup.stack(cat, "cann")
    errors, _ = capability_problems(acc, stack, "inference", "fp8", "sglang")
    assert errors == [fp8_problem(acc, stack)]


def test_fp8_kv_cache_where_the_stack_or_device_has_fp8(cat) -> None:  # type: ignore[no-untyped-def]
    # vLLM's fp8 KV cache on Ampere (CUDA runs FP8; the A100 has no FP8 cores): kept
    e = _est(cat, "a100-80g", engine="vllm", kv_dtype="fp8")
    assert e.memory.breakdown_bytes["kv_cache"] > 0
    _est(cat, "h100", engine="sglang", kv_dtype="fp8")
    acc, stack = lookup.accelerator(cat, "a100-80g"), lookup.stack(cat, "cuda")
    assert fp8_problem(acc, stack, kv=True, engine="vllm") is None and fp8_problem(acc, stack) is not None


def test_the_planner_proposes_no_fp8_on_ascend(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    r = plan(cat, m, make_request(model="qwen2.5-7b", task="inference", devices=("ascend-910b",), engine="sglang",
                                  requests_per_s=1.0))
    assert r.plans and all(p.precision != "fp8" for p in r.plans)
    pinned = plan(cat, m, make_request(model="qwen2.5-7b", task="inference", devices=("ascend-910b",),
                                       engine="sglang", precision="fp8", requests_per_s=1.0))
    assert not pinned.plans
    assert any("has no FP8 tensor cores" in w["reason"] and "allowed: bf16" in w["reason"] for w in pinned.why_not)


def test_engine_version_is_a_bounded_release_string() -> None:  # CLI --engine-version, POST /api/estimate engine_version
    from pydantic import ValidationError

    from suanli.estimate.workload import Workload

    assert Workload(engine_version="4.38.2").engine_version == "4.38.2"
    for bad in ("x; rm", "4" + "1" * 40):
        with pytest.raises(ValidationError):
            Workload(engine_version=bad)
