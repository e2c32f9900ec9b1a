"""Buyer review 2026-12-01: `suanli gpu rtx-5090` gave FP8 dense 838 'accumulator not stated (FP16-acc rate)' while the
RTX 4090 uses its FP32-accumulate 330.3, the accumulator cuBLASLt/vLLM FP8 GEMMs use. The RTX Blackwell whitepaper
(Table 3, as quoted by mainhorse-rtx5090-mm) gives FP8 with FP32 accumulate 419/838 and with FP16 accumulate 838/1676
(dense/sparse); the estimator's FP8 roof is the FP32-accumulate dense 419, the FP16-accumulate figure kept beside it."""

from __future__ import annotations

from suanli.catalog import lookup
from suanli.catalog.peaks import dense_peak_tflops


def test_5090_fp8_roof_is_the_fp32_accumulate_rate(cat) -> None:  # type: ignore[no-untyped-def]
    acc = lookup.accelerator(cat, "rtx-5090")
    assert dense_peak_tflops(acc, "fp8") == (419.0, "fp8_dense_tflops")
    fp8 = acc.specs.fp8_dense_tflops
    assert fp8 is not None and fp8.chosen.source == "mainhorse-rtx5090-mm"
    assert {v.value for v in fp8.values} == {419.0, 838.4}  # the FP16-accumulate figure kept beside it
    sparse = acc.specs.fp8_sparse_tflops
    assert sparse is not None and sparse.value == 838 and 1676.8 in {v.value for v in sparse.values}
    assert "mainhorse-rtx5090-mm" in cat.sources


def test_geforce_fp8_roof_is_twice_the_fp32_accumulate_16_bit_rate(cat) -> None:  # type: ignore[no-untyped-def]
    """Ada and GeForce Blackwell alike: FP8 and FP16 both with FP32 accumulate, FP8 at twice the rate."""
    for dev in ("rtx-4090", "rtx-5090"):
        acc = lookup.accelerator(cat, dev)
        fp8, bf16 = dense_peak_tflops(acc, "fp8"), dense_peak_tflops(acc, "bf16")
        assert fp8 is not None and bf16 is not None
        assert abs(fp8[0] / bf16[0] - 2.0) < 0.01, dev
