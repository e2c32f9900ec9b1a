"""Serving at a quantized precision nobody publishes a checkpoint of says so (buyer review 2026-12-02, task N:
'8 x A100 int8' for Qwen3-235B-A22B, which Qwen uploads in BF16, FP8 and GPTQ-Int4 only): one rule,
estimate.precision.unpublished_checkpoint_note, read from the model's cited `published_checkpoints`; numbers unchanged."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.estimate.estimate import estimate
from suanli.estimate.precision import unpublished_checkpoint_note
from suanli.estimate.workload import make_workload
from suanli.i18n import render

CAT = packaged_catalog()
Q235 = "qwen3-235b-a22b"


def _note(model: str, device: str, precision: str, task: str = "inference", method: str | None = None):  # type: ignore[no-untyped-def]
    acc = lookup.accelerator(CAT, device)
    return unpublished_checkpoint_note(lookup.model(CAT, model), lookup.stack(CAT, acc.stack), task, precision, method,
                                       stacks=CAT.stacks)


def test_int8_of_qwen3_235b_on_cuda_is_unpublished_and_names_what_is() -> None:
    n = _note(Q235, "a100-80g", "int8")
    assert n is not None
    text = render(n)
    assert text.startswith("no published int8 checkpoint of Qwen/Qwen3-235B-A22B for NVIDIA CUDA (")
    assert "read 2026-12-02" in text and "hf-qwen3-quantized-uploads" in text
    assert "quantize it yourself first" in text
    assert "fp8 (Qwen/Qwen3-235B-A22B-FP8)" in text and "int4 GPTQ (Qwen/Qwen3-235B-A22B-GPTQ-Int4)" in text
    # the Ascend W8A8 upload exists, for CANN only: said, not counted on CUDA
    # the stack by its name, not its id (buyer review 2026-12-02 G3: "仅为 cann 制作")
    assert "vllm-ascend/Qwen3-235B-A22B-W8A8 is made for Huawei Ascend CANN only" in text
    zh = render(n, "zh")
    assert "没有适用于" in zh and "需先自行量化" in zh and "已发布" in zh
    assert "vllm-ascend/Qwen3-235B-A22B-W8A8 仅为华为昇腾 CANN 制作" in zh


def test_the_ascend_w8a8_upload_counts_on_cann() -> None:
    assert _note(Q235, "ascend-910b", "int8") is None  # vllm-ascend/Qwen3-235B-A22B-W8A8 (msModelSlim)


@pytest.mark.parametrize("device", ["a100-80g", "h20", "ascend-910b"])
def test_published_precisions_say_nothing(device: str) -> None:
    assert _note(Q235, device, "fp8") is None  # -FP8; on Ampere an FP8 checkpoint runs weight-only (W8A16)
    assert _note(Q235, device, "int4") is None  # -GPTQ-Int4 (no stack tie)
    assert _note(Q235, device, "bf16") is None  # 16-bit: not this rule's


def test_the_quant_method_must_match() -> None:
    n = _note(Q235, "a100-80g", "int4", method="awq")
    assert n is not None and "no published int4 AWQ checkpoint" in render(n)
    assert _note(Q235, "a100-80g", "int4", method="gptq") is None
    assert _note("qwen3-32b", "a100-80g", "int4", method="awq") is None  # Qwen/Qwen3-32B-AWQ


def test_training_and_unchecked_models_say_nothing() -> None:
    assert _note(Q235, "a100-80g", "int4", task="qlora") is None  # quantized at load time, not downloaded
    unchecked = lookup.model(CAT, "mistral-7b")
    assert unchecked.published_checkpoints is None
    assert _note("mistral-7b", "a100-80g", "int8") is None  # not checked: no word, never a guess


def test_smaller_qwen3_sizes_follow_their_uploads() -> None:
    assert _note("qwen3-0.6b", "a100-80g", "int8") is None  # -GPTQ-Int8
    n = _note("qwen3-8b", "a100-80g", "int8")
    assert n is not None and "Qwen/Qwen3-8B-AWQ" in render(n)
    assert _note("qwen3-32b", "ascend-910b", "int8") is None  # vLLM-Ascend's Qwen3-32B-W8A8


def test_estimate_warns_once_and_keeps_the_numbers() -> None:
    m = lookup.model(CAT, Q235)
    acc = lookup.accelerator(CAT, "a100-80g")
    w = make_workload(task="inference", precision="int8", gpus=8, tp=8)
    e = estimate(CAT, m, acc, w)
    ids = [n.get("id") for n in e.notes_i18n if isinstance(n, dict)]
    assert ids.count("precision.unpublished_checkpoint") == 1
    bare = m.model_copy(update={"published_checkpoints": None})
    e0 = estimate(CAT, bare, acc, w)
    assert e0.memory.needed_bytes == e.memory.needed_bytes
    assert e0.inference is not None and e.inference is not None
    assert e0.inference.output_tokens_per_s == e.inference.output_tokens_per_s
    assert not any(isinstance(n, dict) and n.get("id") == "precision.unpublished_checkpoint" for n in e0.notes_i18n)


def test_every_listed_stack_exists_and_every_entry_is_dated() -> None:
    stacks = {s.id for s in CAT.stacks}
    for m in CAT.models:
        for c in m.published_checkpoints or ():
            assert c.date, (m.id, c.value.repo)
            assert set(c.value.stacks) <= stacks, (m.id, c.value.stacks)
            assert (c.value.quant_method is None) == (c.value.precision in ("bf16", "fp16")), (m.id, c.value.repo)
