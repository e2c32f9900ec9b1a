"""Buyer review 2026-12-02, item 1: int8 on the H20 ran at the bf16 rate (prefill 19,190 tok/s against fp8's 35,125)
while `suanli gpu h20-141g` lists INT8 296 TOPS, and nothing said why. On CUDA suanli's int8 is GPTQ-Int8, weight-only
W8A16 (vLLM's Marlin kernel: 8-bit weights, 16-bit activations and matmuls; every int8 CUDA validation case is such a
checkpoint), so the 16-bit rate stands, and the catalog now cites the scheme: plan names it beside the precision and
estimate says the same sentence (`precision.quant_scheme_note`, one function), with the rate its matmuls run at."""

from __future__ import annotations

import datetime as dt

import pytest

from suanli.catalog import lookup
from suanli.estimate.estimate import estimate
from suanli.estimate.precision import peak_flops_per_s, quant_scheme, quant_scheme_note
from suanli.estimate.workload import make_workload
from suanli.i18n import render
from suanli.plan.request import make_request
from suanli.plan.search import plan

TODAY = dt.date(2026, 12, 2)


def test_cuda_cites_int8_as_w8a16(cat) -> None:  # type: ignore[no-untyped-def]
    cuda = next(s for s in cat.stacks if s.id == "cuda")
    s = quant_scheme(cuda, "int8")
    assert s is not None and s.value == "W8A16" and s.source in cat.sources and s.note and s.note_zh
    assert "GPTQ-Int8" in s.note and "W8A8" in s.note  # the other int8 format named, and that it is not estimated


def test_the_rate_follows_the_scheme(cat) -> None:  # type: ignore[no-untyped-def]
    h20 = lookup.accelerator(cat, "h20-141g")
    assert h20.specs.int8_dense_tops is not None  # the card lists INT8 TOPS ...
    assert peak_flops_per_s(h20, "int8") == peak_flops_per_s(h20, "fp16")  # ... W8A16 runs at the 16-bit rate


def _int8_estimate(cat):  # type: ignore[no-untyped-def]
    w = make_workload(task="inference", precision="int8", batch=44, input=1024, output=1024, tp=1, ep=8, gpus=8)
    return estimate(cat, lookup.model(cat, "qwen3-235b-a22b"), lookup.accelerator(cat, "h20-141g"), w)


def test_estimate_says_what_int8_means_and_its_rate(cat) -> None:  # type: ignore[no-untyped-def]
    e = _int8_estimate(cat)
    notes = [n for n in e.notes_i18n if n["id"] == "plan.warn.quantization_scheme"]
    assert len(notes) == 1, e.notes_i18n
    assert notes[0]["params"]["scheme"] == "W8A16" and notes[0]["params"]["compute"] == "fp16"
    text = next(n for n in e.notes if "is W8A16" in n)
    assert "int8 on NVIDIA CUDA is W8A16" in text and "runs its matmuls at the fp16 rate" in text, text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_note_renders_in_both_languages(cat, lang: str) -> None:  # type: ignore[no-untyped-def]
    cuda = next(s for s in cat.stacks if s.id == "cuda")
    msg = quant_scheme_note(cuda, "int8", "NVIDIA CUDA", lookup.accelerator(cat, "h20-141g"))
    assert msg is not None
    text = render(msg, lang)
    assert "W8A16" in text and ("fp16" in text) and ("GPTQ-Int8" in text)


def test_fp8_on_a_card_without_fp8_says_the_16_bit_rate(cat) -> None:  # type: ignore[no-untyped-def]
    cuda = next(s for s in cat.stacks if s.id == "cuda")
    a100 = lookup.accelerator(cat, "a100-80g")
    assert a100.specs.fp8_dense_tflops is None
    msg = quant_scheme_note(cuda, "fp8", "NVIDIA CUDA", a100)
    assert msg is not None and msg.params["compute"] in ("fp16", "bf16")
    msg_h20 = quant_scheme_note(cuda, "fp8", "NVIDIA CUDA", lookup.accelerator(cat, "h20-141g"))
    assert msg_h20 is not None and msg_h20.params["compute"] == "fp8"
    assert quant_scheme_note(cuda, "bf16", "NVIDIA CUDA") is None


def test_an_int8_h20_plan_names_w8a16(cat) -> None:  # type: ignore[no-untyped-def]
    req = make_request(model="qwen3-235b-a22b", task="inference", requests_per_s=2, input=1024, output=1024,
                       devices=("h20-141g",), precision="int8", offer_kinds=("listing", "index", "reference",
                                                                              "contract"))
    r = plan(cat, lookup.model(cat, "qwen3-235b-a22b"), req, TODAY)
    assert r.plans
    p = r.plans[0]
    w = next(x for x, j in zip(p.warnings, p.warnings_i18n) if j["id"] == "plan.warn.quantization_scheme")
    assert "int8 on NVIDIA CUDA is W8A16" in w and "vllm-gptq-marlin-w8a16" in w and "fp16 rate" in w, w
