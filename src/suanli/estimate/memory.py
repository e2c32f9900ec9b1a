"""Device memory per GPU: a typed breakdown for inference and training, and whether it fits.

Two methods. `default` counts every term (below, each with its citation). `seed` reproduces the seed
articles' rules of thumb exactly: inference = params × bytes × 1.2; training = (P + G + 2·Opt) × 2 bytes.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from pydantic import BaseModel, ConfigDict

from suanli.catalog.schema import Accelerator, ModelArch, SoftwareStack
from suanli.estimate import arch
from suanli.estimate.params import param_count
from suanli.estimate.precision import QUANTIZED, activation_bytes, weight_bytes_per_param
from suanli.estimate.workload import Workload
from suanli.units import GiB

__all__ = [
    "MemoryEstimate",
    "estimate_memory",
    "max_batch_that_fits",
    "ep_share",
    "max_context_that_fits",
    "nominal_params",
    "training_peak",
    "weights_bytes",
]

# vLLM reserves this fraction of device memory up front (vLLM EngineArgs default gpu_memory_utilization=0.9).
VLLM_GPU_MEMORY_UTILIZATION = 0.9
# vLLM profiles activations with one batch of max_num_batched_tokens (vLLM default 8192 on chunked prefill).
VLLM_PROFILE_TOKENS = 8192


class MemoryEstimate(BaseModel):
    model_config = ConfigDict(frozen=True)

    method: str
    per_gpu_bytes: float
    breakdown_bytes: dict[str, float]
    capacity_bytes: float | None
    fits: bool | None
    headroom_bytes: float | None
    trainable_params: int
    notes: list[str] = []


def nominal_params(m: ModelArch) -> float:
    """The size in the model's name ('Llama-2-7b' -> 7e9, 'Mixtral-8x7B' -> 56e9), as the seeds count it;
    the computed count when the name has none (DeepSeek-V3)."""
    match = re.search(r"(?:(\d+)x)?(\d+(?:\.\d+)?)b(?![a-z])", m.id.lower().split("/")[-1])
    if match:
        experts = int(match.group(1) or 1)
        return experts * float(match.group(2)) * 1e9
    return float(param_count(m).total)


def _runtime_overhead_bytes(stack: SoftwareStack | None) -> float:
    if stack is None or stack.runtime_overhead_gib is None:
        return 0.0
    return stack.runtime_overhead_gib.value * GiB


def ep_share(m: ModelArch, ep: int) -> float:
    """Share of the parameters one expert-parallel rank holds: everything but the routed experts, plus 1/ep of
    those."""
    if ep <= 1 or m.moe is None:
        return 1.0
    total = param_count(m).total
    routed = arch.routed_expert_params(m) / total if total else 0.0
    return (1.0 - routed) + routed / ep


def weights_bytes(m: ModelArch, precision: str) -> float:
    """Quantized checkpoints keep embeddings and lm_head in 16-bit (bitsandbytes/GPTQ/AWQ defaults)."""
    p = param_count(m)
    if precision in QUANTIZED:
        kept = p.embedding + p.lm_head
        return (p.total - kept) * weight_bytes_per_param(precision) + kept * 2.0
    return p.total * weight_bytes_per_param(precision)


def _seed(m: ModelArch, w: Workload) -> tuple[dict[str, float], list[str]]:
    n = nominal_params(m)
    if w.task in ("full", "pretrain"):
        # seed-000 §2.1: (P + G + 2·Opt) × 2 bytes, i.e. 8 bytes per parameter
        return {"weights": 2 * n, "gradients": 2 * n, "optimizer": 4 * n}, []
    # seed-000 §2.1: params × precision bytes × 1.2 (KV cache etc.)
    base = n * weight_bytes_per_param(w.precision)
    notes = ["the seeds give no LoRA rule; their inference rule is used"] if w.training else []
    return {"weights": base, "overhead_20pct": 0.2 * base}, notes


def _inference(m: ModelArch, w: Workload, acc: Accelerator | None) -> tuple[dict[str, float], list[str]]:
    notes: list[str] = []
    shard = w.tp * w.pp
    weights = weights_bytes(m, w.precision) / shard * ep_share(m, w.ep)
    if m.kind == "diffusion":
        return {"weights": weights}, ["diffusion: weights only; activations depend on resolution"]
    kv_bytes = weight_bytes_per_param(w.kv_dtype) if w.kv_dtype else activation_bytes(w.precision)
    ctx = w.context if m.sliding_window is None else min(w.context, m.sliding_window)
    # MLA's latent cache is shared by all heads, so tensor parallelism replicates it on every rank (vLLM's MLA
    # backends); GQA/MHA caches split by KV heads across tp ranks
    kv_shard = w.pp if m.mla is not None and w.engine != "hf" else shard
    kv = arch.kv_cache_bytes_per_token(m, kv_bytes, w.engine) * ctx * w.batch / kv_shard
    act_b = activation_bytes(w.precision)
    h = m.hidden_size or 0
    tokens = min(w.batch * w.input, VLLM_PROFILE_TOKENS) if w.preallocates else w.batch * w.input
    # prefill transient: hidden states (residual, norm output) + one MLP's gate/up/product, per token
    act = tokens * (3 * h + 3 * arch.ffn_width_active(m)) * act_b / w.tp
    if not w.flash_attention:
        act += w.batch * (m.num_attention_heads or 0) * w.input**2 * act_b / w.tp
    # generate() keeps only the last position's logits, upcast to fp32 (transformers logits_to_keep=1)
    logits = w.batch * (m.vocab_size or 0) * 4.0
    parts = {"weights": weights, "kv_cache": kv, "activations": act, "logits": logits}
    if w.preallocates and acc is not None and acc.specs.memory_gib is not None:
        pool = VLLM_GPU_MEMORY_UTILIZATION * acc.specs.memory_gib.value * GiB
        free_for_kv = pool - weights - act - logits
        notes.append(
            f"{w.engine} pre-allocates {VLLM_GPU_MEMORY_UTILIZATION:.0%} of device memory; "
            f"KV pool {max(free_for_kv, 0) / GiB:,.1f} GiB, this workload needs {kv / GiB:,.1f} GiB"
        )
        parts["kv_cache_pool_unused"] = max(free_for_kv - kv, 0.0)
    return parts, notes


def _training(m: ModelArch, w: Workload) -> tuple[dict[str, float], list[str], int]:
    arch.require_llm(m, f"task {w.task}")
    notes: list[str] = []
    p = param_count(m)
    shard = w.tp * w.pp
    dp = w.dp
    mixed = w.precision != "fp32"
    if w.task in ("lora", "qlora"):
        trainable = arch.lora_params(m, w.lora_rank, w.lora_targets)
        base_precision = "nf4" if w.task == "qlora" else w.precision
        weights = weights_bytes(m, base_precision) / shard
        # PEFT keeps adapter weights in fp32 (autocast_adapter_dtype=True): weight 4 + grad 4 + Adam 8 bytes
        weights += trainable * 4.0 / shard
        grads = trainable * 4.0 / shard
        opt_bytes = {"adamw": 8.0, "adamw8bit": 2.0, "sgd": 4.0, "adafactor": 4.0}[w.optimizer]
        optimizer = trainable * opt_bytes / shard
        # ZeRO / FSDP shard whatever they hold, frozen base weights included (ZeRO-3 = FSDP full shard)
        if w.zero >= 1:
            optimizer /= dp
        if w.zero >= 2:
            grads /= dp
        if w.zero >= 3:
            weights /= dp
    else:
        trainable = p.total
        # ZeRO paper (Rajbhandari et al. 2020) §3.1: mixed-precision Adam keeps 2Ψ fp16 weights, 2Ψ fp16 grads
        # and KΨ optimizer states with K = 12 (fp32 master weights, momentum, variance).
        master = 4.0 if mixed else 0.0
        per_param_state = {"adamw": 8.0, "adamw8bit": 2.0, "sgd": 4.0, "adafactor": 0.0}[w.optimizer]
        if w.optimizer == "adafactor":
            notes.append("adafactor: factored second moments (rows + columns) counted as zero")
        weights = p.total * weight_bytes_per_param(w.precision) / shard
        grads = p.total * weight_bytes_per_param(w.precision) / shard
        optimizer = p.total * (master + per_param_state) / shard
        if w.zero >= 1:
            optimizer /= dp
        if w.zero >= 2:
            grads /= dp
        if w.zero >= 3:
            weights /= dp
    if w.ep > 1:
        # expert parallelism: each rank holds 1/ep of the routed experts, with their gradients and states
        # (states ZeRO already shards over the dp ranks are not divided again: ep ranks are dp ranks)
        share = ep_share(m, w.ep)
        weights *= share if w.zero < 3 else 1.0
        grads *= share if w.zero < 2 else 1.0
        optimizer *= share if w.zero < 1 else 1.0
        notes.append(f"expert parallel over {w.ep} ranks: {share:.0%} of the parameters per rank")
    if w.offload_optimizer:
        notes.append("optimizer states offloaded to CPU memory (ZeRO-Offload)")
        optimizer = 0.0

    act_b = activation_bytes(w.precision)
    layers = m.num_layers or 0
    per_tok = arch.activation_bytes_per_token_per_layer(m, act_b, w.recompute, w.flash_attention, w.seq)
    # 1F1B pipeline: the first stage holds min(pp, micro-batches) micro-batches of its L/pp layers
    # (Korthikanti et al. 2022 §4.2.3); tensor + sequence parallel divide activations by t (§4.2.2).
    in_flight = min(w.pp, w.grad_accum) if w.pp > 1 else 1
    acts = w.batch * w.seq * per_tok * (layers / w.pp) * in_flight / w.tp
    if w.recompute == "full":
        # one layer is recomputed at a time and holds its full activations during its backward
        acts += w.batch * w.seq * arch.activation_bytes_per_token_per_layer(
            m, act_b, "none", w.flash_attention, w.seq
        ) / w.tp
    # logits in the compute dtype, the fp32 upcast for the loss and its fp32 gradient: 2 + 4 + 4 bytes
    # per vocabulary entry per token (transformers' ForCausalLMLoss upcasts logits to float).
    logits = w.batch * w.seq * (m.vocab_size or 0) * (act_b + 8.0) / w.tp
    # gradients alive when backward starts: the lm_head's (the first weight gradient produced), if trained
    head = 0.0
    if w.task in ("full", "pretrain"):
        head = (p.lm_head or p.embedding) * weight_bytes_per_param(w.precision) / shard / (dp if w.zero >= 2 else 1)
    grads_at_peak, acts_at_peak, logits_at_peak, phase = training_peak(grads, head, acts, logits)
    notes.append(f"peak at the {phase} of backward")
    parts = {
        "weights": weights,
        "gradients": grads_at_peak,
        "optimizer": optimizer,
        "activations": acts_at_peak,
        "logits": logits_at_peak,
    }
    return parts, notes, trainable


def training_peak(grads: Any, grads_at_start: Any, acts: Any, logits: Any) -> tuple[Any, Any, Any, str]:
    """Which of two moments of a training step holds more memory (floats or numpy arrays alike).

    At the start of backward every activation and the loss's logits are alive but only the first weight
    gradients exist; at its end every gradient exists and the activations are freed (autograd frees each
    saved tensor once its layer's backward ran). Returns (gradients, activations, logits) alive at the peak
    and the phase ('start' or 'end'; 'mixed' for arrays)."""
    start = acts + logits + grads_at_start
    at_start = start >= grads
    if isinstance(at_start, bool | np.bool_):
        if at_start:
            return grads_at_start, acts, logits, "start"
        return grads, 0.0 * acts, 0.0 * logits, "end"
    return (
        np.where(at_start, grads_at_start, grads),
        np.where(at_start, acts, 0.0),
        np.where(at_start, logits, 0.0),
        "mixed",
    )


def estimate_memory(
    m: ModelArch, w: Workload, acc: Accelerator | None = None, stack: SoftwareStack | None = None
) -> MemoryEstimate:
    """Per-GPU memory for workload `w` of model `m` (on `acc`, whose stack adds its runtime overhead)."""
    notes: list[str] = []
    trainable = 0
    if w.method == "seed":
        parts, notes = _seed(m, w)
        parts = {k: v / (w.tp * w.pp) for k, v in parts.items()}
    elif w.training:
        parts, notes, trainable = _training(m, w)
    else:
        parts, notes = _inference(m, w, acc)
    if w.method == "default":
        parts["runtime_overhead"] = _runtime_overhead_bytes(stack)
    total = sum(parts.values())
    capacity = acc.specs.memory_gib.value * GiB if acc and acc.specs.memory_gib else None
    fits = None if capacity is None else total <= capacity
    if capacity is not None and "kv_cache_pool_unused" in parts:
        needed = total - parts["kv_cache_pool_unused"] - parts.get("runtime_overhead", 0.0)
        fits = needed <= VLLM_GPU_MEMORY_UTILIZATION * capacity
    return MemoryEstimate(
        method=w.method,
        per_gpu_bytes=total,
        breakdown_bytes=parts,
        capacity_bytes=capacity,
        fits=fits,
        headroom_bytes=None if capacity is None else capacity - total,
        trainable_params=trainable,
        notes=notes,
    )


def max_batch_that_fits(
    m: ModelArch, w: Workload, acc: Accelerator, stack: SoftwareStack | None = None, limit: int = 65536
) -> int:
    """Largest batch (concurrent sequences, or micro-batch per device) that fits; 0 if even 1 does not."""
    if acc.specs.memory_gib is None:
        return 0
    capacity = acc.specs.memory_gib.value * GiB

    def fits(b: int) -> bool:
        est = estimate_memory(m, w.model_copy(update={"batch": b}), acc, stack)
        used = est.per_gpu_bytes - est.breakdown_bytes.get("kv_cache_pool_unused", 0.0)
        return used <= capacity

    return _largest(fits, 1, limit)


def _largest(fits: Any, lo: int, limit: int) -> int:
    """Largest n in [lo, limit] with fits(n) (fits is monotone), 0 if not even lo: doubling, then bisection."""
    if not fits(lo):
        return 0
    hi = lo * 2
    while hi <= limit and fits(hi):
        lo, hi = hi, hi * 2
    hi = min(hi, limit + 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def max_context_that_fits(
    m: ModelArch, w: Workload, acc: Accelerator, stack: SoftwareStack | None = None, limit: int = 10_000_000
) -> int:
    """Longest context (inference: prompt + output tokens; training: sequence length) that fits at the
    workload's batch, at most the model's own maximum context; 0 if even 1 token does not."""
    if acc.specs.memory_gib is None:
        return 0
    if m.max_context:
        limit = min(limit, m.max_context)
    capacity = acc.specs.memory_gib.value * GiB

    def with_ctx(n: int) -> Workload:
        if w.training:
            return w.model_copy(update={"seq": n})
        return w.model_copy(update={"input": max(n - w.output, 1), "output": min(w.output, max(n - 1, 1))})

    def fits(n: int) -> bool:
        est = estimate_memory(m, with_ctx(n), acc, stack)
        return est.per_gpu_bytes - est.breakdown_bytes.get("kv_cache_pool_unused", 0.0) <= capacity

    return _largest(fits, 2, limit)
