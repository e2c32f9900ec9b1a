"""What a device and its software stack can run: FP8, 4-bit QLoRA, int4 kernels, serving engines.

The rules are catalog data with sources (`stacks.yaml`: fp8, qlora_4bit, precisions, engines; accelerator specs:
a dense FP8 peak means FP8 tensor cores). `estimate` and `plan` apply the same checks: asking for something the
data says does not run is an error naming the source; something no source settles is a warning."""

from __future__ import annotations

from suanli.catalog.schema import Accelerator, Catalog, SoftwareStack
from suanli.errors import InputError

__all__ = ["capability_problems", "check_capability", "default_engine", "supports_fp8", "supports_fp8_training"]


def _why(stack: SoftwareStack, field: str) -> str:
    v = getattr(stack, field)
    if v is None:
        return ""
    c = v.chosen
    return f" (source {c.source}" + (f": {c.note}" if c.note else "") + ")"


def supports_fp8(acc: Accelerator, stack: SoftwareStack) -> bool:
    """FP8 GEMMs need FP8 tensor cores (a published dense FP8 peak) and a stack that runs them."""
    return acc.specs.fp8_dense_tflops is not None and stack.fp8 is not None and bool(stack.fp8.value)


def supports_fp8_training(cat: Catalog, acc: Accelerator, stack: SoftwareStack) -> bool:
    """FP8 training is proposed only where a measured FP8 training efficiency exists for the family."""
    return supports_fp8(acc, stack) and any(
        f.metric == "train_mfu" and f.precision == "fp8" and f.family in (acc.family, "*") and f.device in (None, acc.id)
        for f in cat.efficiency
    )


def default_engine(stack: SoftwareStack) -> str:
    """The engine most teams serve with on this stack: the first of `stacks.yaml` engines."""
    return stack.engines[0] if stack.engines else "hf"


def capability_problems(acc: Accelerator, stack: SoftwareStack, task: str, precision: str,
                        engine: str | None, kv_dtype: str | None = None,
                        flash_attention: bool | None = None) -> tuple[list[str], list[str]]:
    """(errors, warnings) for running `task` in `precision` with `engine` on `acc`."""
    errors: list[str] = []
    warnings: list[str] = []
    if flash_attention and (stack.flash_attention is None or not stack.flash_attention.value):
        warnings.append(f"no source says {stack.name} has a fused (flash) attention kernel; activations are counted "
                        "as if it had one (pass --no-flash-attention to count the attention scores)")
    if precision == "fp8" or kv_dtype == "fp8":
        if acc.specs.fp8_dense_tflops is None:
            errors.append(f"{acc.name} has no FP8 tensor cores (no published dense FP8 peak){_why(stack, 'fp8')}")
        elif stack.fp8 is not None and not stack.fp8.value:
            errors.append(f"{stack.name} does not run FP8{_why(stack, 'fp8')}")
        elif stack.fp8 is None:
            warnings.append(f"no source says {stack.name} runs FP8 on {acc.name}")
    if task == "qlora":
        if stack.qlora_4bit is not None and not stack.qlora_4bit.value:
            errors.append(f"{stack.name} has no 4-bit QLoRA (bitsandbytes NF4){_why(stack, 'qlora_4bit')}")
        elif stack.qlora_4bit is None:
            warnings.append(f"no source says 4-bit QLoRA (bitsandbytes NF4) runs on {stack.name}")
    if precision in ("int4", "int8") and stack.precisions and precision not in stack.precisions:
        errors.append(f"{stack.name} lists no {precision} kernels (precisions: {', '.join(stack.precisions)})")
    if task == "inference" and engine is not None and stack.engines and engine not in stack.engines:
        errors.append(f"engine {engine} does not run on {stack.name}; engines there: {', '.join(stack.engines)}"
                      f" (source {stack.engines_source})")
    return errors, warnings


def check_capability(acc: Accelerator, stack: SoftwareStack, task: str, precision: str, engine: str | None,
                     kv_dtype: str | None = None, flash_attention: bool | None = None) -> list[str]:
    """Raise InputError naming the source when the device/stack cannot run this; return the warnings."""
    errors, warnings = capability_problems(acc, stack, task, precision, engine, kv_dtype, flash_attention)
    if errors:
        raise InputError("precision" if "FP8" in errors[0] or "kernels" in errors[0] else
                         "engine" if errors[0].startswith("engine") else "task", errors[0])
    return warnings
