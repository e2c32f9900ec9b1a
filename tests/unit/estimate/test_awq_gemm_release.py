"""Issue 12 (decode-speed out-of-sample band): vLLM before 0.5.3 ran an AWQ checkpoint's linears through AWQ's own GEMM
kernel (awq.py AWQLinearMethod.apply: ops.awq_gemm below 256 tokens per pass; csrc/quantization/awq/gemm_kernels.cu,
adapted from llm-awq); from 0.5.3 (vllm#6612) AWQ checkpoints convert to awq_marlin by default (frameworks.yaml
vllm-awq-marlin-default, the vllm engine's awq_marlin_from). On GA100 parts that kernel reads its int4 weights at 0.55
of the 16-bit rate (efficiency.yaml awq-gemm-share-ga100, from the QUICK kernel benchmark, quick-awq-kernel-bench). A
workload says it is AWQ with quant_method; GPTQ, later releases and SGLang keep the plain int4 path."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.estimate import speed
from suanli.estimate.efficiency import efficiency
from suanli.estimate.estimate import estimate
from suanli.estimate.memory import kept_16bit_bytes, weights_bytes
from suanli.estimate.precision import weight_bytes_per_param
from suanli.estimate.workload import make_workload
from suanli.validate.report import load_cases


def _w(version: str | None = "0.4.2", method: str | None = "awq", engine: str = "vllm", batch: int = 1,
       inp: int = 1, precision: str = "int4"):
    return make_workload(task="inference", precision=precision, batch=batch, input=inp, output=2048, engine=engine,
                         engine_version=version, quant_method=method)


def test_vllm_row_gates_awq_on_a_sourced_release(cat) -> None:  # type: ignore[no-untyped-def]
    row = next(e for e in cat.engines if e.id == "vllm")
    assert row.awq_marlin_from == "0.5.3"
    assert row.awq_marlin_source == "vllm-awq-marlin-default"
    assert "vllm-awq-marlin-default" in cat.sources
    # SGLang (the Qwen3 speed page's awq_marlin rows) and the engines borrowing vLLM's factors have no such gate
    assert all(e.awq_marlin_from is None for e in cat.engines if e.id != "vllm")


@pytest.mark.parametrize("version,method,engine,expected", [
    ("0.4.2", "awq", "vllm", True), ("0.5.2", "awq", "vllm", True), ("0.5.3", "awq", "vllm", False),
    ("0.6.3", "awq", "vllm", False), (None, "awq", "vllm", False), ("0.4.2", "gptq", "vllm", False),
    ("0.4.2", None, "vllm", False), ("0.4.2", "awq", "sglang", False), ("0.4.2", "awq", "vllm-ascend", False),
    ("0.4.2", "awq", "mindie", False)])
def test_which_runs_use_awq_gemm(cat, version, method, engine, expected) -> None:  # type: ignore[no-untyped-def]
    assert speed.runs_awq_gemm(cat, _w(version, method, engine)) is expected


def test_the_ga100_share_is_the_quick_benchmark_ratio(cat) -> None:  # type: ignore[no-untyped-def]
    """1 x 8192 x 8192 on an A100: FP16 1.4 TFLOPS reads 2 bytes per weight, the AWQ kernel 2.94 TFLOPS reads int4's."""
    int4, fp16 = weight_bytes_per_param("int4"), weight_bytes_per_param("fp16")
    ratio = (2.94 * int4) / (1.4 * fp16)
    assert ratio == pytest.approx(0.5455, abs=1e-3)
    for dev in ("a100-40g", "a100-80g", "a100-80g-pcie", "a800"):
        e = efficiency(cat, lookup.accelerator(cat, dev), "awq_gemm_share", "int4", "vllm")
        assert e.value == round(ratio, 2) and e.source == "quick-awq-kernel-bench" and e.factor_id == "awq-gemm-share-ga100"
    # another chip (GA102, Hopper) has no measurement: the assumed default, no slowdown
    for dev in ("rtx-3090", "h100"):
        e = efficiency(cat, lookup.accelerator(cat, dev), "awq_gemm_share", "int4", "vllm")
        assert e.value == 1.0 and e.basis == "assumed"


def test_awq_on_vllm_042_decodes_slower_by_the_awq_bytes_at_the_share(cat) -> None:  # type: ignore[no-untyped-def]
    """Qwen2-7B on an A100 80GB at batch 1: the AWQ step is the GPTQ step plus the quantized linears' bytes read at
    1 / 0.55 of their time (the 16-bit embedding and lm_head unchanged)."""
    m, acc = lookup.model(cat, "qwen2-7b-instruct"), lookup.accelerator(cat, "a100-80g")
    awq, gptq = speed.inference_speed(cat, m, acc, _w()), speed.inference_speed(cat, m, acc, _w(method="gptq"))
    bw = (acc.specs.memory_bandwidth_gb_per_s.value * 1e9  # type: ignore[union-attr]
          * efficiency(cat, acc, "decode_bandwidth", "int4", "vllm").value)
    awq_bytes = weights_bytes(m, "int4") - kept_16bit_bytes(m, "int4")
    assert awq.tpot_s - gptq.tpot_s == pytest.approx(awq_bytes * (1 / 0.55 - 1) / bw, rel=1e-9)
    assert awq.tpot_s > 1.3 * gptq.tpot_s
    assert "awq_gemm_share" in [e.metric for e in awq.efficiencies]
    assert "awq_gemm_share" not in [e.metric for e in gptq.efficiencies]


@pytest.mark.parametrize("version,engine", [("0.5.3", "vllm"), ("0.6.3", "vllm"), (None, "vllm"), ("0.4.6", "sglang")])
def test_awq_runs_as_any_int4_where_the_rule_does_not_apply(cat, version, engine) -> None:  # type: ignore[no-untyped-def]
    m, acc = lookup.model(cat, "qwen2-7b-instruct"), lookup.accelerator(cat, "a100-80g")
    awq = speed.inference_speed(cat, m, acc, _w(version, engine=engine))
    gptq = speed.inference_speed(cat, m, acc, _w(version, "gptq", engine))
    assert awq.tpot_s == gptq.tpot_s and awq.output_tokens_per_s == gptq.output_tokens_per_s


def test_only_passes_under_256_tokens_run_awq_gemm(cat) -> None:  # type: ignore[no-untyped-def]
    """vLLM dequantizes and runs torch.matmul from 256 tokens a pass: the weight-byte factor is the share's below 256
    tokens and 1 from 256; a 6144-token prefill costs as GPTQ's, an 8-token prefill (memory-bound) and a 16-sequence
    decode step more."""
    m, acc = lookup.model(cat, "qwen2-7b-instruct"), lookup.accelerator(cat, "a100-80g")
    t = speed.inference_speed_terms(m, _w(), awq_gemm=True)
    r, _ = speed.inference_rates(cat, acc, _w())
    # of the bytes a pass reads (all but the untied embedding's look-up), the quantized linears'; the lm_head is 16-bit
    awq_bytes = weights_bytes(m, "int4") - kept_16bit_bytes(m, "int4")
    assert t.awq_gemm_weight_share == pytest.approx(awq_bytes / (weights_bytes(m, "int4") - t.lookup_bytes))
    assert 0.7 < t.awq_gemm_weight_share < 0.8
    factor = speed.awq_gemm_byte_factor(t, [1, 255, 256, 6144], r)
    assert list(factor) == pytest.approx([1 + t.awq_gemm_weight_share * (1 / 0.55 - 1)] * 2 + [1.0, 1.0])
    assert speed.AWQ_GEMM_MAX_TOKENS == 256

    def pair(**kw):  # type: ignore[no-untyped-def]
        return (speed.inference_speed(cat, m, acc, _w(**kw)),
                speed.inference_speed(cat, m, acc, _w(method="gptq", **kw)))

    awq, gptq = pair(inp=6144)
    assert awq.ttft_s == gptq.ttft_s
    awq, gptq = pair(inp=8)
    assert awq.ttft_s > gptq.ttft_s
    awq, gptq = pair(batch=16)
    assert awq.tpot_s > gptq.tpot_s


def test_the_estimate_says_when_the_rule_applies(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2-7b-instruct")
    a100, h100 = lookup.accelerator(cat, "a100-80g"), lookup.accelerator(cat, "h100")
    notes = estimate(cat, m, a100, _w()).notes_i18n
    said = [n for n in notes if n["id"] == "est.note.awq_gemm"]
    assert len(said) == 1
    assert said[0]["params"]["share"] == 0.55 and said[0]["params"]["first"] == "0.5.3"
    assert said[0]["params"]["version"] == "0.4.2" and said[0]["params"]["source"] == "quick-awq-kernel-bench"
    # no measurement on an H100: said, and the speed is not changed
    notes = estimate(cat, m, h100, _w()).notes_i18n
    assert [n["id"] for n in notes if n["id"].startswith("est.note.awq_gemm")] == ["est.note.awq_gemm_unmeasured"]
    for w in (_w("0.5.3"), _w(method="gptq"), _w(engine="sglang"), _w(None)):
        assert not [n for n in estimate(cat, m, a100, w).notes_i18n if n["id"].startswith("est.note.awq_gemm")]


@pytest.mark.parametrize("method,precision,ok", [("awq", "int4", True), ("awq", "int8", False), ("awq", "bf16", False),
                                                 ("gptq", "int4", True), ("gptq", "int8", True),
                                                 ("gptq", "fp8", False)])
def test_quant_method_names_its_precisions(method, precision, ok) -> None:  # type: ignore[no-untyped-def]
    if ok:
        assert _w(method=method, precision=precision).quant_method == method
        return
    with pytest.raises(InputError) as e:
        _w(method=method, precision=precision)
    assert e.value.field == "quant-method" and "precision must be" in str(e.value)


def test_unknown_quant_method_names_the_allowed_ones() -> None:
    with pytest.raises(InputError) as e:
        _w(method="exl2")
    assert e.value.field == "quant-method" and "awq, gptq" in str(e.value)


def test_the_qwen2_vllm_rows_state_their_checkpoints_and_stay_held_out() -> None:
    rows = [c for c in load_cases() if c["source"] == "c2612-qwen2-speed-vllm"]
    assert len(rows) == 35 and all(c["holdout"] for c in rows)
    for c in rows:
        expected = "awq" if "-awq-" in c["id"] else "gptq" if "-gptq-" in c["id"] else None
        assert c.get("quant_method") == expected, c["id"]
    assert sum(c.get("quant_method") == "awq" for c in rows) == 8
