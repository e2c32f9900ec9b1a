"""Issue 12: a decode step runs the linear layers' GEMMs and the attention kernel one after the other, so each gets
its own roofline and the two add (LLM-Viewer, Yuan et al. 2024, arXiv 2402.16363: per-layer roofline, summed). At
large batch the GEMMs are compute-bound while attention still streams the KV cache — by hand."""

from __future__ import annotations

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.estimate import speed
from suanli.estimate.workload import make_workload


def _case(cat, batch: int, model: str = "llama-2-70b", device: str = "h200", output: int = 128, tp: int = 1):
    m = lookup.model(cat, model)
    acc = lookup.accelerator(cat, device)
    w = make_workload(task="inference", precision="fp8", batch=batch, input=128, output=output, engine="trt-llm",
                      gpus=tp, tp=tp)
    t = speed.inference_speed_terms(m, w)
    r, _ = speed.inference_rates(cat, acc, w)
    k = speed.inference_step(t, np.float64(tp), np.float64(1), np.float64(batch), r)
    return t, r, k


def _parts(t: speed.InferenceSpeedTerms, r: dict, b: int) -> tuple[float, float, float]:
    gemm_s = 2 * t.matmul_params * b / (r["peak"] * r["e_mm"])
    weights_s = float(speed.weight_bytes_read(t, b)) / (r["bw"] * r["e_bw"])
    kv_s = t.kv_bytes_per_token * t.decode_context * b * t.kv_read_factor / (r["bw"] * r["e_bw"])
    return gemm_s, weights_s, kv_s


def test_large_batch_step_by_hand(cat) -> None:
    """Llama-2-70B FP8 on one H200 at batch 960 (TensorRT-LLM's Falcon180B-H200 blog row): the GEMMs are
    compute-bound, so the step is GEMM time + KV time, not max(GEMM, weights + KV)."""
    b = 960
    t, r, k = _case(cat, b)
    gemm_s, weights_s, kv_s = _parts(t, r, b)
    assert gemm_s > weights_s  # past the ridge point
    attn_flops_s = b * t.decode_attention_flops_per_token / (r["peak"] * r["e_mm"])
    assert attn_flops_s < kv_s  # attention stays memory-bound
    kernels = float(speed.decode_kernels_s(t, np.float64(b), r, 1.0))
    assert kernels == pytest.approx(gemm_s + kv_s, rel=1e-9)
    # the old single roofline over the whole step was shorter by up to the smaller of the two parts
    assert kernels > max(gemm_s + attn_flops_s, weights_s + kv_s)


def test_batch_one_is_unchanged(cat) -> None:
    """Below the ridge both kernels are memory-bound: weights + KV, as one roofline gave."""
    t, r, _ = _case(cat, 1)
    gemm_s, weights_s, kv_s = _parts(t, r, 1)
    assert gemm_s < weights_s
    assert float(speed.decode_kernels_s(t, np.float64(1), r, 1.0)) == pytest.approx(weights_s + kv_s, rel=1e-9)


def test_step_holds_the_kernels_and_tp_divides_them(cat) -> None:
    for tp in (1, 2):
        t, r, k = _case(cat, 512, output=2048, tp=tp)
        kernels = float(speed.decode_kernels_s(t, np.float64(512), r, 1.0)) / tp
        assert float(k["step_s"]) >= kernels
        assert float(k["step_s"]) - kernels < 0.5 * kernels  # the rest: elementwise, all-reduce, overhead


def test_estimate_and_kernel_agree(cat) -> None:
    """inference_speed goes through inference_step: the planner and `estimate` share the decode step."""
    from suanli.estimate.speed import inference_speed

    m = lookup.model(cat, "llama-2-70b")
    acc = lookup.accelerator(cat, "h200")
    w = make_workload(task="inference", precision="fp8", batch=960, input=128, output=128, engine="trt-llm")
    _, _, k = _case(cat, 960)
    assert inference_speed(cat, m, acc, w).tpot_s == pytest.approx(float(k["step_s"]))
