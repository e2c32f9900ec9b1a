"""Calibration recovers known efficiencies from synthetic results (no torch needed)."""

from __future__ import annotations

import datetime as dt

import pytest

from suanli.bench.backends import BackendInfo
from suanli.bench.calibrate import (
    DevicePeaks,
    decode_bytes_per_step,
    fit_all,
    fit_efficiency,
    peaks_from_accelerator,
    prefill_flops_per_token,
)
from suanli.bench.models import ModelInfo
from suanli.bench.results import (
    AccuracyResult,
    BandwidthResult,
    BenchResult,
    MatmulResult,
    Microbench,
    RunConfig,
    Throughput,
)

PEAKS = DevicePeaks(
    device="test-gpu",
    memory_bandwidth_bytes_per_s=2.0e12,
    dense_flops_per_s={"bf16": 400e12, "fp32": 50e12},
    source="synthetic",
)
MODEL = ModelInfo(
    name="m",
    kind="preset",
    key="m",
    architecture="LlamaForCausalLM",
    random_weights=True,
    params=7_000_000_000,
    flop_params=6_500_000_000,
    weight_bytes=14_000_000_000,
    precision="bf16",
    num_layers=32,
    hidden_size=4096,
    num_attention_heads=32,
    num_kv_heads=8,
    head_dim=128,
    vocab_size=32000,
    kv_cache_bytes_per_token=2 * 32 * 8 * 128 * 2,
)


def synthetic(
    decode_eff: float,
    mfu: float,
    matmul_eff: float,
    copy_eff: float,
    batch: int = 4,
    i: int = 0,
    accelerator: str = "test-gpu",
    passed: bool = True,
) -> BenchResult:
    """A result whose speeds are exactly the given fractions of PEAKS."""
    cfg = RunConfig(
        device="cuda:0",
        model="m",
        precision="bf16",
        batch=batch,
        input_tokens=512,
        output_tokens=128,
        warmup=1,
        repeats=3,
    )
    base = BenchResult(
        id=f"r{i}",
        created_at=dt.datetime(2026, 1, 1 + i, tzinfo=dt.UTC),
        command=f"cmd {i}",
        accelerator=accelerator,
        backend=BackendInfo(
            backend="cuda", device="cuda:0", device_name="Test GPU", memory_kind="device-max-allocated"
        ),
        model=MODEL,
        config=cfg,
        throughput=Throughput(
            prefill_tokens=1,
            prefill_time_s=1,
            prefill_tokens_per_s=1,
            ttft_s=1,
            decode_steps=127,
            decode_tokens=1,
            decode_time_s=1,
            decode_tokens_per_s=1,
            decode_step_latency_s=1,
            peak_memory_bytes=1,
            memory_kind="device-max-allocated",
        ),
    )
    steps_per_s = decode_eff * PEAKS.memory_bandwidth_bytes_per_s / decode_bytes_per_step(base)
    prefill_tps = mfu * PEAKS.dense_flops_per_s["bf16"] / prefill_flops_per_token(base)
    tp = base.throughput.model_copy(
        update={"decode_tokens_per_s": steps_per_s * batch, "prefill_tokens_per_s": prefill_tps}
    )
    micro = Microbench(
        matmul=[
            MatmulResult(precision="bf16", n=8192, flops_per_call=2 * 8192**3, time_s=1, tflops=matmul_eff * 400),
            MatmulResult(precision="fp8", n=8192, flops_per_call=2 * 8192**3, time_s=1, tflops=1.0),
        ],
        bandwidth=BandwidthResult(
            buffer_bytes=2**30,
            bytes_per_call=2**31,
            time_s=1,
            bytes_per_s=copy_eff * PEAKS.memory_bandwidth_bytes_per_s,
        ),
    )
    acc = AccuracyResult(
        passed=passed,
        verdict="x",
        reference_id="ref",
        reference_device="cpu",
        reference_precision="fp32",
        precision="bf16",
        n_tokens=256,
        perplexity=1,
        reference_perplexity=1,
        perplexity_rel_diff=0,
        max_abs_logit_diff=0,
        max_logit_rel_diff=0,
        tolerance_logit_rel=0.05,
        tolerance_perplexity_rel=0.03,
        tolerance_source="assumed",
    )
    return base.model_copy(update={"throughput": tp, "micro": micro, "accuracy": acc})


def test_recovers_known_efficiencies() -> None:
    cal = fit_efficiency([synthetic(0.70, 0.40, 0.80, 0.90)], PEAKS)
    assert cal.get("decode_bandwidth", "bf16").value == pytest.approx(0.70, rel=1e-12)
    assert cal.get("prefill_mfu", "bf16").value == pytest.approx(0.40, rel=1e-12)
    assert cal.get("matmul", "bf16").value == pytest.approx(0.80, rel=1e-12)
    assert cal.get("copy_bandwidth", "*").value == pytest.approx(0.90, rel=1e-12)
    assert cal.get("matmul", "fp8") is None
    assert any("no dense fp8 peak" in s for s in cal.skipped)


def test_median_range_and_provenance_over_several_runs() -> None:
    rs = [synthetic(e, 0.4, 0.8, 0.9, batch=b, i=i) for i, (e, b) in enumerate([(0.6, 1), (0.7, 8), (0.8, 32)])]
    f = fit_efficiency(rs, PEAKS).get("decode_bandwidth", "bf16")
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
    cal = fit_efficiency(rs, PEAKS)
    assert cal.get("decode_bandwidth", "bf16").n == 1
    assert any("accuracy check failed" in s for s in cal.skipped)
    assert [c.device for c in fit_all(rs, {"test-gpu": PEAKS})] == ["test-gpu"]


def test_decode_bytes_count_weights_once_and_kv_per_sequence() -> None:
    r = synthetic(0.5, 0.5, 0.5, 0.5, batch=2)
    # weights + batch x (input + output/2) x KV bytes per token
    assert decode_bytes_per_step(r) == 14e9 + 2 * (512 + 64) * MODEL.kv_cache_bytes_per_token


def test_peaks_from_a_catalog_accelerator_convert_units() -> None:
    from suanli.catalog.load import packaged_catalog

    accs = [
        a
        for a in packaged_catalog().accelerators
        if a.specs.memory_bandwidth_gb_per_s is not None and a.specs.bf16_dense_tflops is not None
    ]
    if not accs:
        pytest.skip("no accelerator with bandwidth and bf16 peaks in the packaged catalog")
    a = accs[0]
    p = peaks_from_accelerator(a)
    assert p.device == a.id
    assert p.memory_bandwidth_bytes_per_s == a.specs.memory_bandwidth_gb_per_s.value * 1e9
    assert p.dense_flops_per_s["bf16"] == a.specs.bf16_dense_tflops.value * 1e12
