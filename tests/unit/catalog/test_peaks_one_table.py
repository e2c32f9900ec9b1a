"""One peak table (`catalog.peaks`): the matmul factor derived from a measurement divides by the peak the
estimator multiplies it by, so factor x peak gives back the measured rate, also on a device that publishes
no BF16 peak (bf16 runs at its FP16 rate in both)."""

from __future__ import annotations

from pathlib import Path

import pytest

from suanli.catalog.load import derived_matmul_efficiency, packaged_catalog
from suanli.catalog.peaks import PEAK_FIELDS, dense_peak_tflops
from suanli.estimate import precision
from suanli.estimate.efficiency import efficiency
from suanli.units import TFLOPS


def test_precision_reads_the_catalog_table() -> None:
    assert not hasattr(precision, "_PEAK_FIELDS")
    assert set(PEAK_FIELDS) >= {"fp32", "bf16", "fp16", "fp8", "int8"}


@pytest.mark.parametrize("dtype, drop", [("bf16", "bf16_dense_tflops"), ("fp16", "fp16_dense_tflops")])
def test_a_device_without_the_dtype_peak_gets_the_same_factor_either_way(tmp_path: Path, dtype: str, drop: str) -> None:
    cat = packaged_catalog()
    acc = next(a for a in cat.accelerators if a.id == "a100-80g")
    fallback = "fp16_dense_tflops" if drop == "bf16_dense_tflops" else "bf16_dense_tflops"
    assert getattr(acc.specs, fallback) is not None
    acc = acc.model_copy(update={"specs": acc.specs.model_copy(update={drop: None})})
    bare = cat.model_copy(update={
        "accelerators": tuple(acc if a.id == acc.id else a for a in cat.accelerators),
        "efficiency": tuple(f for f in cat.efficiency if f.metric != "matmul"),
    })
    measured_tflops = 200.0  # below the fallback peak (A100 16-bit dense 312), so the factor is not capped at 1
    (tmp_path / "m.yaml").write_text(
        "sources:\n"
        "  - {id: meas-test, title: test run, kind: measurement, url: 'https://example.org', date: 2026-12-01}\n"
        f"measurements:\n  - {{device: a100-80g, dtype: {dtype}, tflops: {measured_tflops}, platform: test, source: meas-test}}\n",
        encoding="utf-8",
    )
    derived = derived_matmul_efficiency(bare, tmp_path / "m.yaml")
    row = next(f for f in derived.efficiency if f.id == f"matmul-a100-80g-{dtype}")
    peak_flops, field = precision.peak_flops_per_s(acc, dtype)
    assert field == fallback
    assert dense_peak_tflops(acc, dtype) == (peak_flops / TFLOPS, field)
    eff = efficiency(derived, acc, "matmul", dtype, calibrated=False)
    assert eff.factor_id == row.id
    assert eff.value * peak_flops == pytest.approx(measured_tflops * TFLOPS)
