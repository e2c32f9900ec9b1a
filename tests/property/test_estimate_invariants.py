"""Hypothesis invariants of the estimators (issue 3, item 7)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.estimate.memory import estimate_memory
from suanli.estimate.workload import make_workload

CAT = packaged_catalog()
LLMS = [m.id for m in CAT.models if m.kind == "llm"]
TASKS = ("inference", "lora", "qlora", "full")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(LLMS), st.sampled_from(TASKS), st.integers(1, 64), st.integers(1, 8192), st.integers(1, 4))
def test_memory_never_decreases_with_batch_or_context(model: str, task: str, batch: int, ctx: int, k: int) -> None:
    m = lookup.model(CAT, model)
    w = make_workload(task=task, batch=batch, seq=ctx, input=ctx)
    base = estimate_memory(m, w).per_gpu_bytes
    assert estimate_memory(m, w.model_copy(update={"batch": batch + k})).per_gpu_bytes >= base
    assert estimate_memory(m, w.model_copy(update={"seq": ctx + k, "input": ctx + k})).per_gpu_bytes >= base


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(LLMS), st.sampled_from(("lora", "qlora")), st.integers(1, 512), st.integers(1, 256))
def test_memory_never_decreases_with_lora_rank(model: str, task: str, r: int, k: int) -> None:
    m = lookup.model(CAT, model)
    w = make_workload(task=task, lora_rank=r)
    assert estimate_memory(m, w.model_copy(update={"lora_rank": r + k})).per_gpu_bytes >= estimate_memory(m, w).per_gpu_bytes


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(LLMS), st.sampled_from((1, 2, 4, 8, 16, 64)), st.integers(0, 2))
def test_per_gpu_memory_never_increases_with_zero_stage_or_dp(model: str, dp: int, stage: int) -> None:
    m = lookup.model(CAT, model)
    w = make_workload(task="full", gpus=dp, zero=stage)
    here = estimate_memory(m, w).per_gpu_bytes
    assert estimate_memory(m, w.model_copy(update={"zero": stage + 1})).per_gpu_bytes <= here
    assert estimate_memory(m, w.model_copy(update={"gpus": dp * 2})).per_gpu_bytes <= here
