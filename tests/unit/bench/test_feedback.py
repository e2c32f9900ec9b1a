"""bench compare / calibrate: measured efficiency changes the next estimate for that device."""

from __future__ import annotations

import pytest
from factories import synthetic

from suanli.bench.feedback import calibrate_results, compare_result, load_calibration, save_calibration
from suanli.catalog.load import packaged_catalog


def _result(decode_eff: float, mfu: float):  # type: ignore[no-untyped-def]
    r = synthetic(decode_eff, mfu, 0.8, 0.9, accelerator="h100-sxm")
    return r.model_copy(update={"model": r.model.model_copy(update={"name": "llama-2-7b", "key": "llama-2-7b"})})


def test_calibration_moves_the_estimate_to_the_measurement() -> None:
    cat = packaged_catalog()
    r = _result(decode_eff=0.35, mfu=0.2)
    _, before = compare_result(cat, r)
    rejected: list[str] = []
    factors = calibrate_results(cat, [r], rejected)
    assert any("fp8" in x for x in rejected)  # the synthetic 1 TFLOPS fp8 matmul is implausible for an H100
    dec = [f for f in factors if f.metric == "decode_bandwidth"]
    assert dec and dec[0].device == "h100-sxm" and dec[0].source.startswith("measured:")
    save_calibration(factors)
    stored = load_calibration()
    assert {f.id for f in stored} == {f.id for f in factors}
    _, after = compare_result(cat, r, stored)
    err = {row.metric: abs(row.error_pct or 0) for row in after}
    err_before = {row.metric: abs(row.error_pct or 0) for row in before}
    assert err["decode_tokens_per_s"] < err_before["decode_tokens_per_s"]
    assert err["decode_tokens_per_s"] < 10


def test_saving_one_device_keeps_the_others() -> None:
    cat = packaged_catalog()
    a = calibrate_results(cat, [_result(0.3, 0.2)])
    save_calibration(a)
    b = [f.model_copy(update={"device": "a100-80g", "id": f.id.replace("h100-sxm", "a100-80g")}) for f in a]
    save_calibration(b)
    devices = {f.device for f in load_calibration()}
    assert devices == {"h100-sxm", "a100-80g"}


def test_a_result_without_device_or_microbenchmarks_is_refused() -> None:
    from suanli.errors import InputError

    r = _result(0.3, 0.2).model_copy(update={"accelerator": None, "micro": None})
    with pytest.raises(InputError, match="microbenchmarks"):
        compare_result(packaged_catalog(), r)


def _tf32(r):  # type: ignore[no-untyped-def]
    """The same run with TF32 matmuls: fp32 weights, TF32 and fp32 matmul microbenchmarks (H100 SXM: 378 / 45 TFLOPS,
    made-up shares of its 494.7 / 66.9 peaks)."""
    from suanli.bench.results import MatmulResult

    mm = [MatmulResult(precision=p, n=8192, flops_per_call=2 * 8192**3, time_s=1, tflops=t)
          for p, t in (("tf32", 378.0), ("fp32", 45.0))]
    assert r.micro is not None
    return r.model_copy(update={"config": r.config.model_copy(update={"precision": "tf32"}),
                                "micro": r.micro.model_copy(update={"matmul": mm})})


def test_a_tf32_run_is_not_stored_as_an_fp32_compute_factor() -> None:
    """A share of the TF32 peak applied to the fp32 peak does not give the measurement back (a tf32 prefill at 30 %
    of 494.7 TFLOPS estimated at 30 % of 66.9): the estimator's fp32 is plain fp32 (torch's default, TF32 off),
    so only fp32 runs calibrate fp32 compute; the memory-bound decode still calibrates, and reproduces."""
    cat = packaged_catalog()
    r = _tf32(_result(decode_eff=0.35, mfu=0.2))
    rejected: list[str] = []
    factors = calibrate_results(cat, [r], rejected)
    by = {(f.metric, f.engine, f.precision): f.value for f in factors}
    assert ("matmul", "hf", "fp32") not in by  # the tf32 prefill MFU
    # the fp32 matmul microbenchmark is the fp32 factor, not the TF32 one: 45 / 66.9 TFLOPS
    assert by[("matmul", "*", "fp32")] == pytest.approx(45.0 / 66.9, rel=1e-3)
    assert sum(f.metric == "matmul" and f.engine == "*" for f in factors) == 1
    assert any("tf32" in x and "prefill_mfu" in x for x in rejected)
    assert any("tf32" in x and "matmul" in x for x in rejected)
    _, after = compare_result(cat, r, tuple(factors))
    err = {row.metric: abs(row.error_pct or 0) for row in after}
    assert err["decode_tokens_per_s"] < 10
