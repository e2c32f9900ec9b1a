"""What a device and its software stack can run: FP8, 4-bit QLoRA, int4 kernels, serving engines.

The rules are catalog data with sources (`stacks.yaml`: fp8, qlora_4bit, precisions, engines; accelerator specs:
a dense FP8 peak means FP8 tensor cores). `estimate` and `plan` apply the same checks: asking for something the
data says does not run is an error naming the source; something no source settles is a warning."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from suanli.estimate import xp

from suanli.catalog.schema import Accelerator, Catalog, Framework, InferenceEngine, SoftwareStack
from suanli.errors import InputError
from suanli.i18n import Message, both

__all__ = [
    "ALL_FRAMEWORK_TASKS",
    "KV_NATIVE",
    "capability_problems",
    "check_capability",
    "default_engine",
    "framework_order",
    "framework_refusal",
    "framework_refusals",
    "runs_task",
    "optimizer_zero_stages",
    "kv_dtype_problem",
    "nf4_speed_warning",
    "pp_zero_framework",
    "pp_zero_runs",
    "pp_zero_stages",
    "runs_layout",
    "runs_pp",
    "fp8_problem",
    "supports_fp8",
    "supports_fp8_training",
    "tp_overlap_refusal",
    "tp_overlap_runs",
    "tp_zero_runs",
    "tp_zero_stages",
    "zero_framework",
    "zero_runs",
]

# The KV cache in the model's own 16-bit (or fp32) dtype needs no engine support.
KV_NATIVE = ("bf16", "fp16", "fp32")


def supports_fp8(acc: Accelerator, stack: SoftwareStack) -> bool:
    """FP8 GEMMs need FP8 tensor cores (a published dense FP8 peak) and a stack that runs them."""
    return acc.specs.fp8_dense_tflops is not None and stack.fp8 is not None and bool(stack.fp8.value)


def supports_fp8_training(cat: Catalog, acc: Accelerator, stack: SoftwareStack) -> bool:
    """FP8 training is proposed only where a measured FP8 training efficiency exists for the family."""
    return supports_fp8(acc, stack) and any(
        f.metric == "train_mfu" and f.precision == "fp8" and f.family in (acc.family, "*") and (f.device is None or acc.id in f.device_ids)
        for f in cat.efficiency
    )


def default_engine(stack: SoftwareStack) -> str:
    """The engine most teams serve with on this stack: the first of `stacks.yaml` engines."""
    return stack.engines[0] if stack.engines else "hf"


def nf4_speed_warning(stack: SoftwareStack) -> Message | None:
    """QLoRA where the stack's NF4 dequantization is plain framework ops (stacks.yaml `nf4_kernel` false, cited):
    the speed shown is the bf16 figure, an upper bound (no source gives the slowdown, so none is applied).
    `estimate` notes it and `plan` shows it as a warning."""
    if stack.nf4_kernel is None or stack.nf4_kernel.value:
        return None
    c = stack.nf4_kernel.chosen
    return Message("capability.nf4_unoptimised", stack=_named(stack), source=c.source,
                   note=both(c.note or "", c.note_zh))


def runs_pp(fw: Framework, task: str) -> bool:
    """Whether `fw` runs pipeline parallelism for `task` (frameworks.yaml pp, pp_tasks)."""
    return fw.pp and (not fw.pp_tasks or task in fw.pp_tasks)


def pp_zero_stages(fw: Framework) -> tuple[int, ...]:
    """The ZeRO stages `fw` runs beside pipeline parallelism (frameworks.yaml pp_zero_stages, cited; else all of
    its zero_stages)."""
    return fw.pp_zero_stages if fw.pp_zero_stages is not None else fw.zero_stages


def pp_zero_runs(fw: Framework, pp: Any, dp: Any, zero: Any) -> Any:
    """Whether `fw` runs ZeRO stage `zero` with `pp` pipeline stages over `dp` replicas (floats or numpy arrays alike,
    so the planner's grid and `estimate` apply the one rule): always without pipeline parallelism, and with no data
    parallelism and nothing sharded; otherwise only the stages frameworks.yaml lists for it (DeepSpeed's
    PipelineEngine refuses ZeRO-2/3, torchtitan shards with FSDP2 only)."""
    return (xp.asarray(pp) == 1) | ((xp.asarray(dp) == 1) & (xp.asarray(zero) == 0)) | xp.isin(zero, pp_zero_stages(fw))


def tp_zero_stages(fw: Framework) -> tuple[int, ...]:
    """The ZeRO stages `fw` runs beside tensor parallelism (frameworks.yaml tp_zero_stages, cited; else all of
    its zero_stages)."""
    return fw.tp_zero_stages if fw.tp_zero_stages is not None else fw.zero_stages


def tp_zero_runs(fw: Framework, tp: Any, dp: Any, zero: Any) -> Any:
    """Whether `fw` runs ZeRO stage `zero` with `tp`-way tensor parallelism over `dp` replicas, as pp_zero_runs does
    for pipeline stages: torchtitan replicates (DDP, ZeRO 0) only as 1-D parallelism and shards with FSDP2 beside
    tensor parallelism (torchtitan-apply-fsdp)."""
    return (xp.asarray(tp) == 1) | ((xp.asarray(dp) == 1) & (xp.asarray(zero) == 0)) | xp.isin(zero, tp_zero_stages(fw))


def tp_overlap_runs(fw: Framework, acc: Accelerator) -> bool:
    """Whether `fw` pipelines its tensor-parallel collectives with the GEMMs on `acc`: it has the overlap
    (frameworks.yaml tp_comm_overlap) and `acc`'s intra-node link is one it runs on (tp_comm_overlap_links, cited:
    Transformer Engine's userbuffers need an NVLink domain). The one rule the planner's layouts and `estimate
    --tp-comm-overlap` apply."""
    return fw.tp_comm_overlap and (fw.tp_comm_overlap_links is None or acc.interconnect in fw.tp_comm_overlap_links)


def tp_overlap_refusal(frameworks: Sequence[Framework], acc: Accelerator, framework: str | None = None) -> Message | None:
    """Why tensor-parallel communication overlap cannot run on `acc` with the pinned `framework` (else with any
    framework on its stack that has the overlap): one sentence naming the link and the source, else None."""
    cands = [f for f in frameworks if (f.id == framework if framework is not None else acc.stack in f.stacks)
             and f.tp_comm_overlap]
    if framework is not None and not cands:
        name = next((f.name for f in frameworks if f.id == framework), framework)
        return Message("cap.fw.no_tp_overlap", framework=name)
    if not cands or any(tp_overlap_runs(f, acc) for f in cands):
        return None
    f = cands[0]
    return Message("cap.fw.tp_overlap_link", framework=f.name, device=acc.name, link=acc.interconnect,
                   links=", ".join(f.tp_comm_overlap_links or ()), source=f.tp_comm_overlap_source or "")


def zero_runs(fw: Framework, tp: Any, pp: Any, dp: Any, zero: Any) -> Any:
    """Whether `fw` runs ZeRO `zero` over `dp` replicas beside `tp`-way tensor and `pp`-stage pipeline parallelism
    (floats or numpy arrays alike): the one rule the planner's grid and `estimate` apply."""
    return pp_zero_runs(fw, pp, dp, zero) & tp_zero_runs(fw, tp, dp, zero)


def zero_framework(frameworks: Sequence[Framework], task: str, stack: str, tp: int, pp: int, dp: int, zero: int,
                   framework: str | None = None) -> tuple[Framework | None, str | None]:
    """(the framework that runs ZeRO `zero` over `dp` replicas beside `tp`-way tensor and `pp`-stage pipeline
    parallelism for `task` on `stack`, error). `framework` pins one; otherwise any framework running that
    parallelism for the task there will do. The error is one line naming each framework and the ZeRO stages it
    runs with this layout, with its source."""
    if pp <= 1 and tp <= 1:
        return None, None
    if framework is not None:
        cands = [f for f in frameworks if f.id == framework]
    else:
        cands = [f for f in frameworks if task in f.tasks and stack in f.stacks
                 and (pp <= 1 or runs_pp(f, task)) and (tp <= 1 or f.tp)]
    for f in cands:
        if bool(zero_runs(f, tp, pp, dp, zero)):
            return f, None
    if not cands:
        return None, None
    failing = [f for f in cands if not bool(zero_runs(f, tp, pp, dp, zero))]
    pp_fails = pp > 1 and any(not bool(pp_zero_runs(f, pp, dp, zero)) for f in failing)
    tp_fails = tp > 1 and any(not bool(tp_zero_runs(f, tp, dp, zero)) for f in failing)
    beside = " and ".join(x for x, on in ((f"pipeline parallelism (--pp {pp})", pp_fails),
                                          (f"tensor parallelism (--tp {tp})", tp_fails)) if on)

    def runs(f: Framework) -> str:
        stages = [s for s in f.zero_stages if bool(zero_runs(f, tp, pp, dp, s))]
        srcs = [s for s, on in ((f.pp_zero_source, pp_fails), (f.tp_zero_source, tp_fails)) if on and s]
        return (f"{f.name} runs it with ZeRO {', '.join(map(str, stages)) or 'none'}"
                + (f" (source {', '.join(dict.fromkeys(srcs))})" if srcs else ""))

    replicas = f" over {dp} data-parallel replicas" if tp_fails else ""
    return None, f"--zero {zero} does not run with {beside}{replicas}: {'; '.join(runs(f) for f in cands)}"


def pp_zero_framework(frameworks: Sequence[Framework], task: str, stack: str, pp: int, dp: int, zero: int,
                      framework: str | None = None) -> tuple[Framework | None, str | None]:
    """zero_framework without tensor parallelism: the ZeRO stages beside pipeline parallelism only."""
    return zero_framework(frameworks, task, stack, 1, pp, dp, zero, framework)


def optimizer_zero_stages(fw: Framework, stack: str, offload: bool, optimizer: str = "adamw") -> tuple[int, ...]:
    """The ZeRO stages with which `fw` runs this optimizer set-up on `stack` (empty: it does not run it): its
    zero_stages; with --offload-optimizer only those in offload_zero_stages (DeepSpeed ZeRO-Offload: 1-3,
    LLaMA-Factory's configs: 2-3); 8-bit AdamW only on its adamw8bit_stacks (bitsandbytes: CUDA). The one rule
    `estimate` and the planner's optimizer options apply (frameworks.yaml, cited)."""
    if optimizer == "adamw8bit" and stack not in fw.adamw8bit_stacks:
        return ()
    return tuple(z for z in fw.zero_stages if not offload or z in fw.offload_zero_stages)


def framework_refusal(fw: Framework, task: str, stack: str, zero: int | None = None, offload: bool = False,
                      optimizer: str = "adamw") -> Message | None:
    """Why `fw` cannot run `task` with ZeRO `zero` (None: any), the optimizer offloaded or 8-bit AdamW on `stack`:
    one sentence naming the framework and what it allows, else None (frameworks.yaml tasks, zero_stages,
    offload_zero_stages, adamw8bit_stacks)."""
    if task not in fw.tasks:
        return Message("cap.fw.task", framework=fw.name, task=task, tasks=", ".join(fw.tasks))
    if zero is not None and zero not in fw.zero_stages:
        return Message("cap.fw.zero", framework=fw.name, zero=zero, stages=", ".join(map(str, fw.zero_stages)))
    if offload and task != "inference":
        if not fw.offload_zero_stages:
            return Message("cap.fw.no_offload", framework=fw.name)
        if zero is not None and zero not in fw.offload_zero_stages:
            return Message("cap.fw.offload_zero", framework=fw.name, zero=zero,
                           stages=", ".join(map(str, fw.offload_zero_stages)), source=fw.offload_source or "")
    if optimizer == "adamw8bit" and task != "inference" and stack not in fw.adamw8bit_stacks:
        if not fw.adamw8bit_stacks:
            return Message("cap.fw.no_adamw8bit", framework=fw.name)
        return Message("cap.fw.adamw8bit", framework=fw.name, stack=stack, stacks=", ".join(fw.adamw8bit_stacks),
                       source=fw.adamw8bit_source or "")
    return None


# full fine-tuning and pre-training: every framework the stack runs the task with is searched and ranked by the
# objective (Megatron-LM beside DeepSpeed on CUDA: tensor/pipeline parallelism against ZeRO-3), not the default alone;
# LoRA/QLoRA keep their default (LLaMA-Factory), whose adapters need no model parallelism (task J1 2026-12-01). The
# planner searches so and `estimate` assumes so (estimate.assumed_framework)
ALL_FRAMEWORK_TASKS = ("full", "pretrain")


def framework_order(frameworks: Sequence[Framework], task: str, stack: str) -> list[Framework]:
    """The frameworks that run `task` on `stack`, in the one preference order `estimate` and the planner share: the
    task's usual framework there first (frameworks.yaml `default_for`; the most stack-specific of several, fewest
    `stacks`), then the rest in catalog order. The planner's default framework is the first of them that runs the
    pins; of two frameworks planning equal rows, the earlier is planned; `estimate` without --framework assumes
    the first running its layout (LoRA, QLoRA) or the fastest that fits, ties to the earlier (full, pretrain)."""
    cands = [f for f in frameworks if task in f.tasks and stack in f.stacks]
    return sorted(cands, key=lambda f: (task not in f.default_for, len(f.stacks) if task in f.default_for else 0))


def runs_task(frameworks: Sequence[Framework], stack: SoftwareStack, task: str) -> bool:
    """Whether `stack` runs training task `task` at all: a framework of it runs the task (frameworks.yaml `tasks`,
    `stacks`) and the stack's data does not refuse it (QLoRA: stacks.yaml `qlora_4bit` false, as
    `capability_problems` refuses it; MUSA has no bitsandbytes)."""
    refused = task == "qlora" and stack.qlora_4bit is not None and not stack.qlora_4bit.value
    return not refused and bool(framework_order(frameworks, task, stack.id))


def runs_layout(fw: Framework, task: str, acc: Accelerator, tp: int = 1, pp: int = 1, vpp: int = 1, ep: int = 1,
                dp: int = 1, zero: int = 0, recompute: str = "none", precision: str = "bf16", offload: bool = False,
                optimizer: str = "adamw", tp_comm_overlap: bool = False) -> bool:
    """Whether `fw` runs this training layout on `acc`'s stack: the task there, tensor / pipeline / virtual pipeline
    / expert parallelism, the ZeRO stage beside them (`zero_runs`), the recompute, FP8, the optimizer set-up
    (`framework_refusal`) and the tensor-parallel overlap on `acc`'s link (`tp_overlap_runs`) — the checks the
    planner's layouts apply (plan.search `_layouts`, `_unrun_pins`; the head rule is tp_heads')."""
    return (task in fw.tasks and acc.stack in fw.stacks and (tp <= 1 or fw.tp) and (pp <= 1 or runs_pp(fw, task))
            and (vpp <= 1 or fw.vpp) and (ep <= 1 or fw.ep) and recompute in fw.recompute
            and (precision != "fp8" or fw.fp8) and bool(zero_runs(fw, tp, pp, dp, zero))
            and framework_refusal(fw, task, acc.stack, zero, offload, optimizer) is None
            and (not tp_comm_overlap or tp_overlap_runs(fw, acc)))


def framework_refusals(frameworks: Sequence[Framework], task: str, stack: str, zero: int | None = None,
                       offload: bool = False, optimizer: str = "adamw",
                       framework: str | None = None) -> Message | None:
    """framework_refusal for the pinned `framework`, else for the frameworks that run `task` on `stack`: None when
    one of them runs it (or none runs the task there: nothing to check against), else one line naming each
    framework and what it allows."""
    if framework is not None:
        fw = next((f for f in frameworks if f.id == framework), None)
        return None if fw is None else framework_refusal(fw, task, stack, zero, offload, optimizer)
    cands = [f for f in frameworks if task in f.tasks and stack in f.stacks]
    why = [framework_refusal(f, task, stack, zero, offload, optimizer) for f in cands]
    if not cands or any(w is None for w in why):
        return None
    refused = [w for w in why if w is not None]
    # the frameworks that allow something (other ZeRO stages, other stacks) say more than those that offer nothing
    allow = [w for w in refused if w.id in ("cap.fw.zero", "cap.fw.offload_zero", "cap.fw.adamw8bit")]
    return Message("cap.fw.none", stack=stack, reasons=allow or refused)


def kv_dtype_problem(engine: str, kv_dtype: str,
                     engines: Sequence[InferenceEngine]) -> tuple[Message | None, Message | None]:
    """(error, warning) for storing the KV cache in `kv_dtype` with `engine`.

    A quantized KV cache is an engine capability (frameworks.yaml `kv_dtypes`, cited): it is stored in 8 or 4 bits
    and dequantized by the attention kernel, so it needs no FP8 tensor cores (vLLM's fp8 KV cache runs on Ampere,
    vllm-quantized-kvcache)."""
    if kv_dtype in KV_NATIVE:
        return None, None
    row = next((e for e in engines if e.id == engine), None)
    if row is None or not row.kv_dtypes:
        return None, Message("cap.kv.unsourced", engine=engine, kv_dtype=kv_dtype)
    if kv_dtype not in row.kv_dtypes:
        allowed = ", ".join((*KV_NATIVE[:2], *row.kv_dtypes))
        return Message("cap.kv.not_stored", engine=engine, kv_dtype=kv_dtype, allowed=allowed,
                       source=row.kv_dtypes_source), None
    return None, None


def _named(x: Accelerator | SoftwareStack) -> str | dict[str, str]:
    return both(x.name, getattr(x, "name_zh", None))


def _source(stack: SoftwareStack, field: str) -> Message | str:
    """The source (and its note) behind a stack's capability value, as a message: '' when the catalog has none."""
    v = getattr(stack, field)
    if v is None:
        return ""
    c = v.chosen
    if not c.note:
        return Message("cap.source", source=c.source)
    note_zh = getattr(c, "note_zh", None)  # a note the catalog has only in English is left out of Chinese output
    return (Message("cap.source_note", source=c.source, note=both(c.note, note_zh)) if note_zh
            else Message("cap.source_note_untranslated", source=c.source, note=c.note))


def engines_alike(stack: SoftwareStack) -> Message:
    """The one line saying a stack's serving engines are not told apart (SoftwareStack.engines_alike_source)."""
    return Message("cap.engines_alike", stack=_named(stack),
                   engines=", ".join(e for e in stack.engines if e != "hf"), source=stack.engines_alike_source)


def _weight_precisions(stack: SoftwareStack) -> str:
    """The serving precisions other than fp8 a stack runs (bf16, fp16, and its listed int8/int4 kernels)."""
    return ", ".join(p for p in ("bf16", "fp16", "int8", "int4")
                     if p in ("bf16", "fp16") or not stack.precisions or p in stack.precisions)


def fp8_problem(acc: Accelerator, stack: SoftwareStack, *, kv: bool = False, engine: str | None = None,
                engines: Sequence[InferenceEngine] = ()) -> Message | None:
    """The one FP8 check, as a refusal naming the allowed values (None: FP8 runs, or no source says it does not).

    FP8 weights need the device's FP8 cores and a stack that runs FP8 (stacks.yaml `fp8`, sourced). An fp8 KV cache
    (`kv`) is stored in 8 bits and dequantized by the attention kernel, so either suffices (vLLM's fp8 KV cache runs
    on Ampere, vllm-quantized-kvcache); where neither the device nor the stack has FP8 (910B/910C on CANN:
    tilelang-ascend#1177, vllm-ascend#8102) it is refused whatever an engine documents for CUDA."""
    dev, st, why = _named(acc), _named(stack), _source(stack, "fp8")
    if kv:
        if acc.specs.fp8_dense_tflops is not None or (stack.fp8 is not None and stack.fp8.value):
            return None
        row = next((e for e in engines if e.id == engine), None)
        allowed = ", ".join((*KV_NATIVE[:2], *(d for d in (row.kv_dtypes if row else ()) if d != "fp8")))
        return Message("cap.kv.no_fp8", device=dev, stack=st, why=why, allowed=allowed)
    allowed = _weight_precisions(stack)
    if acc.specs.fp8_dense_tflops is None:
        return Message("cap.no_fp8_cores", device=dev, why=why, allowed=allowed)
    if stack.fp8 is not None and not stack.fp8.value:
        return Message("cap.stack_no_fp8", stack=st, why=why, allowed=allowed)
    return None


def capability_problems(acc: Accelerator, stack: SoftwareStack, task: str, precision: str,
                        engine: str | None, kv_dtype: str | None = None,
                        flash_attention: bool | None = None,
                        engines: Sequence[InferenceEngine] = ()) -> tuple[list[Message], list[Message]]:
    """(errors, warnings) for running `task` in `precision` with `engine` on `acc` (the KV dtype against the
    engine rows `engines`, where given), as messages (`render(m)` is the English line)."""
    errors: list[Message] = []
    warnings: list[Message] = []
    dev, st = _named(acc), _named(stack)
    if flash_attention and (stack.flash_attention is None or not stack.flash_attention.value):
        warnings.append(Message("cap.flash_unsourced", stack=st))
    if precision == "fp8":
        if (fp8_error := fp8_problem(acc, stack)) is not None:
            errors.append(fp8_error)
        elif stack.fp8 is None:
            warnings.append(Message("cap.fp8_unsourced", stack=st, device=dev))
    if task == "qlora":
        if stack.qlora_4bit is not None and not stack.qlora_4bit.value:
            errors.append(Message("cap.no_qlora", stack=st, why=_source(stack, "qlora_4bit")))
        elif stack.qlora_4bit is None:
            warnings.append(Message("cap.qlora_unsourced", stack=st))
        if (slow := nf4_speed_warning(stack)) is not None:
            warnings.append(slow)
    if precision in ("int4", "int8") and stack.precisions and precision not in stack.precisions:
        errors.append(Message("cap.no_kernels", stack=st, precision=precision, precisions=", ".join(stack.precisions)))
    if task == "inference" and engine is not None and stack.engines and engine not in stack.engines:
        errors.append(Message("cap.engine_stack", engine=engine, stack=st, engines=", ".join(stack.engines),
                              source=stack.engines_source))
    elif task == "inference" and engine is not None and engine != "hf" and stack.engines_alike_source:
        warnings.append(engines_alike(stack))
    kv_error = kv_warning = None
    if task == "inference" and engine is not None and kv_dtype is not None and engines:
        kv_error, kv_warning = kv_dtype_problem(engine, kv_dtype, engines)  # the engine's own list first
    if task == "inference" and kv_dtype == "fp8" and kv_error is None:
        # an engine that stores fp8 (SGLang, documented on CUDA) still needs FP8 on the device or the stack
        kv_error = fp8_problem(acc, stack, kv=True, engine=engine, engines=engines)
        kv_warning = None if kv_error is not None else kv_warning
    errors += [kv_error] if kv_error else []
    warnings += [kv_warning] if kv_warning else []
    return errors, warnings


# the input each refusal names (the CLI's flag, the API's field)
_CAP_FIELD = {"cap.no_fp8_cores": "precision", "cap.stack_no_fp8": "precision", "cap.no_kernels": "precision",
              "cap.kv.not_stored": "kv-dtype", "cap.kv.no_fp8": "kv-dtype", "cap.engine_stack": "engine"}


def check_capability(acc: Accelerator, stack: SoftwareStack, task: str, precision: str, engine: str | None,
                     kv_dtype: str | None = None, flash_attention: bool | None = None,
                     engines: Sequence[InferenceEngine] = ()) -> list[Message]:
    """Raise InputError naming the source when the device/stack cannot run this; return the warnings."""
    errors, warnings = capability_problems(acc, stack, task, precision, engine, kv_dtype, flash_attention, engines)
    if errors:
        e = errors[0]
        raise InputError(_CAP_FIELD.get(e.id, "task"), e)
    return warnings
