"""Issue 12 (decode-speed out-of-sample band): AutoGPTQ's 4-bit GPTQ kernels as transformers loads them run a forward
pass by per-kernel rules read from their code (speed.QUANT_KERNEL_RULES): exllama (v1) one pass over the packed weights
per input row below matmul_recons_thd = 8 rows and a reconstructed fp16 copy + cuBLAS from 8; exllamav2 one pass per 8
rows up to MAX_Q_GEMM_ROWS = 50, reconstruct above; cuda-old one pass per row below kernel_switch_threshold = 128."""

from __future__ import annotations

import json

import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.estimate import speed
from suanli.estimate.estimate import estimate
from suanli.estimate.precision import weight_bytes_per_param
from suanli.estimate.workload import make_workload


def _terms(cat, kernel: str | None, precision: str = "int4"):  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "llama-2-13b")
    w = make_workload(task="inference", precision=precision, batch=4, input=512, output=512, engine="hf",
                      gptq_kernel=kernel)
    return speed.inference_speed_terms(m, w)


COPY = 2 * 2.0 / weight_bytes_per_param("int4")  # a 16-bit copy written, then read by cuBLAS, per packed byte


@pytest.mark.parametrize("kernel,tokens,extra", [
    ("exllama", 1, 0.0), ("exllama", 4, 3.0), ("exllama", 7, 6.0), ("exllama", 8, COPY), ("exllama", 512, COPY),
    ("exllamav2", 1, 0.0), ("exllamav2", 8, 0.0), ("exllamav2", 9, 1.0), ("exllamav2", 16, 1.0),
    ("exllamav2", 50, 6.0), ("exllamav2", 51, COPY),
    ("cuda-old", 1, 0.0), ("cuda-old", 16, 15.0), ("cuda-old", 127, 126.0), ("cuda-old", 128, COPY),
])
def test_passes_and_copies_follow_each_kernel(cat, kernel, tokens, extra) -> None:  # type: ignore[no-untyped-def]
    t = _terms(cat, kernel)
    assert 0.9 < t.quant_weight_share < 1.0  # all but the 16-bit embedding / lm_head
    assert float(speed.quant_kernel_byte_factor(t, tokens, {})) == pytest.approx(1.0 + t.quant_weight_share * extra)


def test_unstated_kernel_reads_the_packed_weights_once(cat) -> None:  # type: ignore[no-untyped-def]
    t = _terms(cat, None)
    assert t.quant_weight_share == 0.0
    assert float(speed.quant_kernel_byte_factor(t, 16, {})) == 1.0


def test_exllama_decodes_slower_past_its_reconstruct_size(cat) -> None:  # type: ignore[no-untyped-def]
    """At batch 8 exllama reads a 16-bit copy each step: slower than unstated int4, not faster than fp16 by much."""
    acc = lookup.accelerator(cat, "a100-80g")
    m = lookup.model(cat, "llama-2-13b")

    def tpot(batch: int, kernel: str | None, precision: str = "int4") -> float:
        w = make_workload(task="inference", precision=precision, batch=batch, input=512, output=512, engine="hf",
                          gptq_kernel=kernel)
        return speed.inference_speed(cat, m, acc, w).tpot_s

    assert tpot(1, "exllamav2") == pytest.approx(tpot(1, None))  # one pass, no measured rate
    assert tpot(1, "exllama") > tpot(1, None)  # one pass at its A100 kernel rate (test_gptq_kernel_share_1202.py)
    assert tpot(8, "exllama") > 1.3 * tpot(8, None)
    assert tpot(8, "exllama") > tpot(8, None, "fp16")  # the copy costs more than reading 16-bit weights once
    assert tpot(16, "cuda-old") > tpot(16, "exllamav2") > tpot(16, None)


@pytest.mark.parametrize("batch,msg_id", [(4, "est.note.gptq_kernel"), (8, "est.note.gptq_kernel_dequant")])
def test_estimate_says_what_the_kernel_does(cat, batch, msg_id) -> None:  # type: ignore[no-untyped-def]
    w = make_workload(task="inference", precision="int4", batch=batch, input=512, output=512, engine="hf",
                      gptq_kernel="exllama")
    r = estimate(cat, lookup.model(cat, "llama-2-13b"), lookup.accelerator(cat, "a100-80g"), w)
    notes = [n for n in r.notes_i18n if isinstance(n, dict) and n["id"].startswith("est.note.gptq_kernel")]
    assert [n["id"] for n in notes] == [msg_id]
    assert notes[0]["params"]["rows"] == 8
    json.dumps(notes)  # plain numbers: the --json answer and the API serialise them


@pytest.mark.parametrize("kw", [dict(engine="vllm"), dict(precision="int8"), dict(task="lora"),
                                dict(quant_method="awq")])
def test_kernel_needs_hf_int4_gptq_inference(kw) -> None:  # type: ignore[no-untyped-def]
    args = dict(task="inference", precision="int4", engine="hf", gptq_kernel="exllama") | kw
    with pytest.raises(InputError) as e:
        make_workload(**args)
    assert e.value.field == "gptq-kernel"
    assert str(e.value).startswith("gptq-kernel: exllama is an AutoGPTQ kernel") and "--" not in str(e.value)


def test_unknown_kernel_names_the_allowed_ones() -> None:
    with pytest.raises(InputError) as e:
        make_workload(task="inference", precision="int4", engine="hf", gptq_kernel="marlin")
    assert "exllamav2" in str(e.value)
