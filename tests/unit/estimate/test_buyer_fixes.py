"""Fixes a buyer found: a quantized KV cache is an engine capability (not FP8 tensor cores), QLoRA on an unoptimised
NF4 stack says its speed is the bf16 upper bound, impossible parallel layouts are errors naming the field."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload


def _est(cat, model: str, gpu: str, **kw):
    return estimate(cat, lookup.model(cat, model), lookup.accelerator(cat, gpu), make_workload(**kw))


def test_fp8_kv_cache_on_ampere_with_vllm(cat) -> None:
    # vLLM stores an fp8 KV cache on Ampere (vllm-quantized-kvcache; vllm#2279 tested on A100): no FP8 tensor cores
    e = _est(cat, "qwen2.5-72b", "a100-80g", task="inference", gpus=4, tp=4, engine="vllm", kv_dtype="fp8")
    bf16 = _est(cat, "qwen2.5-72b", "a100-80g", task="inference", gpus=4, tp=4, engine="vllm")
    assert e.memory.breakdown_bytes["kv_cache"] == pytest.approx(bf16.memory.breakdown_bytes["kv_cache"] / 2)
    # fp8 weights on Ampere stay an error about the precision
    with pytest.raises(InputError, match="^precision: .*FP8 tensor cores"):
        _est(cat, "qwen2.5-7b", "a100-80g", task="inference", precision="fp8", engine="vllm")


@pytest.mark.parametrize(("gpu", "engine", "kv", "allowed"), [
    ("910b", "vllm-ascend", "fp8", "bf16, fp16, int8"),
    ("910b", "mindie", "int4", "bf16, fp16, int8"),
    ("a100-80g", "lmdeploy", "fp8", "bf16, fp16, int8, int4"),
    ("h100", "sglang", "int8", "bf16, fp16, fp8"),
])
def test_unsupported_kv_dtype_names_kv_dtype_and_allowed(cat, gpu: str, engine: str, kv: str, allowed: str) -> None:
    with pytest.raises(InputError) as ei:
        _est(cat, "qwen2.5-7b", gpu, task="inference", engine=engine, kv_dtype=kv)
    assert ei.value.field == "kv-dtype"
    assert f"allowed: {allowed} (source" in str(ei.value) and "\n" not in str(ei.value)


def test_supported_kv_dtypes(cat) -> None:
    for gpu, engine, kv in (("910b", "vllm-ascend", "int8"), ("910b", "mindie", "int8"), ("a100-80g", "lmdeploy", "int4"),
                            ("h100", "trt-llm", "int8"), ("h100", "trt-llm", "fp8"), ("h100", "sglang", "fp8")):
        e = _est(cat, "qwen2.5-7b", gpu, task="inference", engine=engine, kv_dtype=kv)
        assert not any("KV cache" in n for n in e.notes)
    # an engine with no cited KV dtypes: a warning, not an error
    e = _est(cat, "qwen2.5-7b", "a100-80g", task="inference", engine="llama.cpp", kv_dtype="int8")
    assert any("no source says engine llama.cpp stores the KV cache in int8" in n for n in e.notes)


def test_qlora_on_cann_notes_unoptimised_nf4(cat) -> None:
    from suanli.estimate.capability import nf4_speed_warning

    e = _est(cat, "qwen2.5-32b", "910b", task="qlora")
    note = next(n for n in e.notes if "NF4 (QLoRA) dequantization path is unoptimised" in n)
    assert "bnb-ascend-nf4-1422" in note and "bf16 figure, an upper bound" in note
    # no slowdown is invented: the speed is the bf16 (lora) figure
    lora = _est(cat, "qwen2.5-32b", "910b", task="lora")
    assert e.training is not None and lora.training is not None and e.training.mfu == lora.training.mfu
    # the planner shows the same Message; CUDA has no such row
    msg = nf4_speed_warning(lookup.stack(cat, "cann"))
    assert msg is not None and msg.id == "capability.nf4_unoptimised" and "source" in msg.render("en")
    assert "来源 bnb-ascend-nf4-1422" in msg.render("zh") and "plain PyTorch" not in msg.render("zh")  # note_zh
    assert nf4_speed_warning(lookup.stack(cat, "cuda")) is None
    assert not any("unoptimised" in n for n in _est(cat, "qwen2.5-7b", "h100", task="qlora").notes)


def test_impossible_layouts_name_the_field(cat) -> None:
    with pytest.raises(InputError) as ei:
        _est(cat, "llama-2-70b", "h100", task="full", gpus=16, zero=3, pp=2, framework="deepspeed")
    assert ei.value.field == "zero" and "pipeline" in str(ei.value)  # torchtitan runs it: tests/unit/estimate/test_zero_pp.py
    with pytest.raises(InputError) as ei:
        _est(cat, "qwen2.5-7b", "h100", task="inference", gpus=2, ep=2)
    assert ei.value.field == "ep" and "dense" in str(ei.value)
    # what does run: ZeRO-1 with PP, EP on an MoE model, TP for LoRA (Megatron / MindSpeed run LoRA with TP)
    _est(cat, "llama-2-70b", "h100", task="full", gpus=16, zero=1, pp=2)
    _est(cat, "mixtral-8x7b", "h100", task="full", gpus=16, ep=8, zero=1, recompute="full")
    _est(cat, "qwen2.5-7b", "h100", task="lora", gpus=2, tp=2)
