"""Speed: inference prefill/decode by roofline over dense peaks with calibrated efficiency, and training
step time from FLOPs per token, compute efficiency and derived communication."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from suanli.catalog.schema import Accelerator, Catalog, EfficiencyFactor, ModelArch
from suanli.estimate import arch
from suanli.estimate.efficiency import Efficiency, efficiency
from suanli.estimate.memory import weights_bytes
from suanli.estimate.params import param_count
from suanli.estimate.precision import activation_bytes, peak_flops_per_s, weight_bytes_per_param
from suanli.estimate.scaling import (
    OVERLAP_FRACTION_OF_BACKWARD,
    CommTimes,
    allgather_s,
    allreduce_s,
    links_for,
)
from suanli.estimate.workload import Workload
from suanli.errors import EstimateError
from suanli.units import GB

__all__ = [
    "InferenceSpeed",
    "TrainingSpeed",
    "device_rates",
    "inference_speed",
    "matmul_params",
    "training_flops_per_token",
    "training_speed",
]


class InferenceSpeed(BaseModel):
    model_config = ConfigDict(frozen=True)

    prefill_tokens_per_s: float
    decode_tokens_per_s: float
    output_tokens_per_s: float
    ttft_s: float
    tpot_s: float
    prefill_bound: str
    decode_bound: str
    tp_comm_per_token_s: float
    efficiencies: list[Efficiency]


class TrainingSpeed(BaseModel):
    model_config = ConfigDict(frozen=True)

    train_tokens_per_s: float
    step_time_s: float
    tokens_per_step: int
    mfu: float
    model_flops_per_token: float
    hardware_flops_per_token: float
    compute_s: float
    comm: CommTimes
    scaling_efficiency: float
    efficiencies: list[Efficiency]


def matmul_params(m: ModelArch, active: bool = True) -> float:
    """Parameters that take part in matmuls per token: the input embedding is a look-up, not a matmul
    (Kaplan et al. 2020 §2.1 count non-embedding parameters; the lm_head is a matmul and stays in)."""
    p = param_count(m)
    n = p.active if active else p.total
    if m.tie_word_embeddings or p.lm_head == 0:
        return float(n)  # the shared matrix is used once, as lm_head
    return float(n - p.embedding)


def training_flops_per_token(m: ModelArch, seq: int) -> float:
    """Model FLOPs per trained token: 6N + 12·L·H·Q·T (PaLM, Chowdhery et al. 2022, App. B)."""
    return 6 * matmul_params(m) + 3 * arch.attention_flops_per_token(m, seq)


def _experts_touched_fraction(m: ModelArch, tokens: float) -> float:
    """Share of routed experts a batch of `tokens` touches in one layer under uniform routing: 1 − (1 − k/E)^T."""
    if m.moe is None:
        return 1.0
    k, e = m.moe.top_k, m.moe.num_experts
    return 1.0 - (1.0 - k / e) ** max(tokens, 1.0)


def _weight_bytes_read(m: ModelArch, w: Workload, tokens: float) -> float:
    """Weights one forward pass over `tokens` tokens must read: all dense weights, and for MoE the experts
    the tokens route to."""
    total = weights_bytes(m, w.precision)
    if m.moe is None:
        return total
    p = param_count(m)
    per = total / max(p.total, 1)
    routed_all = p.total - p.active  # parameters of experts not used by one token
    expert_bytes_per_param = per
    moe = m.moe
    routed_total = routed_all * moe.num_experts / max(moe.num_experts - moe.top_k, 1)
    touched = _experts_touched_fraction(m, tokens)
    non_routed = p.total - routed_total
    return (non_routed + touched * routed_total) * expert_bytes_per_param


def moe_layers_per_stage(m: ModelArch, pp: int) -> float:
    if m.moe is None:
        return 0.0
    return max((m.num_layers or 0) - m.moe.first_dense_layers, 0) / pp


def all_to_all_s(m: ModelArch, tokens: float, w: Workload, intra: Any, inter: Any) -> float:
    """One expert-parallel all-to-all (dispatch or combine) of `tokens` tokens' top-k hidden states: each rank
    sends (ep − 1)/ep of tokens·k·h activations (Lepikhin et al. 2020, GShard §3.2); latency + bytes / bus."""
    if m.moe is None or w.ep <= 1 or intra is None:
        return 0.0
    size = tokens * m.moe.top_k * (m.hidden_size or 0) * activation_bytes(w.precision)
    return allgather_s(size, w.ep, intra, inter)


def device_rates(
    cat: Catalog, acc: Accelerator, w: Workload, overrides: tuple[EfficiencyFactor, ...] = ()
) -> tuple[float, float, Efficiency, Efficiency]:
    """The roofline's inputs: dense peak FLOP/s for the precision, peak memory bytes/s, and the matmul and
    memory-bandwidth efficiencies that apply."""
    if acc.specs.memory_bandwidth_gb_per_s is None:
        raise EstimateError(f"{acc.id} has no published memory bandwidth; speed cannot be estimated")
    peak, _ = peak_flops_per_s(acc, w.precision)
    bw = acc.specs.memory_bandwidth_gb_per_s.value * GB
    e_mm = efficiency(cat, acc, "matmul", w.precision, w.engine, overrides)
    e_bw = efficiency(cat, acc, "decode_bandwidth", w.precision, w.engine, overrides)
    return peak, bw, e_mm, e_bw


def inference_speed(
    cat: Catalog, m: ModelArch, acc: Accelerator, w: Workload, overrides: tuple[EfficiencyFactor, ...] = ()
) -> InferenceSpeed:
    """Roofline: time = max(FLOPs / (peak · matmul efficiency), bytes / (bandwidth · decode efficiency))."""
    arch.require_llm(m, "token speed")
    peak, bw, e_mm, e_bw = device_rates(cat, acc, w, overrides)
    e_oh = efficiency(cat, acc, "decode_step_overhead_s", w.precision, w.engine, overrides)
    # tensor parallel splits every layer's weights and work across tp cards; pipeline stages run one after
    # another for one token, so pp does not shorten a step (it only holds a share of the layers)
    shard = w.tp
    n_mm = matmul_params(m)
    kv_bytes = weight_bytes_per_param(w.kv_dtype) if w.kv_dtype else activation_bytes(w.precision)
    kv_per_token = arch.kv_cache_bytes_per_token(m, kv_bytes, w.engine)
    intra, inter = links_for(cat, acc, w.tp * w.ep) if w.tp * w.ep > 1 else (None, None)
    h_bytes = (m.hidden_size or 0) * activation_bytes(w.precision)

    # prefill: the whole batch of prompts in one pass
    b, i, o = w.batch, w.input, w.output
    pf_flops = 2 * n_mm * b * i + b * i * arch.attention_flops_per_token(m, i / 2)  # causal: i/2 keys on average
    pf_bytes = _weight_bytes_read(m, w, b * i) + kv_per_token * b * i
    pf_compute = pf_flops / (peak * e_mm.value) / w.tp
    pf_memory = pf_bytes / (bw * e_bw.value) / shard
    # tensor parallel: 2 all-reduces of the activations per layer (Megatron-LM, Shoeybi et al. 2019 §3)
    layers = m.num_layers or 0
    # norms, rotary, activation functions and residual adds are memory-bound and run between the GEMMs:
    # each writes and reads the layer's activations once (Ivanov et al. 2021, "Data Movement Is All You
    # Need", MLSys, §3), so their time adds to the GEMMs'
    act_traffic = 2 * arch.activation_bytes_per_token_per_layer(m, activation_bytes(w.precision), "none", True, i)
    # the catalog's bandwidth share, not a calibrated decode one (that one also holds the engine's overheads)
    e_stream = efficiency(cat, acc, "decode_bandwidth", w.precision, w.engine).value
    pf_elementwise = b * i * layers * act_traffic / (bw * e_stream) / shard
    pf_tp = 2 * layers * allreduce_s(b * i * h_bytes, w.tp, intra, inter)
    pf_tp += 2 * moe_layers_per_stage(m, 1) * all_to_all_s(m, b * i, w, intra, inter)
    prefill_s = max(pf_compute, pf_memory) + pf_elementwise + pf_tp + e_oh.value

    # decode: one token for each of the b sequences per step, at the mean context length
    ctx = i + o / 2
    if m.sliding_window is not None:
        ctx = min(ctx, m.sliding_window)
    dc_flops = 2 * n_mm * b + b * arch.attention_flops_per_token(m, ctx)
    dc_bytes = _weight_bytes_read(m, w, b) + kv_per_token * ctx * b
    dc_compute = dc_flops / (peak * e_mm.value) / w.tp
    dc_memory = dc_bytes / (bw * e_bw.value) / shard
    dc_tp = 2 * layers * allreduce_s(b * h_bytes, w.tp, intra, inter)
    dc_tp += 2 * moe_layers_per_stage(m, 1) * all_to_all_s(m, b, w, intra, inter)
    dc_elementwise = b * layers * act_traffic / (bw * e_stream) / shard
    step_s = max(dc_compute, dc_memory) + dc_elementwise + dc_tp + e_oh.value
    total_s = prefill_s + (o - 1) * step_s  # token 1 from prefill, o − 1 decode steps
    # cards beyond tp × pp serve as data-parallel replicas, each with its own `batch` sequences
    replicas = w.dp
    return InferenceSpeed(
        prefill_tokens_per_s=replicas * b * i / prefill_s,
        decode_tokens_per_s=replicas * b / step_s,
        output_tokens_per_s=replicas * b * o / total_s,
        ttft_s=prefill_s,  # the first token comes from the prefill's logits
        tpot_s=step_s,
        prefill_bound="compute" if pf_compute >= pf_memory else "memory-bandwidth",
        decode_bound="compute" if dc_compute >= dc_memory else "memory-bandwidth",
        tp_comm_per_token_s=dc_tp,
        efficiencies=[e_mm, e_bw, e_oh],
    )


def training_speed(
    cat: Catalog, m: ModelArch, acc: Accelerator, w: Workload, overrides: tuple[EfficiencyFactor, ...] = ()
) -> TrainingSpeed:
    """Step time = compute + exposed communication + pipeline bubble, per global step."""
    arch.require_llm(m, f"task {w.task}")
    peak, _ = peak_flops_per_s(acc, "bf16" if w.task == "qlora" else w.precision)
    e_tr = efficiency(cat, acc, "train_mfu", w.precision, w.engine, overrides)
    model_fpt = training_flops_per_token(m, w.seq)
    attn = arch.attention_flops_per_token(m, w.seq)
    n_mm = matmul_params(m)
    if w.task in ("lora", "qlora"):
        # frozen weights: forward 2N and input gradients 2N, no weight gradients (Hu et al. 2021 §4.2)
        hw_fpt = 4 * n_mm + 3 * attn
    else:
        hw_fpt = model_fpt
    if w.recompute == "full":
        hw_fpt += 2 * n_mm + attn  # one more forward (Korthikanti et al. 2022 §4.2.1: 8N instead of 6N)
    elif w.recompute == "selective":
        hw_fpt += attn  # only the attention core is recomputed (ibid. §4.2.2)
    micro_tokens = w.batch * w.seq
    tokens_per_step = micro_tokens * w.grad_accum * w.dp
    per_device_flops = micro_tokens * w.grad_accum * hw_fpt / (w.tp * w.pp)
    compute_s = per_device_flops / (peak * e_tr.value)

    intra, inter = links_for(cat, acc, w.gpus) if w.gpus > 1 else (None, None)
    # data parallel: all-reduce of the 16-bit gradients of trainable parameters (fp32 for LoRA adapters)
    p = param_count(m)
    trainable = p.total if w.task in ("full", "pretrain") else arch.lora_params(m, w.lora_rank, w.lora_targets)
    grad_bytes = trainable * (4.0 if w.task in ("lora", "qlora") else activation_bytes(w.precision))
    grad_bytes /= w.tp * w.pp
    if w.zero >= 3:
        # ZeRO-3 / FSDP: every micro-batch all-gathers the sharded weights for forward and again for backward
        # (frozen base weights included), then gradients are reduce-scattered once per step (Rajbhandari et al.
        # 2020, ZeRO §7.2.2: 1.5× the all-reduce volume when weights and gradients are the same size); the
        # all-gathers are prefetched, so they overlap forward and backward compute alike
        weight_bytes = weights_bytes(m, "nf4" if w.task == "qlora" else w.precision) / (w.tp * w.pp)
        dp_s = w.grad_accum * 2 * allgather_s(weight_bytes, w.dp, intra, inter) + allgather_s(
            grad_bytes, w.dp, intra, inter
        )
        dp_exposed = max(0.0, dp_s - OVERLAP_FRACTION_OF_BACKWARD * compute_s)
    else:
        dp_s = allreduce_s(grad_bytes, w.dp, intra, inter)
        backward_s = compute_s / w.grad_accum * 2 / 3
        dp_exposed = max(0.0, dp_s - OVERLAP_FRACTION_OF_BACKWARD * backward_s)
    # tensor parallel: 4 all-reduces of b·s·h activations per layer per micro-batch (2 forward, 2 backward;
    # Shoeybi et al. 2019 §3), not overlapped
    layers_per_stage = (m.num_layers or 0) / w.pp
    act = micro_tokens * (m.hidden_size or 0) * activation_bytes(w.precision)
    tp_s = 4 * layers_per_stage * w.grad_accum * allreduce_s(act, w.tp, intra, None)
    # expert parallel: dispatch and combine all-to-alls per MoE layer, forward and backward, not overlapped
    ep_s = 4 * moe_layers_per_stage(m, w.pp) * w.grad_accum * all_to_all_s(m, micro_tokens, w, intra, inter)
    # pipeline bubble (p − 1)/m of the ideal time (Narayanan et al. 2021 §2.2, 1F1B)
    bubble_s = compute_s * (w.pp - 1) / w.grad_accum if w.pp > 1 else 0.0
    comm = CommTimes(
        dp_s=dp_s,
        dp_exposed_s=dp_exposed,
        tp_s=tp_s,
        ep_s=ep_s,
        pp_bubble_s=bubble_s,
        intra_link=intra.id if intra else None,
        inter_link=inter.id if inter else None,
        bus_gb_per_s=None if intra is None else intra.bus_gb_per_s.value if inter is None
        else min(intra.bus_gb_per_s.value, inter.bus_gb_per_s.value),
    )
    step_s = compute_s + comm.exposed_s
    tok_s = tokens_per_step / step_s
    return TrainingSpeed(
        train_tokens_per_s=tok_s,
        step_time_s=step_s,
        tokens_per_step=tokens_per_step,
        # MFU over the FLOPs the task needs: 6N for full training; LoRA needs no weight gradients (4N)
        mfu=tok_s * (hw_fpt if w.task in ("lora", "qlora") and w.recompute == "none" else model_fpt) / (w.gpus * peak),
        model_flops_per_token=model_fpt,
        hardware_flops_per_token=hw_fpt,
        compute_s=compute_s,
        comm=comm,
        scaling_efficiency=compute_s / step_s,
        efficiencies=[e_tr],
    )
