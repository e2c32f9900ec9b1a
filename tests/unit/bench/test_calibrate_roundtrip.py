"""calibrate -> estimate round trip: a measurement synthesized by the estimator's own kernel at efficiency X
calibrates back to X (the fit counts FLOPs and bytes as `estimate.speed` does; no copies of the formulas)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from factories import synthetic

from suanli.bench.calibrate import fit_efficiency, peaks_from_accelerator, speed_terms
from suanli.bench.feedback import calibrate_results, model_for_result
from suanli.bench.models import ModelInfo
from suanli.bench.results import BenchResult
from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.estimate.speed import inference_step

E_MM, E_BW = 0.43, 0.71


def _measured(preset: str, batch: int, prompt: int, output: int) -> BenchResult:
    """A run on the H100 SXM whose prefill and decode speeds are the estimator's at matmul E_MM, bandwidth E_BW."""
    cat = packaged_catalog()
    acc = lookup.accelerator(cat, "h100-sxm")
    peaks = peaks_from_accelerator(acc)
    base = synthetic(0.5, 0.5, 0.5, 0.5, batch=batch, accelerator="h100-sxm")
    info = ModelInfo.model_validate({**base.model.model_dump(), "name": preset, "key": preset})
    r = base.model_copy(update={"model": info, "config": base.config.model_copy(update={
        "model": preset, "batch": batch, "input_tokens": prompt, "output_tokens": output})})
    t = speed_terms(r, model_for_result(cat, r))
    # the roofline alone: no elementwise traffic, engine overhead or collectives (tp 1), no SM-share limit
    assert peaks.memory_bandwidth_bytes_per_s is not None
    rates = {"peak": peaks.dense_flops_per_s["bf16"], "bw": peaks.memory_bandwidth_bytes_per_s, "e_mm": E_MM,
             "e_bw": E_BW, "e_stream": np.inf, "overhead": 0.0, "sm_count": 0.0, "intra_bw": 1e12, "intra_lat": 0.0,
             "inter_bw": 1e12, "inter_lat": 0.0, "cards_per_node": 8.0, "linear_call_s": 0.0}
    t = dataclasses.replace(t, prefill_score_bytes_per_token=0.0, decode_score_bytes_per_token=0.0)
    k = inference_step(t, np.float64(1), np.float64(1), np.float64(batch), rates)
    assert bool(k["prefill_compute_bound"]) and not bool(k["decode_compute_bound"])
    assert r.throughput is not None
    tp = r.throughput.model_copy(update={"prefill_tokens_per_s": batch * prompt / float(k["prefill_s"]),
                                         "decode_tokens_per_s": batch / float(k["step_s"])})
    return r.model_copy(update={"throughput": tp})


@pytest.mark.parametrize(("preset", "batch", "prompt"), [("llama-8b-shape", 1, 2048), ("llama-8b-shape", 1, 8192),
                                                         ("llama-1b-shape", 4, 4096), ("tiny-llama", 8, 512)])
def test_a_measurement_from_the_estimator_calibrates_back_to_its_efficiency(preset: str, batch: int,
                                                                            prompt: int) -> None:
    cat = packaged_catalog()
    r = _measured(preset, batch, prompt, 256)
    cal = fit_efficiency([r], peaks_from_accelerator(lookup.accelerator(cat, "h100-sxm")),
                         lambda x: model_for_result(cat, x))
    mfu, bw = cal.get("prefill_mfu", "bf16"), cal.get("decode_bandwidth", "bf16")
    assert mfu is not None and bw is not None
    assert mfu.value == pytest.approx(E_MM, rel=1e-9)
    assert bw.value == pytest.approx(E_BW, rel=1e-9)
    # and the factors `suanli calibrate` stores are those the estimator applies (matmul for hf, decode bandwidth)
    factors = {(f.metric, f.engine): f.value for f in calibrate_results(cat, [r])}
    assert factors[("matmul", "hf")] == pytest.approx(E_MM, rel=1e-9)
    assert factors[("decode_bandwidth", "*")] == pytest.approx(E_BW, rel=1e-9)
