"""The spec field a dtype's dense peak is read from: one table for the catalog and the estimator.

`catalog.load.derived_matmul_efficiency` divides a measured matmul rate by this peak and
`estimate.precision.peak_flops_per_s` multiplies the factor by it, so both read the same field, with the
same fallbacks (a device without a published BF16 peak runs BF16 at its FP16 rate and the reverse; FP8 and
INT8 fall back to the 16-bit rate as weight-only kernels do)."""

from __future__ import annotations

from suanli.catalog.schema import Accelerator

PEAK_FIELDS: dict[str, tuple[str, ...]] = {
    "fp32": ("fp32_tflops",),
    "bf16": ("bf16_dense_tflops", "fp16_dense_tflops"),
    "fp16": ("fp16_dense_tflops", "bf16_dense_tflops"),
    "fp8": ("fp8_dense_tflops", "fp16_dense_tflops", "bf16_dense_tflops"),
    "int8": ("int8_dense_tops", "fp16_dense_tflops", "bf16_dense_tflops"),
}


def dense_peak_tflops(acc: Accelerator, dtype: str) -> tuple[float, str] | None:
    """The device's dense peak in TFLOPS (TOPS for int8) for a compute dtype and the spec field it came from,
    the first published one of `PEAK_FIELDS[dtype]`; None when the device publishes none of them."""
    for field in PEAK_FIELDS[dtype]:
        alt = getattr(acc.specs, field)
        if alt is not None:
            return float(alt.value), field
    return None
