"""Bytes per weight and the device peak that a precision runs at."""

from __future__ import annotations

from suanli.catalog.schema import Accelerator
from suanli.errors import EstimateError
from suanli.units import TFLOPS

__all__ = [
    "QUANTIZED",
    "activation_bytes",
    "compute_dtype",
    "peak_flops_per_s",
    "weight_bytes_per_param",
]

QUANTIZED = ("fp8", "int8", "int4", "nf4")

# GPTQ/AWQ int4 with group size 128: 4-bit weight + one fp16 scale and one 4-bit zero point per group
# (Frantar et al. 2022, GPTQ §5; Lin et al. 2023, AWQ §3) -> 4 + (16 + 4) / 128 bits per weight.
_INT4_GROUP128_BITS = 4 + (16 + 4) / 128
# NF4 with double quantization: 4 bits + 8/64 + 32/(64·256) bits of constants per weight
# (Dettmers et al. 2023, QLoRA §3 "Double Quantization": 0.127 bits per parameter of overhead).
_NF4_DQ_BITS = 4 + 8 / 64 + 32 / (64 * 256)
# LLM.int8() / W8A8: 8-bit weight + one fp16/fp32 scale per output row (negligible per weight).
_INT8_BITS = 8.0
_FP8_BITS = 8.0

_BITS = {
    "fp32": 32.0,
    "bf16": 16.0,
    "fp16": 16.0,
    "fp8": _FP8_BITS,
    "int8": _INT8_BITS,
    "int4": _INT4_GROUP128_BITS,
    "nf4": _NF4_DQ_BITS,
}


def weight_bytes_per_param(precision: str) -> float:
    """Bytes one weight takes in `precision`, quantization constants included."""
    try:
        return _BITS[precision] / 8
    except KeyError:
        raise EstimateError(f"precision {precision!r} unknown; allowed: {', '.join(_BITS)}") from None


def compute_dtype(precision: str) -> str:
    """The dtype matmuls run in: weight-only quantization (int4, nf4, and int8 as GPTQ-Int8, bitsandbytes
    LLM.int8() and llama.cpp q8_0 store it) dequantizes to 16-bit; fp8 runs on FP8 tensor cores where present."""
    return {"int4": "fp16", "nf4": "bf16", "int8": "fp16"}.get(precision, precision)


def activation_bytes(precision: str) -> float:
    """Bytes per activation element: 4 in fp32, else 2 (fp8/int8 kernels keep 16-bit activations between layers)."""
    return 4.0 if precision == "fp32" else 2.0


_PEAK_FIELDS = {
    "fp32": ("fp32_tflops",),
    "bf16": ("bf16_dense_tflops", "fp16_dense_tflops"),
    "fp16": ("fp16_dense_tflops", "bf16_dense_tflops"),
    "fp8": ("fp8_dense_tflops", "fp16_dense_tflops", "bf16_dense_tflops"),
    "int8": ("int8_dense_tops", "fp16_dense_tflops", "bf16_dense_tflops"),
}


def peak_flops_per_s(acc: Accelerator, precision: str) -> tuple[float, str]:
    """Dense peak for the precision's compute dtype, with the spec field it came from.

    A precision the device lacks (FP8 on Ampere or Ascend) runs at its 16-bit rate, as weight-only kernels do."""
    for field in _PEAK_FIELDS[compute_dtype(precision)]:
        alt = getattr(acc.specs, field)
        if alt is not None:
            return alt.value * TFLOPS, field
    raise EstimateError(
        f"{acc.id} has no published dense peak for {precision}; the catalog leaves it empty rather than guess"
    )
