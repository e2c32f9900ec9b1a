"""Device memory per GPU: a typed breakdown for inference and training, and whether it fits.

Two methods. `default` counts every term (below, each with its citation). `seed` reproduces the seed
articles' rules of thumb exactly: inference = params × bytes × 1.2; training = (P + G + 2·Opt) × 2 bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from suanli.estimate import xp

from pydantic import BaseModel, ConfigDict

from suanli.catalog.ranks import dies_wording, whole_cards
from suanli.catalog.schema import Accelerator, Catalog, InferenceEngine, ModelArch, SoftwareStack
from suanli.errors import InputError
from suanli.estimate import arch
from suanli.estimate.params import param_count
from suanli.estimate.precision import QUANTIZED, activation_bytes, weight_bytes_per_param
from suanli.estimate.workload import RECOMPUTE, Workload, engine_release
from suanli.i18n import Message, render
from suanli.units import GiB

__all__ = [
    "MemoryEstimate",
    "engine_predates",
    "estimate_memory",
    "keeps_prompt_logits",
    "kept_16bit_bytes",
    "keeps_rotary_cache",
    "max_batch_that_fits",
    "ep_share",
    "max_context_that_fits",
    "MEASURED_AS",
    "measured_quantity_bytes",
    "nominal_params",
    "grad_bytes_per_param",
    "needed_bytes",
    "pool_bytes",
    "prefill_chunk_tokens",
    "preallocate_fraction",
    "training_memory",
    "training_memory_terms",
    "inference_memory",
    "inference_memory_terms",
    "usable_memory_bytes",
    "training_peak",
    "weights_bytes",
]

# vLLM profiles activations with one batch of max_num_batched_tokens (vLLM default 8192 on chunked prefill).
VLLM_PROFILE_TOKENS = 8192


class MemoryEstimate(BaseModel):
    model_config = ConfigDict(frozen=True)

    method: str
    per_gpu_bytes: float
    breakdown_bytes: dict[str, float]
    capacity_bytes: float | None
    usable_bytes: float | None = None
    needed_bytes: float | None = None
    fits: bool | None
    headroom_bytes: float | None
    trainable_params: int
    # training with the optimizer offloaded to the host CPU: host RAM per node it needs (offload_host_bytes_per_node)
    host_offload_bytes_per_node: float | None = None
    notes: list[str] = []  # English (the JSON contract)
    notes_i18n: list[dict[str, Any]] = []  # the same notes as messages (`Message.to_json`), for other languages


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


def _routed_fraction(m: ModelArch) -> float:
    if m.moe is None:
        return 0.0
    total = param_count(m).total
    return arch.routed_expert_params(m) / total if total else 0.0


def ep_share_of(routed_fraction: float, ep: Any) -> Any:
    """Share of the parameters one expert-parallel rank holds: everything but the routed experts, plus 1/ep of
    those (arrays or floats)."""
    return (1.0 - routed_fraction) + routed_fraction / ep


def ep_share(m: ModelArch, ep: int) -> float:
    return float(ep_share_of(_routed_fraction(m), ep)) if ep > 1 else 1.0


def kept_16bit_bytes(m: ModelArch, precision: str) -> float:
    """Bytes of the weights a quantized checkpoint keeps in 16-bit: the embeddings and lm_head (bitsandbytes/GPTQ/AWQ
    defaults); 0 for an unquantized precision."""
    if precision not in QUANTIZED:
        return 0.0
    p = param_count(m)
    return (p.embedding + p.lm_head) * 2.0


def weights_bytes(m: ModelArch, precision: str) -> float:
    """Quantized checkpoints keep embeddings and lm_head in 16-bit (`kept_16bit_bytes`), the rest in `precision`."""
    p = param_count(m)
    kept = kept_16bit_bytes(m, precision)
    return (p.total - kept / 2.0) * weight_bytes_per_param(precision) + kept


def _seed(m: ModelArch, w: Workload) -> tuple[dict[str, float], list[Message]]:
    n = nominal_params(m)
    if w.task in ("full", "pretrain"):
        # seed-000 §2.1: (P + G + 2·Opt) × 2 bytes, i.e. 8 bytes per parameter
        return {"weights": 2 * n, "gradients": 2 * n, "optimizer": 4 * n}, []
    # seed-000 §2.1: params × precision bytes × 1.2 (KV cache etc.)
    base = n * weight_bytes_per_param(w.precision)
    notes = [Message("est.note.seed_lora")] if w.training else []
    return {"weights": base, "overhead_20pct": 0.2 * base}, notes


@dataclass(frozen=True)
class InferenceMemoryTerms:
    """Model-level inputs of the inference memory kernel, unsharded (bytes)."""

    weights_bytes: float
    routed_fraction: float
    kv_bytes_per_token: float
    kv_cache_heads: int  # heads tensor parallelism splits the cache by (arch.kv_cache_heads)
    context: float  # KV positions per layer (arch.cached_positions)
    input: int
    act_bytes_per_token: float
    score_bytes_per_seq: float
    logits_bytes_per_seq: float
    profile_tokens: float | None
    kv_previous_bytes_per_seq: float = 0.0
    prefill_chunk_tokens: float | None = None  # an engine that prefills in chunks (engines.prefill_chunk_tokens)
    kv_proj_bytes: float = 0.0  # K and V projection weights, replicated past the KV heads as the cache (arch.kv_proj_params)
    # an engine release that computes every prompt position's logits (engines.last_logits_only_from): what the end of
    # the prefill forward holds per sequence, 0 when only the last position's are computed
    prompt_logits_bytes_per_seq: float = 0.0
    # an engine release whose attention layers each keep a rotary cos/sin cache (engines.rotary_cache_per_layer_until):
    # every layer's buffers, 0 when cos/sin are computed from the positions
    rotary_cache_bytes: float = 0.0


def inference_memory_terms(m: ModelArch, w: Workload, preallocates: bool,
                           prefill_chunk: float | None = None, prompt_logits: bool = False,
                           rotary_cache: bool = False) -> InferenceMemoryTerms:
    """`prompt_logits`: the run's engine release keeps every prompt position's logits (`keeps_prompt_logits`);
    `rotary_cache`: its attention layers keep a rotary cos/sin cache each (`keeps_rotary_cache`)."""
    kv_b = weight_bytes_per_param(w.kv_dtype) if w.kv_dtype else activation_bytes(w.precision)
    act_b = activation_bytes(w.precision)
    h = m.hidden_size or 0
    # transformers before 4.45 (transformers-num-logits-to-keep): `logits = self.lm_head(hidden_states)` over every
    # prompt position, then `logits = logits.float()`, so the 16-bit output and its fp32 copy are alive together (a
    # no-op in fp32: 4 bytes), beside the final norm's output that lm_head read
    head_b = act_b + 4.0 if act_b < 4.0 else 4.0
    return InferenceMemoryTerms(
        weights_bytes=weights_bytes(m, w.precision),
        routed_fraction=_routed_fraction(m),
        kv_bytes_per_token=arch.kv_cache_bytes_per_token(m, kv_b, w.engine),
        # tp ranks split the cache by KV heads, at least one per rank (arch.kv_cache_share_per_rank); MLA's latent
        # is one head, whole on every rank
        kv_cache_heads=arch.kv_cache_heads(m, w.engine),
        # sliding-window layers cache at most their window (arch.cached_positions: mean positions per layer)
        context=arch.cached_positions(m, w.context),
        input=w.input,
        # prefill transient: hidden states (residual, norm output) + one MLP's gate/up/product, per token
        act_bytes_per_token=(3 * h + 3 * arch.ffn_width_active(m)) * act_b,
        score_bytes_per_seq=0.0 if w.flash_attention else (m.num_attention_heads or 0) * w.input**2 * act_b,
        # generate() keeps only the last position's logits, upcast to fp32 (transformers logits_to_keep=1)
        logits_bytes_per_seq=(m.vocab_size or 0) * 4.0,
        profile_tokens=VLLM_PROFILE_TOKENS if preallocates else None,
        # a legacy tuple cache grows by torch.cat (new tensor of n + 1 positions per layer) and the new tuple is built
        # while generate() still passes and holds the previous step's tuple (Qwen 1 modeling_qwen.py QWenAttention:
        # `key = torch.cat((past_key, key), dim=1)`, `present = (key, value)`), so the last decode step holds the
        # previous cache, context − 1 positions, beside the new one; transformers' DynamicCache rebinds each layer
        # and frees the old tensor at once (cache_utils.py DynamicLayer.update)
        kv_previous_bytes_per_seq=arch.kv_cache_bytes_per_token(m, kv_b, w.engine) * (w.context - 1)
        if w.legacy_kv_cache and w.output > 1 else 0.0,
        prefill_chunk_tokens=prefill_chunk,
        kv_proj_bytes=arch.kv_proj_params(m) * weight_bytes_per_param(w.precision),
        prompt_logits_bytes_per_seq=w.input * ((m.vocab_size or 0) * head_b + h * act_b) if prompt_logits else 0.0,
        # transformers' Qwen2 before 4.45 (transformers-qwen2-rotary-cache): cos_cached and sin_cached of
        # max_position_embeddings x head_dim in every attention layer, in the load dtype (the default dtype while
        # from_pretrained builds the model), re-registered at a longer sequence when one comes
        rotary_cache_bytes=(m.num_layers or 0) * 2.0 * max(m.max_context or 0, w.context) * arch.head_dim(m) * act_b
        if rotary_cache else 0.0,
    )


def inference_memory(t: InferenceMemoryTerms, tp: Any, pp: Any, ep: Any, batch: Any,
                     pool_bytes: Any = None) -> dict[str, Any]:
    """Per-device inference memory over arrays of layouts (floats work too). `pool_bytes`: memory a
    pre-allocating engine reserves (fraction × capacity); its unused KV pool is reported as its own item."""
    shard = tp * pp
    kv_share = arch.kv_cache_share_per_rank(t.kv_cache_heads, tp) / pp  # replicated past the KV heads
    # a rank holds its KV heads' K/V projections whole, replicated past the KV heads as the cache (arch.kv_proj_params)
    weights = t.weights_bytes / shard * ep_share_of(t.routed_fraction, ep) + t.kv_proj_bytes * (kv_share - 1 / shard)
    kv = t.kv_bytes_per_token * t.context * batch * kv_share
    tokens = batch * t.input if t.profile_tokens is None else xp.minimum(batch * t.input, t.profile_tokens)
    # unfused attention scores, heads x queries x keys: the whole prompt at once is context² per sequence; an engine
    # that prefills in chunks (vLLM max_num_batched_tokens, vllm-chunked-prefill-default) holds one step's at most,
    # chunk queries against the prompt's keys
    scores = batch * t.score_bytes_per_seq if t.prefill_chunk_tokens is None else (
        t.score_bytes_per_seq / max(t.input, 1) * xp.minimum(t.prefill_chunk_tokens, batch * t.input))
    act = tokens * t.act_bytes_per_token / tp + scores / tp
    logits = batch * t.logits_bytes_per_seq
    if t.prompt_logits_bytes_per_seq:
        # every prompt position's logits exist at the end of the prefill forward, when the layers' transients (the
        # activations item) are freed: the item is what they add beyond those, at least the last position's
        logits = xp.maximum(batch * t.prompt_logits_bytes_per_seq - act, logits)
    parts: dict[str, Any] = {"weights": weights, "kv_cache": kv, "activations": act, "logits": logits}
    if t.kv_previous_bytes_per_seq:
        # the previous step's cache is alive at the last decode step, when the prefill transients are gone
        parts["kv_cache_previous_step"] = xp.maximum(t.kv_previous_bytes_per_seq * batch * kv_share - act, 0.0)
    if t.rotary_cache_bytes:
        # buffers of each layer, whole on every tensor-parallel rank, split by pipeline stage like the layers
        parts["rotary_cache"] = t.rotary_cache_bytes / pp
    if pool_bytes is not None:
        parts["kv_cache_pool_unused"] = xp.maximum(pool_bytes - weights - act - logits - kv, 0.0)
    return parts


def _inference(m: ModelArch, w: Workload, acc: Accelerator | None, prealloc: float | None,
               chunk: float | None = None, last_logits_from: str | None = None,
               rotary_until: str | None = None, dies: int = 1,
               runtime: float = 0.0) -> tuple[dict[str, float], list[Message]]:
    """`last_logits_from`: the engine release from which only the last prompt position's logits are computed, given
    when the run's release is older (`keeps_prompt_logits`); `rotary_until`: the release from which the attention
    layers keep no rotary cache, given when the run's is older (`keeps_rotary_cache`); `dies`: the dies of the card
    `acc` is one rank of (the 910C: 2), whose notes say a die's share and a replica's cards with their dies.
    `runtime`: the stack's runtime reserve (the `runtime_overhead` item), which a pre-allocated pool holds (`pool_bytes`),
    so the KV cache gets the pool less it and the tensors."""
    if m.kind == "diffusion":
        weights = weights_bytes(m, w.precision) / (w.tp * w.pp)
        return {"weights": weights}, [Message("est.note.diffusion_weights")]
    notes: list[Message] = []
    pool = None
    if prealloc is not None and acc is not None and acc.specs.memory_gib is not None:
        pool = prealloc * acc.specs.memory_gib.value * GiB
    t = inference_memory_terms(m, w, prealloc is not None, chunk, last_logits_from is not None, rotary_until is not None)
    # the pool holds the runtime reserve too (`pool_bytes`): the tensors and the unused KV pool share the rest
    parts = {k: float(v) for k, v in inference_memory(t, w.tp, w.pp, w.ep, w.batch,
                                                      None if pool is None else pool - runtime).items()}
    if last_logits_from is not None:
        notes.append(Message("est.note.prompt_logits", engine=w.engine, version=w.engine_version, first=last_logits_from,
                             gib=parts["logits"] / GiB))
    if rotary_until is not None:
        notes.append(Message("est.note.rotary_cache", engine=w.engine, version=w.engine_version, first=rotary_until,
                             layers=m.num_layers, positions=int(max(m.max_context or 0, w.context)),
                             gib=parts["rotary_cache"] / GiB))
    if w.ep > 1 and m.moe is not None:  # what --batch means with expert parallel (speed.inference_step)
        # what one card holds is the weights item memory counted for it (`inference_memory`: its tp·pp slice of the
        # dense weights and of 1/ep of the routed experts), not the replica's share (`ep_share`), tp times more
        notes.append(Message(dies_wording("est.note.serve_expert_parallel", dies), ep=w.ep, tp=w.tp,
                             share=parts["weights"] / t.weights_bytes, batch=w.batch, group=w.ep * w.batch,
                             **({"cards": whole_cards(w.tp * w.pp, dies)} if dies > 1 else {})))
    n_sw = arch.sliding_layers(m)
    if n_sw and m.sliding_window is not None and w.context > m.sliding_window:
        full_kv = parts["kv_cache"] * w.context / t.context
        notes.append(Message("est.note.sliding_window", n=n_sw, layers=m.num_layers, window=m.sliding_window,
                             full_gib=full_kv / GiB, gib=parts["kv_cache"] / GiB))
    if pool is not None:
        free_for_kv = pool - runtime - parts["weights"] - parts["activations"] - parts["logits"]
        notes.append(Message("est.note.prealloc", engine=w.engine, fraction=prealloc,
                             pool_gib=max(free_for_kv, 0) / GiB, gib=parts["kv_cache"] / GiB))
    return parts, notes


@dataclass(frozen=True)
class TrainingMemoryTerms:
    """Model-level inputs of the training memory kernel for one task and precision, unsharded (bytes)."""

    seq: int
    weights_bytes: float
    trainable: int
    grads_bytes: float
    optimizer_bytes: float
    head_grad_bytes: float
    routed_fraction: float
    act_bytes_per_token_layer: tuple[float, float, float]
    logits_bytes_per_token: float
    layers: int
    offload_optimizer: bool
    # the trainable parameters' gradients accumulated unsharded in fp32 (FSDP2's reduce dtype under pipelining)
    unsharded_grads_bytes: float = 0.0
    # FSDP1 units that mix frozen and LoRA weights: the gradient of every wrapped unit's whole parameters (workload
    # fsdp_mixed_units; 0 when not set)
    mixed_unit_grads_bytes: float = 0.0


def storage_precision(precision: str) -> str:
    """Training keeps weights and gradients in 16-bit under FP8: Transformer Engine / torchao cast to FP8 per
    GEMM and keep bf16 weights (Micikevicius et al. 2022, 'FP8 Formats for Deep Learning', §4)."""
    return "bf16" if precision == "fp8" else precision


_OPTIMIZER_BYTES_PER_PARAM = {"adamw": 8.0, "adamw8bit": 2.0, "sgd": 4.0, "adafactor": 0.0}


def grad_bytes_per_param(cat: Catalog | None, w: Workload) -> float:
    """Bytes per parameter of full training's gradients, in memory and in the data-parallel reduce alike: the
    framework's gradient buffer where its catalog row says it differs from the weights (frameworks.yaml
    bf16_grad_bytes_per_param: Megatron-Core, NeMo and MindSpeed-LLM keep main_grad in fp32 under bf16 and reduce it
    in fp32, megatron-grad-fp32), else the weights' storage bytes (ZeRO paper §3.1: 2Ψ fp16 gradients). The one place
    both the memory kernel and the training step kernel read it."""
    prec = storage_precision(w.precision)
    fw = next((f for f in cat.frameworks if f.id == w.framework), None) if cat is not None and w.framework else None
    if prec == "bf16" and fw is not None and fw.bf16_grad_bytes_per_param is not None:
        return fw.bf16_grad_bytes_per_param
    return weight_bytes_per_param(prec)


def _lora_input_width(m: ModelArch, targets: str) -> float:
    """Summed input width of the linears LoRA adapts in one layer, per token (as arch.lora_params counts them:
    separate q, k, v, o; a fused QKV projection, Qwen 1 c_attn, has one h-wide input where this counts 3h + a·d)."""
    h = float(m.hidden_size or 0)
    attn_out = float((m.num_attention_heads or 0) * arch.head_dim(m))
    if targets == "q,v":
        return 2 * h
    width = 3 * h + attn_out
    if targets == "all-linear":
        f = float(arch.ffn_width_active(m))
        experts = f / m.moe.expert_intermediate_size if m.moe is not None and m.moe.expert_intermediate_size else 1.0
        width += (2 if m.ffn_gated else 1) * h * experts + f
    return width


def training_memory_terms(m: ModelArch, w: Workload, cat: Catalog | None = None) -> TrainingMemoryTerms:
    """`cat` supplies the framework's gradient bytes (`grad_bytes_per_param`); without it, the weights' bytes."""
    arch.require_llm(m, f"task {w.task}")
    p = param_count(m)
    prec = storage_precision(w.precision)
    act_b = activation_bytes(w.precision)
    if w.task in ("lora", "qlora"):
        trainable = arch.lora_params(m, w.lora_rank, w.lora_targets)
        # PEFT keeps adapter weights in fp32 (autocast_adapter_dtype=True): weight 4 + grad 4 + Adam 8 bytes
        weights = weights_bytes(m, "nf4" if w.task == "qlora" else prec) + trainable * 4.0
        grads = trainable * 4.0
        optimizer = trainable * {"adamw": 8.0, "adamw8bit": 2.0, "sgd": 4.0, "adafactor": 4.0}[w.optimizer]
        head = 0.0
    else:
        trainable = p.total
        # ZeRO paper (Rajbhandari et al. 2020) §3.1: mixed-precision Adam keeps 2Ψ fp16 weights, 2Ψ fp16 grads
        # and KΨ optimizer states with K = 12 (fp32 master weights, momentum, variance).
        # pure bf16 training (torchtune single-device recipes, `master_weights` False) keeps no fp32 copy
        master = 4.0 if prec != "fp32" and w.master_weights else 0.0
        weights = p.total * weight_bytes_per_param(prec)
        # gradients in the framework's buffer dtype: fp32 main_grad under Megatron-family bf16 (megatron-grad-fp32),
        # not sharded by their distributed optimizer (ZeRO 1: dist_optimizer.md's 6 + 12/d bytes for bf16 + fp32 grads)
        grad_b = grad_bytes_per_param(cat, w)
        grads = p.total * grad_b
        optimizer = p.total * (master + _OPTIMIZER_BYTES_PER_PARAM[w.optimizer])
        # gradients alive when backward starts: the lm_head's (the first weight gradient produced)
        head = (p.lm_head or p.embedding) * grad_b
        if w.optimizer_in_backward:
            # the step runs in each parameter's gradient hook and frees the gradient (torchtune optimizer_in_bwd,
            # PyTorch "How to save memory by fusing the optimizer step into the backward pass"): at most the
            # largest matrix's gradient, the vocabulary one, is alive at a time
            grads = head
    per_tok = tuple(
        arch.activation_bytes_per_token_per_layer(m, act_b, r, w.flash_attention, w.seq) for r in RECOMPUTE
    )
    if w.task == "qlora" and w.bnb_saves_inputs:
        # bitsandbytes MatMul4Bit.forward keeps the 4-bit linear's input for backward whenever input or weight needs a
        # gradient (bitsandbytes autograd/_functions.py: `if any(ctx.needs_input_grad[:2]): ctx.tensors = (A, B)`),
        # where a frozen 16-bit nn.Linear keeps none of its input (its weight needs no gradient): beyond the same
        # LoRA in bf16, each layer holds the inputs of its quantized linears, QKV and gate/up sharing theirs: h, a·d,
        # h and the down projection's f (lm_head stays 16-bit, weights_bytes); inside a layer, so full recomputation
        # holds them only for the layer it recomputes
        qin = ((m.hidden_size or 0) * 2 + (m.num_attention_heads or 0) * arch.head_dim(m)
               + arch.ffn_width_active(m)) * act_b
        per_tok = tuple(x + qin for x in per_tok[:2]) + per_tok[2:]
    if w.task in ("lora", "qlora") and w.lora_dropout:
        # PEFT LoRA Linear.forward: `result + lora_B(lora_A(dropout(x))) * scaling`, dropout = nn.Dropout(p) when
        # lora_dropout > 0 (else nn.Identity) (huggingface/peft src/peft/tuners/lora/layer.py); ms-swift 1.x defaults
        # lora_dropout_p = 0.05 (modelscope/ms-swift swift/llm/utils/argument.py@003f77b SftArguments). Each adapted
        # linear keeps a new tensor for backward, its dropped-out input (saved by lora_A, whose weight needs a gradient,
        # act bytes), and torch's native_dropout keeps the bool mask (1 byte) a element, one per adapter even where
        # adapters share an input; inside a layer, so full recomputation holds it only for the layer it recomputes
        per_tok = tuple(x + _lora_input_width(m, w.lora_targets) * (act_b + 1.0) for x in per_tok[:2]) + per_tok[2:]
    mixed = 0.0
    if w.task in ("lora", "qlora") and w.fsdp_mixed_units:
        # FSDP1 with use_orig_params mixes frozen and LoRA weights in one FlatParameter: its gradient has the unit's
        # whole numel (PyTorch fsdp/_wrap_utils.py warning, quoted in Lightning-AI/litgpt#1538: '1451376640 numel
        # instead of 106496 numel before sharding via reduce-scatter'; FSDP docs: 'equivalent to not freezing those
        # parameters'), in the weights' dtype; every decoder layer is such a unit, the root (embedding, final norm,
        # lm_head) is all frozen and gets none
        mixed = (p.total - p.embedding - p.lm_head) * weight_bytes_per_param(prec) + trainable * 4.0
    return TrainingMemoryTerms(
        seq=w.seq,
        weights_bytes=weights,
        trainable=trainable,
        grads_bytes=grads,
        optimizer_bytes=optimizer,
        head_grad_bytes=head,
        routed_fraction=_routed_fraction(m),
        act_bytes_per_token_layer=(per_tok[0], per_tok[1], per_tok[2]),
        # an unchunked loss peaks in its backward with three fp32 vocabulary-wide tensors per token, whatever the
        # compute dtype: the saved log-softmax output, its incoming gradient and its result, 12 bytes (torch
        # log_softmax_backward; transformers' ForCausalLMLoss and Qwen 1's remote loss upcast to fp32, the latter
        # under autocast): measured 12.0 bytes in fp32 and bf16 alike (cpu_measured.yaml, `logits` of every
        # training case). A chunked loss (torchtune CEWithChunkedOutputLoss) keeps the compute-dtype logits and
        # upcasts one chunk at a time, so only 8 / chunks of the fp32 bytes stay
        logits_bytes_per_token=(m.vocab_size or 0) * (12.0 if w.loss_chunks == 1 else act_b + 8.0 / w.loss_chunks),
        layers=m.num_layers or 0,
        # paged states (bitsandbytes paged optimizers, CUDA unified memory) leave the device under pressure and are
        # not in the framework's device peak, like offloaded ones
        offload_optimizer=w.offload_optimizer or w.paged_optimizer,
        unsharded_grads_bytes=trainable * 4.0,
        mixed_unit_grads_bytes=mixed,
    )


# Host memory an offloaded optimizer needs per node: DeepSpeed's own estimator (deepspeedai/DeepSpeed
# deepspeed/runtime/zero/stage3.py estimate_zero3_model_states_mem_needs, offload_optimizer cpu, offload_param none,
# zero_init: cpu_mem = P × 16 × (1 / nodes) × additional_buffer_factor; stage_1_and_2.py
# estimate_zero2_model_states_mem_needs, cpu_offload: cpu_mem = P × max(4 × total_gpus, 16) × additional_buffer_factor;
# the DeepSpeed docs "Memory Requirements" page, read 2026-12-01): 16 bytes per parameter are the fp32 master weights,
# momentum, variance and gradients held in host memory, and 1.5 DeepSpeed's default additional_buffer_factor
OFFLOAD_HOST_BYTES_PER_PARAM = 16.0
OFFLOAD_HOST_BUFFER_FACTOR = 1.5


def offload_host_bytes_per_node(params: Any, gpus: Any, cards_per_node: Any, zero: Any) -> Any:
    """Host RAM per node for the optimizer offloaded to the CPU (DeepSpeed ZeRO-Offload) of `params` trainable
    parameters on `gpus` cards, `cards_per_node` a node (floats or numpy arrays alike): ZeRO-3 spreads the states
    over the nodes; DeepSpeed's ZeRO-1/2 estimator does not, and counts each rank's fp32 copy while loading."""
    nodes = xp.ceil(xp.asarray(gpus, dtype=float) / xp.maximum(cards_per_node, 1))
    per_param = xp.where(xp.asarray(zero) >= 3, OFFLOAD_HOST_BYTES_PER_PARAM / xp.maximum(nodes, 1),
                         xp.maximum(4.0 * xp.asarray(gpus, dtype=float), OFFLOAD_HOST_BYTES_PER_PARAM))
    return params * per_param * OFFLOAD_HOST_BUFFER_FACTOR


def training_memory(t: TrainingMemoryTerms, tp: Any, pp: Any, dp: Any, ep: Any, zero: Any, recompute: Any,
                    batch: Any, grad_accum: Any, vpp: Any = 1, cp: Any = 1) -> dict[str, Any]:
    """Per-device training memory over arrays of layouts (floats work too); `recompute` indexes RECOMPUTE. `dp`
    counts model replicas; ZeRO shards over the dp × cp ranks that hold the same weights (Megatron-Core's
    data-parallel group with context parallelism)."""
    shard = tp * pp
    dp = dp * cp
    share = ep_share_of(t.routed_fraction, ep)
    # ZeRO / FSDP shard whatever they hold, frozen LoRA base weights included (ZeRO-3 = FSDP full shard);
    # expert parallelism holds 1/ep of the routed experts, with their gradients and states (states ZeRO already
    # shards over the dp ranks are not divided again: ep ranks are dp ranks)
    # ZeRO-3 / FSDP under pipeline parallelism (torch.distributed.pipelining over FSDP2, as torchtitan runs it): every
    # micro-batch's backward runs with set_reshard_after_backward(False) and set_requires_gradient_sync(False), so the
    # stage's parameters stay gathered and its gradients stay unsharded, accumulated in the fp32 reduce dtype, until
    # the one reduce-scatter after the last micro-batch (pytorch stage.py backward_maybe_with_nosync, _fsdp_param.py
    # to_accumulated_grad_if_needed; torchtitan apply_fsdp: reshard_after_forward = not pp_enabled): only the fp32
    # master weights and optimizer states stay sharded at the peak
    fsdp_pp = xp.logical_and(xp.asarray(zero) >= 3, xp.logical_and(xp.asarray(pp) > 1, xp.asarray(dp) > 1))
    weights = t.weights_bytes / shard * xp.where((zero >= 3) & xp.logical_not(fsdp_pp), 1 / dp, share)
    grads = xp.where(fsdp_pp, t.unsharded_grads_bytes / shard * share,
                     t.grads_bytes / shard * xp.where(zero >= 2, 1 / dp, share))
    if t.mixed_unit_grads_bytes:
        # FSDP1 (zero 2/3) units mixing frozen and LoRA weights: their whole-numel gradient is reduce-scattered to 1/dp
        # per unit, but under no_sync, the gradient accumulation of every micro-batch but the last (Lightning Fabric
        # no_backward_sync -> FullyShardedDataParallel.no_sync), FSDP 'will accumulate the full model gradients
        # (instead of gradient shards) until the eventual sync' (torch FullyShardedDataParallel.no_sync docstring)
        grads = xp.where(zero >= 2, t.mixed_unit_grads_bytes / shard * xp.where(grad_accum > 1, 1.0, 1 / dp), grads)
    optimizer = t.optimizer_bytes / shard * xp.where(zero >= 1, 1 / dp, share)
    if t.offload_optimizer:
        optimizer = optimizer * 0.0
    head = t.head_grad_bytes / shard * xp.where((zero >= 2) & xp.logical_not(fsdp_pp), 1 / dp, 1.0)
    # gradient accumulation: autograd adds each micro-batch's gradients into the `.grad` tensors, which are cleared
    # only after the optimizer step (PyTorch autograd accumulates into `.grad`; HF Trainer `training_step` /
    # `model.zero_grad()` after `optimizer.step()`), so from the second micro-batch on every gradient is alive when
    # backward starts, beside the activations and the loss's logits
    head = xp.where(grad_accum > 1, grads, head)
    per_tok = xp.take(t.act_bytes_per_token_layer, recompute)
    # 1F1B pipeline: the first stage holds min(pp, micro-batches) micro-batches of its L/pp layers
    # (Korthikanti et al. 2022 §4.2.3); tensor + sequence parallel divide activations by t (§4.2.2).
    # The interleaved schedule holds (1 + (p − 1)/(p·v)) times as much (ibid. §4.2.3, with v model chunks per device).
    # Context parallelism splits every sequence over cp ranks: each holds the activations of seq/cp tokens.
    in_flight = xp.where(pp > 1, xp.minimum(pp, grad_accum), 1)
    interleave = xp.where(vpp > 1, 1 + (pp - 1) / (pp * vpp), 1.0)
    acts = batch * (t.seq / cp) * per_tok * (t.layers / pp) * in_flight * interleave / tp
    # full recomputation: one layer is recomputed at a time and holds its full activations during its backward
    acts = acts + xp.where(recompute == RECOMPUTE.index("full"),
                           batch * (t.seq / cp) * t.act_bytes_per_token_layer[0] / tp, 0.0)
    logits = batch * (t.seq / cp) * t.logits_bytes_per_token / tp
    g, a, lg, _ = training_peak(grads, head, acts, logits)
    return {"weights": weights, "gradients": g, "optimizer": optimizer, "activations": a, "logits": lg}


def _training(m: ModelArch, w: Workload, cat: Catalog | None = None,
              dies: int = 1) -> tuple[dict[str, float], list[Message], int]:
    t = training_memory_terms(m, w, cat)
    parts = training_memory(t, w.tp, w.pp, w.dp, w.ep, w.zero, RECOMPUTE.index(w.recompute), w.batch, w.grad_accum,
                            vpp=w.vpp, cp=w.cp)
    out = {k: float(v) for k, v in parts.items()}
    notes: list[Message] = []
    if w.optimizer == "adafactor" and w.task not in ("lora", "qlora"):
        notes.append(Message("est.note.adafactor"))
    if w.ep > 1:  # the share of the weights one card holds, as the weights item counts it (`training_memory`)
        notes.append(Message(dies_wording("est.note.expert_parallel", dies), ep=w.ep,
                             share=out["weights"] / t.weights_bytes))
    if w.offload_optimizer:
        notes.append(Message("est.note.offload"))
    if w.paged_optimizer:
        notes.append(Message("est.note.paged_optimizer"))
    if w.optimizer_in_backward:
        notes.append(Message("est.note.optimizer_in_backward"))
    if w.precision == "fp8":
        notes.append(Message("est.note.fp8_training"))
    if w.task not in ("lora", "qlora") and w.framework and (grad_b := grad_bytes_per_param(cat, w)) != \
            weight_bytes_per_param(storage_precision(w.precision)):
        notes.append(Message("est.note.grads_fp32", framework=w.framework, bytes=grad_b))
    start = out["activations"] > 0 or out["logits"] > 0
    notes.append(Message("est.note.peak_start" if start else "est.note.peak_end"))
    return out, notes, t.trainable


def training_peak(grads: Any, grads_at_start: Any, acts: Any, logits: Any) -> tuple[Any, Any, Any, str]:
    """Which of two moments of a training step holds more memory (floats or numpy arrays alike).

    At the start of backward every activation and the loss's logits are alive but only the first weight
    gradients exist; at its end every gradient exists and the activations are freed (autograd frees each
    saved tensor once its layer's backward ran). Returns (gradients, activations, logits) alive at the peak
    and the phase ('start' or 'end'; 'mixed' for arrays)."""
    start = acts + logits + grads_at_start
    at_start = start >= grads
    if xp.ndim(at_start) == 0:
        if at_start:
            return grads_at_start, acts, logits, "start"
        return grads, 0.0 * acts, 0.0 * logits, "end"
    return (
        xp.where(at_start, grads_at_start, grads),
        xp.where(at_start, acts, 0.0),
        xp.where(at_start, logits, 0.0),
        "mixed",
    )


def preallocate_fraction(cat: Catalog | None, engine: str) -> float | None:
    """Share of device memory `engine` reserves up front (catalog engines.preallocate_fraction); None when it
    allocates on demand or no catalog is given."""
    if cat is None:
        return None
    e = next((x for x in cat.engines if x.id == engine), None)
    return e.preallocate_fraction.value if e is not None and e.preallocate_fraction is not None else None


def prefill_chunk_tokens(cat: Catalog | None, engine: str) -> float | None:
    """Tokens one prefill step of `engine` processes at most (catalog engines.prefill_chunk_tokens); None when it
    prefills the whole prompt at once or no catalog is given."""
    if cat is None:
        return None
    e = next((x for x in cat.engines if x.id == engine), None)
    return float(e.prefill_chunk_tokens.value) if e is not None and e.prefill_chunk_tokens is not None else None


def _engine_row(cat: Catalog | None, engine: str) -> InferenceEngine | None:
    return next((x for x in cat.engines if x.id == engine), None) if cat is not None else None


def engine_predates(cat: Catalog | None, w: Workload, first_release_field: str) -> bool:
    """The run's engine release (Workload.engine_version) is older than the release its catalog row names in
    `first_release_field` (InferenceEngine.gqa_decode_kernel_from, last_logits_only_from); a workload without a release
    (the planner's, or a case that states none) runs the current one."""
    engine = _engine_row(cat, w.engine)
    first = getattr(engine, first_release_field) if engine is not None else None
    if first is None or w.engine_version is None:
        return False
    return engine_release(w.engine_version) < engine_release(first)


def keeps_prompt_logits(cat: Catalog | None, w: Workload) -> bool:
    """Inference on an engine release that computes every prompt position's logits in the prefill
    (InferenceEngine.last_logits_only_from: transformers before 4.45)."""
    return not w.training and engine_predates(cat, w, "last_logits_only_from")


def keeps_rotary_cache(cat: Catalog | None, m: ModelArch, w: Workload) -> bool:
    """Inference on an engine release whose attention layers each keep a rotary cos/sin cache, for a model family whose
    code in that engine was read (InferenceEngine.rotary_cache_per_layer_until / _families: transformers' Qwen2 before
    4.45)."""
    engine = _engine_row(cat, w.engine)
    return (not w.training and engine is not None and m.family in engine.rotary_cache_per_layer_families
            and engine_predates(cat, w, "rotary_cache_per_layer_until"))


def usable_memory_bytes(capacity_bytes: Any, fragmentation: float, prealloc: float | None) -> Any:
    """The one fits rule of estimate and plan. A pre-allocating engine may fill its reserved share of the card
    (vLLM gpu_memory_utilization); everything else the card less the caching allocator's fragmentation margin
    (stack.allocator_fragmentation: GMLake's average fragmentation reduction, gmlake-2024, a lower bound on what
    PyTorch's allocator loses; the runs that measured that loss, 34-36 %, are listed beside it). The runtime reserve is an item of the breakdown, so a plan
    fits when needed ≤ capacity × (1 − fragmentation), i.e. usable = capacity − runtime − fragmentation. Read as
    needed / (1 − fragmentation) ≤ capacity, this is `measured_quantity_bytes`' reserved = allocated / (1 − f)
    (GMLake's fragmentation ratio, 1 − peak active / peak reserved): the breakdown holds no fragmentation term,
    so the margin is applied once (no double counting)."""
    if prealloc is not None:
        return capacity_bytes * prealloc
    return capacity_bytes * (1.0 - fragmentation)


# What a published memory figure counts (validation cases' `measured_as`): `allocated` the tensors alive
# (torch.cuda.max_memory_allocated, or an exact tensor count), `reserved` the caching allocator's pool
# (torch.cuda.max_memory_reserved), `device` the card's used memory (nvidia-smi / npu-smi: the pool plus the
# runtime's context), `unknown` the source does not say
MEASURED_AS = ("allocated", "reserved", "device", "unknown")


def measured_quantity_bytes(tensor_bytes: Any, fragmentation: float, runtime_bytes: Any, measured_as: str,
                            preallocated: bool = False) -> Any:
    """The estimate in the quantity a measurement counts, from the tensor need (the breakdown without the runtime
    item): `allocated` (and `unknown`, scored as the need, the estimate's own quantity) the need itself; `reserved`
    the need over (1 − fragmentation): GMLake defines the fragmentation ratio as 1 − peak active / peak reserved
    memory (intelligent-machine-learning/glake:GMLake/README.md, 'Training Performence Evaluation'; gmlake-2024),
    so reserved = allocated / (1 − f), with f the stack's allocator_fragmentation (the fits margin: a lower bound on
    PyTorch's loss, so a reserved figure scored this way reads low, most with sequences of varying length, which
    the training estimate's note says); `device` that plus the stack's
    runtime reserve (runtime_overhead_gib: CUDA context and loaded kernels, outside the allocator's pool). A
    pre-allocating engine (`preallocated`: vLLM's gpu_memory_utilization) reserves its pool whole: the need
    already holds the pool (kv_cache_pool_unused), so no fragmentation is added.

    The planner's fits rule is the same relation read the other way: `usable_memory_bytes` lets a plan's need
    (runtime item included) fill capacity × (1 − f), i.e. need / (1 − f) ≤ capacity: the need carries no
    fragmentation term of its own, so the margin is counted once, not twice; it charges the runtime item the
    margin too, a conservative runtime × f / (1 − f) (0.09 GiB on CUDA) beyond this function's `device` figure."""
    if measured_as not in MEASURED_AS:
        raise InputError("measured_as", Message("err.must_be_one_of_got", names_layout_values=", ".join(MEASURED_AS),
                                                v=measured_as))
    if measured_as in ("allocated", "unknown"):
        return tensor_bytes
    reserved = tensor_bytes if preallocated else tensor_bytes / (1.0 - fragmentation)
    return reserved + runtime_bytes if measured_as == "device" else reserved


def stack_fragmentation(stack: SoftwareStack | None) -> float:
    return stack.allocator_fragmentation.value if stack is not None and stack.allocator_fragmentation else 0.0


def pool_bytes(parts: dict[str, Any]) -> float | None:
    """A pre-allocated pool (vLLM gpu_memory_utilization × the card) as the breakdown fills it: every item, the
    runtime reserve (`runtime_overhead`: CUDA context and kernels, CANN's driver reserve) and the unused KV pool
    included; None without a pool. vLLM sizes its KV cache as gpu_memory_utilization × the card's total memory less
    the profiled peak of torch's tensors and every byte on the device outside torch's allocator
    (`non_torch_allocations`, the runtime's included: vllm-project/vllm vllm/v1/worker/gpu_worker.py and
    vllm-project/vllm-ascend vllm_ascend/worker/worker_v1.py `determine_available_memory`), so the runtime sits in the
    pool: the one rule `estimate_memory` fits by (needed, runtime included, ≤ usable = the pool) and the card holds
    the pool, no more, when the workload fits. (vLLM releases that snapshot free memory after the CUDA context exists,
    `requested_memory`, leave the context beside the pool: for them this is conservative by the runtime item.)"""
    if "kv_cache_pool_unused" not in parts:
        return None
    return float(sum(parts.values()))


def needed_bytes(parts: dict[str, Any]) -> Any:
    """What must fit: every item but the unused part of a pre-allocated KV pool."""
    total = sum(parts.values())
    return total - parts.get("kv_cache_pool_unused", 0.0)


def estimate_memory(
    m: ModelArch, w: Workload, acc: Accelerator | None = None, stack: SoftwareStack | None = None,
    cat: Catalog | None = None, dies: int = 1,
) -> MemoryEstimate:
    """Per-GPU memory for workload `w` of model `m` (on `acc`, whose stack adds its runtime overhead and
    fragmentation margin; `cat` supplies the engine's pre-allocation). `acc` is one rank; `dies`: the dies of its card
    (`catalog.ranks.dies_per_card`, the 910C: 2), for the notes' wording (a die's share, cards with their dies)."""
    notes: list[Message] = []
    trainable = 0
    prealloc = preallocate_fraction(cat, w.engine) if not w.training and w.method == "default" else None
    if w.method == "seed":
        parts, notes = _seed(m, w)
        parts = {k: v / (w.tp * w.pp) for k, v in parts.items()}
    elif w.training:
        parts, notes, trainable = _training(m, w, cat, dies)
    else:
        row = _engine_row(cat, w.engine)
        last_from = row.last_logits_only_from if row is not None and keeps_prompt_logits(cat, w) else None
        rotary_until = row.rotary_cache_per_layer_until if row is not None and keeps_rotary_cache(cat, m, w) else None
        parts, notes = _inference(m, w, acc, prealloc, prefill_chunk_tokens(cat, w.engine), last_from, rotary_until,
                                  dies, _runtime_overhead_bytes(stack) if w.method == "default" else 0.0)
    host = None
    if w.training and w.offload_optimizer and w.method == "default":
        # no offer states its host memory: the figure is said, never checked (plan warns the same)
        host = float(offload_host_bytes_per_node(trainable, w.gpus, acc.max_cards_per_node if acc else w.gpus, w.zero))
        notes.append(Message("est.note.offload_host", gib=host / GiB))
    if w.method == "default":
        parts["runtime_overhead"] = _runtime_overhead_bytes(stack)
    if w.training and w.method == "default" and stack is not None and stack.allocator_conf_env is not None:
        # the fits margin is a lower bound, far exceeded with sequences of varying length (stacks.yaml's
        # allocator_fragmentation rows; torchtune#1185): name the allocator setting that avoids it
        notes.append(Message("est.note.allocator_varlen", pct=stack_fragmentation(stack),
                             env=stack.allocator_conf_env.value))
    total = sum(parts.values())
    capacity = acc.specs.memory_gib.value * GiB if acc and acc.specs.memory_gib else None
    usable = None
    fits = None
    if capacity is not None:
        frag = stack_fragmentation(stack) if w.method == "default" else 0.0
        usable = float(usable_memory_bytes(capacity, frag, prealloc if "kv_cache_pool_unused" in parts else None))
        fits = bool(needed_bytes(parts) <= usable)
    return MemoryEstimate(
        method=w.method,
        per_gpu_bytes=total,
        breakdown_bytes=parts,
        capacity_bytes=capacity,
        usable_bytes=usable,
        needed_bytes=float(needed_bytes(parts)),
        fits=fits,
        headroom_bytes=None if usable is None else usable - float(needed_bytes(parts)),
        trainable_params=trainable,
        host_offload_bytes_per_node=host,
        notes=[render(n) for n in notes],
        notes_i18n=[n.to_json() for n in notes],
    )


def max_batch_that_fits(
    m: ModelArch, w: Workload, acc: Accelerator, stack: SoftwareStack | None = None, limit: int = 65536,
    cat: Catalog | None = None,
) -> int:
    """Largest batch (concurrent sequences, or micro-batch per device) that fits; 0 if even 1 does not."""
    if acc.specs.memory_gib is None:
        return 0

    def fits(b: int) -> bool:
        return bool(estimate_memory(m, w.model_copy(update={"batch": b}), acc, stack, cat).fits)

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
    m: ModelArch, w: Workload, acc: Accelerator, stack: SoftwareStack | None = None, limit: int = 10_000_000,
    cat: Catalog | None = None,
) -> int:
    """Longest context (inference: prompt + output tokens; training: sequence length) that fits at the
    workload's batch, at most the context of the checkpoint the task downloads (`lookup.context_of`); 0 if even
    1 token does not."""
    if acc.specs.memory_gib is None:
        return 0
    from suanli.catalog.lookup import context_of  # the checkpoint the task downloads: training the base

    if (own := context_of(m, w.task)):
        limit = min(limit, own)

    def with_ctx(n: int) -> Workload:
        if w.training:
            return w.model_copy(update={"seq": n})
        return w.model_copy(update={"input": max(n - w.output, 1), "output": min(w.output, max(n - 1, 1))})

    def fits(n: int) -> bool:
        return bool(estimate_memory(m, with_ctx(n), acc, stack, cat).fits)

    return _largest(fits, 2, limit)
