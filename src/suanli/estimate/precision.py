"""Bytes per weight and the device peak that a precision runs at."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from suanli.catalog.peaks import dense_peak_tflops
from suanli.catalog.schema import Accelerator, ModelArch, PublishedCheckpoint, SoftwareStack, Sourced
from suanli.errors import EstimateError
from suanli.estimate.capability import supports_fp8
from suanli.i18n import Message, both
from suanli.units import TFLOPS

__all__ = [
    "QUANTIZED",
    "activation_bytes",
    "compute_dtype",
    "default_precision",
    "native_precision_note",
    "peak_flops_per_s",
    "published_checkpoint",
    "quant_scheme",
    "quant_scheme_note",
    "unpublished_checkpoint_note",
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
        raise EstimateError(Message("err.precision_unknown_allowed", precision=precision, names_bits=', '.join(_BITS))) from None


def compute_dtype(precision: str) -> str:
    """The dtype matmuls run in: weight-only quantization (int4, nf4, and int8 as GPTQ-Int8, bitsandbytes
    LLM.int8() and llama.cpp q8_0 store it) dequantizes to 16-bit; fp8 runs on FP8 tensor cores where present."""
    return {"int4": "fp16", "nf4": "bf16", "int8": "fp16"}.get(precision, precision)


def activation_bytes(precision: str) -> float:
    """Bytes per activation element: 4 in fp32, else 2 (fp8/int8 kernels keep 16-bit activations between layers)."""
    return 4.0 if precision == "fp32" else 2.0


def peak_flops_per_s(acc: Accelerator, precision: str) -> tuple[float, str]:
    """Dense peak for the precision's compute dtype, with the spec field it came from.

    A precision the device lacks (FP8 on Ampere or Ascend) runs at its 16-bit rate, as weight-only kernels do."""
    peak = dense_peak_tflops(acc, compute_dtype(precision))  # the table derived_matmul_efficiency divides by
    if peak is not None:
        return peak[0] * TFLOPS, peak[1]
    raise EstimateError(
        Message("err.has_no_published_dense_peak_for", acc_id=acc.id, precision=precision)
    )


def quant_scheme(stack: SoftwareStack, precision: str) -> Sourced[str] | None:
    """What `precision` means on the stack's engines (SoftwareStack.fp8/int8/int4_scheme: W8A16 GPTQ-Int8 on CUDA,
    W8A8 on CANN, ...), or None: not quantized, or no source."""
    field = getattr(stack, f"{precision}_scheme", None) if precision in ("fp8", "int8", "int4") else None
    return field.chosen if field is not None else None


def quant_scheme_note(stack: SoftwareStack, precision: str, stack_name: Any,
                      acc: Accelerator | None = None) -> Message | None:
    """The one sentence estimate and plan say a quantized precision in: the scheme it means on the stack, cited, and
    the rate the estimate runs its matmuls at (`compute_dtype`; on `acc`, the dtype of the peak `peak_flops_per_s`
    reads: fp8 on a card without FP8 runs at its 16-bit rate), with int4's accuracy risk; None without a scheme.
    (Buyer review 2026-12-02: int8 on the H20 ran at the bf16 rate while the card lists INT8 296 TOPS, unsaid.)"""
    s = quant_scheme(stack, precision)
    if s is None:
        return None
    compute = compute_dtype(precision)
    peak = dense_peak_tflops(acc, compute) if acc is not None else None
    if peak is not None:  # the spec field read: fp16_dense_tflops -> fp16
        compute = peak[1].split("_")[0]
    return Message("plan.warn.quantization_scheme", precision=precision, scheme=s.value, stack=stack_name,
                   note=both(s.note or "", s.note_zh or s.note or ""), source=s.source, compute=compute,
                   risk=Message("plan.warn.quantization_int4_risk") if precision == "int4" else "")


# ---------------------------------------------------------------------------------------------- the default precision
# One rule for every caller (estimate, plan, compare, migrate cost, the API and the page): a checkpoint published in
# FP8 (ModelArch.native_dtype, config.json quantization_config; DeepSeek-V3/R1 e4m3 with 128x128 blocks) is served in
# FP8 where the device runs FP8 (FP8 tensor cores: a published dense FP8 peak, and a stack that runs them:
# capability.supports_fp8), else converted to bf16 (DeepSeek-V3 inference/fp8_cast_bf16.py: 2x the weight bytes).
# Training stays bf16: fine-tuning upcasts an FP8 checkpoint's weights (FP8 training is a choice the planner makes
# where a measured FP8 training efficiency exists, not a property of the checkpoint).


def default_precision(model: ModelArch, acc: Accelerator, stack: SoftwareStack | None, task: str) -> str:
    """The precision a workload runs in when none is asked for: the checkpoint's own (fp8) for inference on a device
    and stack that run FP8; QLoRA's NF4 base weights (as plan and compare name them; the estimate is the same as with
    its bf16 compute dtype); else bf16."""
    if task == "inference" and model.native_dtype == "fp8" and stack is not None and supports_fp8(acc, stack):
        return "fp8"
    if task == "qlora":  # QLoRA stores the frozen base in 4-bit NormalFloat (Dettmers et al. 2023, arXiv 2305.14314)
        return "nf4"
    return "bf16"


def native_precision_note(model: ModelArch, acc: Accelerator, stack: SoftwareStack | None, task: str,
                          precision: str) -> Message | None:
    """A note where the precision differs from the FP8 checkpoint's own: converted to 16-bit for inference (the
    device runs no FP8, or --precision asked for it: 2x the weight bytes of the download), or upcast for training."""
    if model.native_dtype != "fp8" or precision == "fp8":
        return None
    if task != "inference":
        return Message("precision.native_fp8.training", precision=precision) if precision in ("bf16", "fp16",
                                                                                                "fp32") else None
    if precision not in ("bf16", "fp16", "fp32"):
        return None  # int8/int4: a requantized checkpoint, a choice of its own
    runs_fp8 = stack is not None and supports_fp8(acc, stack)
    return Message("precision.native_fp8.asked" if runs_fp8 else "precision.native_fp8.converted",
                   precision=precision, ratio=weight_bytes_per_param(precision) / weight_bytes_per_param("fp8"))


# ---------------------------------------------------------------------------------------- the checkpoint to download
# One rule for estimate, plan, compare and the API through them (buyer review 2026-12-02: 8 x A100 int8 for
# Qwen3-235B-A22B, which Qwen publishes in BF16, FP8 and GPTQ-Int4 only: the plan meant quantizing 235B first). The
# model's `published_checkpoints` (ModelArch; None: not checked, no word) lists what its publisher and the stacks'
# maintainers upload; an upload tied to stacks (msModelSlim W8A8: cann) counts on those only. An FP8 checkpoint serves
# the fp8 precision on every device: where the card has no FP8 tensor cores the engine runs it weight-only, W8A16
# (vllm-fp8-doc, stacks.yaml cuda fp8_scheme). The numbers do not change: a team may quantize the model itself.


def _method_label(quant_method: str | None) -> str:
    """A quantization method as a sentence shows it: GPTQ, AWQ; another (compressed-tensors, modelslim) as the code
    name it is, in backticks (the catalog's rule for English code in a Chinese sentence)."""
    if not quant_method:
        return ""
    return {"gptq": "GPTQ", "awq": "AWQ"}.get(quant_method, f"`{quant_method}`")


def _for_stack(listed: tuple[Sourced[PublishedCheckpoint], ...],
               stack: SoftwareStack | None) -> list[Sourced[PublishedCheckpoint]]:
    """The uploads a stack can load: those made for any stack, and those made for this one (msModelSlim: cann)."""
    return [c for c in listed if not c.value.stacks or (stack is not None and stack.id in c.value.stacks)]


def published_checkpoint(model: ModelArch, stack: SoftwareStack | None, precision: str,
                         quant_method: str | None = None) -> str | None:
    """The hub id of the first checkpoint in the model's `published_checkpoints` at `precision` (with
    `quant_method`, that method's) that `stack` can load, in the catalog's order; None where none is listed or the
    model's list was not checked. The one matching rule for the estimate's warning and the plan's export."""
    here = _for_stack(model.published_checkpoints or (), stack)
    return next((c.value.repo for c in here
                 if c.value.precision == precision and quant_method in (None, c.value.quant_method)), None)


def unpublished_checkpoint_note(model: ModelArch, stack: SoftwareStack | None, task: str, precision: str,
                                quant_method: str | None = None,
                                stacks: Sequence[SoftwareStack] = ()) -> Message | None:
    """Serving at a quantized precision (fp8, int8, int4; with `quant_method`, that method's) of which the model's
    publisher and the stack's maintainers upload no checkpoint: one line naming the sources read and their date, and
    the published precisions to choose instead; an upload made for other stacks only is named with those stacks'
    names from `stacks` (the catalog's; an id not there as it is). None: trained, 16-bit, published, or the model's
    list not checked."""
    listed = model.published_checkpoints
    if task != "inference" or precision not in ("fp8", "int8", "int4") or not listed:
        return None
    if published_checkpoint(model, stack, precision, quant_method) is not None:
        return None
    here = _for_stack(listed, stack)
    order = ("fp8", "int8", "int4", "bf16", "fp16")
    quantized = sorted((c.value for c in here if c.value.quant_method is not None), key=lambda c: order.index(c.precision))
    choose = quantized or [c.value for c in here]
    choices = " / ".join(f"{c.precision}{' ' + _method_label(c.quant_method) if c.precision == 'int4' else ''} "
                         f"({c.repo})" for c in choose)
    other = next((c.value for c in listed if c.value.precision == precision and c.value.stacks and c not in here), None)
    sources = sorted({c.source for c in listed})
    dates = sorted(c.date for c in listed if c.date)
    return Message("precision.unpublished_checkpoint", precision=f"{precision} {_method_label(quant_method)}".strip(),
                   model=model.id, stack=both(stack.name, stack.name_zh) if stack is not None else "?",
                   source=", ".join(sources), date=dates[-1] if dates else "?",
                   choices=choices or "bf16",
                   elsewhere=Message("precision.unpublished_checkpoint.elsewhere", repo=other.repo,
                                     stacks=_stack_names(other.stacks, stacks)) if other is not None else "")


def _stack_names(ids: Sequence[str], stacks: Sequence[SoftwareStack]) -> str | dict[str, str]:
    """Stack ids as their names in each language (the catalog's name / name_zh), joined."""
    by_id = {s.id: s for s in stacks}
    en = ", ".join(by_id[i].name if i in by_id else i for i in ids)
    zh = "、".join((by_id[i].name_zh or by_id[i].name) if i in by_id else i for i in ids)
    return {"en": en, "zh": zh} if zh != en else en
