"""Issue 12 (decode-speed out-of-sample band): bitsandbytes' 4-bit linears run their batch-size-1 kernel (gemv_4bit)
only on a forward pass of one token (matmul_4bit: A.numel() == A.shape[-1]; CHANGELOG 0.40.0 "4-bit inference kernels
for batch size=1"); any other pass runs MatMul4Bit, which dequantizes each weight to a 16-bit copy
(F.dequantize_4bit) and multiplies by it (torch.nn.functional.linear), bitsandbytes/autograd/_functions.py. suanli's
nf4 is that format, so its weight bytes per pass of more than one token are the packed bytes plus a 16-bit write and
read of each quantized weight."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.estimate import speed
from suanli.estimate.estimate import estimate
from suanli.estimate.precision import weight_bytes_per_param
from suanli.estimate.workload import make_workload


def _terms(cat, precision: str, batch: int = 1):  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "llama-2-13b")
    w = make_workload(task="inference", precision=precision, batch=batch, input=512, output=512, engine="hf")
    return speed.inference_speed_terms(m, w), w


def test_one_token_passes_read_the_packed_weights(cat) -> None:  # type: ignore[no-untyped-def]
    t, _ = _terms(cat, "nf4")
    assert 0.9 < t.quant_weight_share < 1.0  # all but the 16-bit embedding / lm_head
    assert float(speed.quant_kernel_byte_factor(t, 1, {})) == 1.0


def test_larger_passes_write_and_read_a_16bit_copy(cat) -> None:  # type: ignore[no-untyped-def]
    t, _ = _terms(cat, "nf4")
    per_byte = 2 * 2.0 / weight_bytes_per_param("nf4")  # a 16-bit copy written, then read by the matmul
    for tokens in (2, 16, 512):
        assert float(speed.quant_kernel_byte_factor(t, tokens, {})) == pytest.approx(1.0 + t.quant_weight_share * per_byte)


@pytest.mark.parametrize("precision", ["int4", "int8", "bf16", "fp8"])
def test_other_precisions_have_no_copy(cat, precision) -> None:  # type: ignore[no-untyped-def]
    t, _ = _terms(cat, precision)
    assert t.quant_weight_share == 0.0
    assert float(speed.quant_kernel_byte_factor(t, 16, {})) == 1.0


def test_nf4_decodes_slower_than_int4_past_one_sequence_not_at_one(cat) -> None:  # type: ignore[no-untyped-def]
    """At batch 1 nf4 (gemv_4bit) and GPTQ int4 read similar packed bytes; at batch 8 nf4 reads a 16-bit copy."""
    acc = lookup.accelerator(cat, "a100-80g")
    m = lookup.model(cat, "llama-2-13b")

    def step(precision: str, batch: int) -> float:
        w = make_workload(task="inference", precision=precision, batch=batch, input=512, output=512, engine="hf")
        return speed.inference_speed(cat, m, acc, w).tpot_s

    assert step("nf4", 1) == pytest.approx(step("int4", 1), rel=0.1)
    assert step("nf4", 8) > 1.5 * step("int4", 8)
    assert step("nf4", 8) > step("fp16", 8)  # the copy costs more than reading 16-bit weights once


@pytest.mark.parametrize("batch,msg_id", [(1, "est.note.bnb_dequant_prefill"), (4, "est.note.bnb_dequant")])
def test_estimate_says_which_passes_dequantize(cat, batch, msg_id) -> None:  # type: ignore[no-untyped-def]
    w = make_workload(task="inference", precision="nf4", batch=batch, input=512, output=512, engine="hf")
    r = estimate(cat, lookup.model(cat, "llama-2-13b"), lookup.accelerator(cat, "a100-80g"), w)
    ids = [n["id"] for n in r.notes_i18n if isinstance(n, dict) and n["id"].startswith("est.note.bnb_dequant")]
    assert ids == [msg_id]
    w4 = make_workload(task="inference", precision="int4", batch=batch, input=512, output=512, engine="hf")
    r4 = estimate(cat, lookup.model(cat, "llama-2-13b"), lookup.accelerator(cat, "a100-80g"), w4)
    assert not [n for n in r4.notes_i18n if isinstance(n, dict) and n["id"].startswith("est.note.bnb_dequant")]
