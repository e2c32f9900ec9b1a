"""Calibration recovers known efficiencies from synthetic results (no torch needed)."""

from __future__ import annotations

import datetime as dt

import pytest
from factories import ARCH, PEAKS, arch_of, synthetic

from suanli.bench.calibrate import (
    decode_bytes_per_step,
    fit_all,
    fit_efficiency,
    peaks_from_accelerator,
)


def test_recovers_known_efficiencies() -> None:
    cal = fit_efficiency([synthetic(0.70, 0.40, 0.80, 0.90)], PEAKS, arch_of)
    assert cal.get("decode_bandwidth", "bf16").value == pytest.approx(0.70, rel=1e-12)
    assert cal.get("prefill_mfu", "bf16").value == pytest.approx(0.40, rel=1e-12)
    assert cal.get("matmul", "bf16").value == pytest.approx(0.80, rel=1e-12)
    assert cal.get("copy_bandwidth", "*").value == pytest.approx(0.90, rel=1e-12)
    assert cal.get("matmul", "fp8") is None
    assert any("no dense fp8 peak" in s for s in cal.skipped)


def test_median_range_and_provenance_over_several_runs() -> None:
    rs = [synthetic(e, 0.4, 0.8, 0.9, batch=b, i=i) for i, (e, b) in enumerate([(0.6, 1), (0.7, 8), (0.8, 32)])]
    f = fit_efficiency(rs, PEAKS, arch_of).get("decode_bandwidth", "bf16")
    assert f is not None
    assert (f.value, f.min, f.max, f.n) == pytest.approx((0.7, 0.6, 0.8, 3))
    assert f.result_ids == ["r0", "r1", "r2"]
    assert f.measured_at == dt.datetime(2026, 1, 3, tzinfo=dt.UTC)
    assert f.provenance.startswith("measured: 3 run(s) on Test GPU, newest 2026-01-03")


def test_other_devices_and_failed_accuracy_are_not_used() -> None:
    rs = [
        synthetic(0.7, 0.4, 0.8, 0.9),
        synthetic(0.1, 0.1, 0.1, 0.1, i=1, accelerator="other"),
        synthetic(0.1, 0.1, 0.1, 0.1, i=2, passed=False),
    ]
    cal = fit_efficiency(rs, PEAKS, arch_of)
    assert cal.get("decode_bandwidth", "bf16").n == 1
    assert any("accuracy check failed" in s for s in cal.skipped)
    assert [c.device for c in fit_all(rs, {"test-gpu": PEAKS}, arch_of)] == ["test-gpu"]


def test_decode_bytes_count_weights_once_and_kv_per_sequence() -> None:
    r = synthetic(0.5, 0.5, 0.5, 0.5, batch=2)
    # weights without the input-embedding table + batch x (input + output/2) x KV bytes per token x transformers'
    # repeat_kv passes (1 + 2g, g = 32 / 8 = 4) and the torch.cat growth of its dynamic cache (2: read and write)
    layer = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 11008 + 2 * 4096  # q o, k v, gate up down, norms
    weights = (32 * layer + 32000 * 4096 + 4096) * 2  # + lm_head + final norm, bf16
    assert decode_bytes_per_step(r, ARCH) == pytest.approx(
        weights + 2 * (512 + 64) * (2 * 32 * 8 * 128 * 2) * (9 + 2), rel=1e-12)


def test_peaks_from_a_catalog_accelerator_convert_units() -> None:
    from suanli.catalog.load import packaged_catalog

    accs = [
        a
        for a in packaged_catalog().accelerators
        if a.specs.memory_bandwidth_gb_per_s is not None and a.specs.bf16_dense_tflops is not None
    ]
    assert accs, "the packaged catalog has accelerators with bandwidth and bf16 peaks"
    a = accs[0]
    p = peaks_from_accelerator(a)
    assert p.device == a.id
    assert p.memory_bandwidth_bytes_per_s == a.specs.memory_bandwidth_gb_per_s.value * 1e9
    assert p.dense_flops_per_s["bf16"] == a.specs.bf16_dense_tflops.value * 1e12


# ------------------------------------------------------------------ peaks are the estimator's (code review finding 2)


@pytest.mark.parametrize("device", ["ascend-910b1", "hygon-k100", "a100-80g", "h100-sxm"])
def test_peaks_are_the_estimators_for_every_precision(device: str) -> None:
    """Calibration kept its own peak look-up: no bf16 <-> fp16 / fp8 -> 16-bit fallbacks and no compute dtype, so
    bf16 runs on devices publishing only an fp16 peak (Ascend 910B1, Hygon K100) and int8/int4 prefill never
    calibrated. Every precision the estimator has a peak for is the estimator's peak (`peak_flops_per_s`)."""
    from suanli.catalog import lookup
    from suanli.catalog.load import packaged_catalog
    from suanli.estimate.precision import peak_flops_per_s

    acc = lookup.accelerator(packaged_catalog(), device)
    p = peaks_from_accelerator(acc)
    for precision in ("bf16", "fp16", "fp8", "int8", "int4", "nf4"):
        assert p.dense_flops_per_s[precision] == peak_flops_per_s(acc, precision)[0], precision


@pytest.mark.parametrize(("device", "precision"), [("ascend-910b1", "bf16"), ("hygon-k100", "bf16"),
                                                   ("h100-sxm", "int4"), ("h100-sxm", "int8")])
def test_bf16_on_fp16_only_devices_and_weight_only_prefill_calibrate(device: str, precision: str) -> None:
    from suanli.catalog import lookup
    from suanli.catalog.load import packaged_catalog

    peaks = peaks_from_accelerator(lookup.accelerator(packaged_catalog(), device))
    r = synthetic(0.7, 0.4, 0.8, 0.9, accelerator=device)
    r = r.model_copy(update={"config": r.config.model_copy(update={"precision": precision})})
    cal = fit_efficiency([r], peaks, arch_of)
    assert cal.get("prefill_mfu", precision) is not None, cal.skipped
    assert not any(f"no dense {precision} peak" in s for s in cal.skipped)
