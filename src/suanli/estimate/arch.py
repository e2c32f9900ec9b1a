"""Per-token and per-layer quantities of a transformer that memory and speed need (pure arithmetic on ModelArch)."""

from __future__ import annotations

from typing import Any

from suanli.estimate import xp

from suanli.catalog.schema import ModelArch
from suanli.errors import EstimateError
from suanli.i18n import Message

__all__ = [
    "activation_bytes_per_token_per_layer",
    "attention_flops_per_token",
    "cached_positions",
    "ffn_width_active",
    "head_dim",
    "kv_cache_bytes_per_token",
    "kv_cache_heads",
    "kv_cache_share_per_rank",
    "kv_proj_params",
    "lora_params",
    "prefill_keys_per_query",
    "require_llm",
    "routed_expert_params",
    "sliding_layers",
    "tp_splits_heads",
]


def require_llm(m: ModelArch, what: str) -> None:
    """Refuse a diffusion model where an LLM is needed; `what` ('task lora', 'token speed', …) is named in both
    languages (`est.needs.*`)."""
    if m.kind != "llm":
        task = what.removeprefix("task ") if what.startswith("task ") else None
        needs = (Message("est.needs.task", task=task) if task else
                 Message(f"est.needs.{what.replace(' ', '_').lower()}") if what in _NEEDS else what)
        raise EstimateError(Message("err.is_a_model_needs_an_llm", m_id=m.id, model_kind=Message(f"model.kind.{m.kind}"),
                                    what=needs, task_field="task"))


_NEEDS = ("LoRA", "token speed", "serving plans")


def head_dim(m: ModelArch) -> int:
    assert m.hidden_size and m.num_attention_heads
    return m.head_dim or m.hidden_size // m.num_attention_heads


def _kv_heads(m: ModelArch) -> int:
    return m.num_key_value_heads or m.num_attention_heads or 1


def kv_cache_bytes_per_token(m: ModelArch, kv_bytes: float, engine: str = "vllm") -> float:
    """KV-cache bytes one token of context takes, over all layers.

    GQA/MQA: 2 (K and V) · layers · kv_heads · head_dim · bytes (Ainslie et al. 2023, GQA §2).
    MLA: layers · (kv_lora_rank + qk_rope_head_dim) · bytes, the compressed latent (DeepSeek-V2 paper §2.1.2,
    Table 1); Hugging Face transformers caches the decompressed K and V instead, so engine='hf' counts those."""
    layers = m.num_layers or 0
    if m.mla is not None:
        if engine == "hf":
            heads = m.num_attention_heads or 0
            k = heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim)
            v = heads * m.mla.v_head_dim
            return layers * (k + v) * kv_bytes
        return layers * (m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * kv_bytes
    return 2 * layers * _kv_heads(m) * head_dim(m) * kv_bytes


def kv_cache_heads(m: ModelArch, engine: str = "vllm") -> int:
    """Heads the KV cache is laid out in, the unit tensor parallelism splits it by: GQA/MQA/MHA's KV heads; MLA's
    latent is one head shared by all query heads (vLLM ModelConfig.get_num_kv_heads: `if self.use_mla: return 1`,
    vllm-project/vllm vllm/config/model.py), except where transformers caches it decompressed, per attention head."""
    if m.mla is not None:
        return (m.num_attention_heads or 1) if engine == "hf" else 1
    return _kv_heads(m)


def kv_cache_share_per_rank(kv_heads: int, tp: Any) -> Any:
    """Share of the KV cache one tensor-parallel rank holds, over arrays of tp: ceil(kv_heads / tp) / kv_heads (at
    least one head; the same as the floor wherever tp divides kv_heads or is a multiple of it, the layouts vLLM and
    SGLang accept, `tp_heads`; TensorRT-LLM rounds up for the others, so the ranks never hold less than the cache).
    Ranks split the KV heads, and past kv_heads each keeps one, replicated, not split further (vLLM
    ModelConfig.get_num_kv_heads: `max(1, total_num_kv_heads // parallel_config.tensor_parallel_size)`,
    vllm/config/model.py, and its attention layers' `self.num_kv_heads = max(1, self.total_num_kv_heads // tp_size)`;
    SGLang ModelConfig.get_num_kv_heads the same, python/sglang/srt/configs/model_config.py; TensorRT-LLM
    KVCacheManager `(num_kv_heads + tp_size - 1) // tp_size`, tensorrt_llm/_torch/pyexecutor/resource_manager.py;
    LMDeploy TurboMind: "TP > num_key_value_heads, the kv-heads should be duplicated", docs/en/advance/
    context_parallel.md). MLA's single latent head is therefore whole on every rank."""
    return xp.maximum(1.0, xp.ceil(kv_heads / xp.asarray(tp, dtype=float))) / max(kv_heads, 1)


def kv_proj_params(m: ModelArch) -> float:
    """Parameters of the K and V projections over all layers (weights, and biases where the model has them): what a
    tensor-parallel rank holds a whole KV head's share of, replicated past the KV heads as the cache is
    (kv_cache_share_per_rank): vLLM/SGLang QKVParallelLinear sizes each rank's K and V outputs by `num_kv_heads = 1`
    once tp ≥ the KV heads and loads the shard `tp_rank // num_kv_head_replicas` (vllm/model_executor/layers/
    linear.py, python/sglang/srt/layers/linear.py). MLA: 0 here (its compressed KV projection is not split by heads;
    not counted)."""
    if m.mla is not None:
        return 0.0
    kvd = _kv_heads(m) * head_dim(m)
    return float((m.num_layers or 0) * 2 * kvd * ((m.hidden_size or 0) + (1 if m.qkv_bias else 0)))


def tp_splits_heads(m: ModelArch, tp: Any) -> Any:
    """Whether tensor parallelism `tp` (arrays work) splits the attention heads and the KV heads (query groups) into
    whole heads per rank, as Megatron-Core requires: Attention.__init__ `divide(self.config.num_attention_heads,
    world_size)` and `divide(self.config.num_query_groups, world_size)`, whose ensure_divisibility asserts
    (NVIDIA/Megatron-LM megatron/core/transformer/attention.py, megatron/core/utils.py) — it does not replicate KV
    heads as the serving engines do."""
    return (xp.mod(m.num_attention_heads or 1, tp) == 0) & (xp.mod(_kv_heads(m), tp) == 0)


def sliding_layers(m: ModelArch) -> int:
    """Decoder layers with sliding-window attention: those config.layer_types marks sliding_attention (Gemma-2
    alternates from layer 0, Gemma-3 five local to one global, gpt-oss alternates, Qwen2 from max_window_layers:
    transformers models/<type>/configuration_<type>.py, v5.24.0), else every layer when sliding_window is set
    (Mistral-7B-v0.1: MistralAttention passes config.sliding_window in every layer, modeling_mistral.py)."""
    if m.sliding_window is None:
        return 0
    if m.layer_types is None:
        return m.num_layers or 0
    return sum(1 for t in m.layer_types if t == "sliding_attention")


def cached_positions(m: ModelArch, context: float) -> float:
    """Positions one layer's KV cache holds at `context` tokens, averaged over layers: a full-attention layer keeps
    every position, a sliding-window layer at most the window — what vLLM's hybrid KV cache manager allocates
    ("sliding window layers: reserve slots only for the most recent sliding_window_size tokens",
    docs.vllm.ai/en/latest/design/hybrid_kv_cache_manager, since v0.10), TensorRT-LLM's variable sliding-window
    cache ("one pool per window size", nvidia.github.io/TensorRT-LLM/examples/llm_kv_cache_connector_vswa.html) and
    transformers' sliding cache layers (cache_utils.py DynamicSlidingWindowLayer) keep. Linear in what each layer holds, so
    bytes = kv_cache_bytes_per_token × cached_positions."""
    layers = m.num_layers or 0
    n_sw = sliding_layers(m)
    if n_sw == 0 or layers == 0:
        return context
    assert m.sliding_window is not None
    return ((layers - n_sw) * context + n_sw * min(context, m.sliding_window)) / layers


def prefill_keys_per_query(m: ModelArch, tokens: float) -> float:
    """Keys a prompt token attends to in a causal prefill of `tokens` tokens, averaged over tokens and layers:
    full layers (tokens + 1)/2 ≈ tokens/2; a window layer min(p, W) for the token at position p, mean
    W − W(W − 1)/(2·tokens) when tokens > W. FlashAttention-2 with window_size skips key blocks before the window
    (flash_fwd_kernel.h: n_block_min = (m_block·kBlockM + seqlen_k − seqlen_q − window_size_left) / kBlockN,
    Dao-AILab/flash-attention), so the skipped blocks cost no FLOPs (block granularity ignored)."""
    layers = m.num_layers or 0
    n_sw = sliding_layers(m)
    full = tokens / 2
    if n_sw == 0 or layers == 0 or m.sliding_window is None or tokens <= m.sliding_window:
        return full
    w = m.sliding_window
    # exact mean for a window layer; capped at the full layers' tokens/2 approximation, which it exceeds just above W
    window = min(w - w * (w - 1) / (2 * tokens), full)
    return ((layers - n_sw) * full + n_sw * window) / layers


def ffn_width_active(m: ModelArch) -> float:
    """FFN intermediate width one token passes through, averaged over layers (MoE: top_k + shared experts)."""
    layers = m.num_layers or 1
    if m.moe is None:
        return float(m.intermediate_size or 0)
    moe = m.moe
    shared = moe.num_shared_experts * (moe.shared_expert_intermediate_size or moe.expert_intermediate_size)
    if moe.shared_expert_intermediate_size and moe.num_shared_experts == 0:
        shared = moe.shared_expert_intermediate_size
    routed = moe.top_k * moe.expert_intermediate_size + shared
    dense = moe.dense_intermediate_size or m.intermediate_size or 0
    k = moe.first_dense_layers
    return (k * dense + (layers - k) * routed) / layers


def attention_flops_per_token(m: ModelArch, context: float) -> float:
    """Forward FLOPs of QK^T and AV for one query token against `context` keys, over all layers:
    2 matmuls · 2 FLOPs · heads · head_dim · context · layers (Kaplan et al. 2020, Table 1, 'attention')."""
    heads = m.num_attention_heads or 0
    if m.mla is not None:
        d_qk = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim
        return 2 * heads * (d_qk + m.mla.v_head_dim) * context * (m.num_layers or 0)
    return 4 * heads * head_dim(m) * context * (m.num_layers or 0)


def activation_bytes_per_token_per_layer(
    m: ModelArch, act_bytes: float, recompute: str, flash_attention: bool, seq: int
) -> float:
    """Activation memory saved for backward, per token per layer.

    Method of Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models", §4.1:
    sbh(34 + 5as/h) for GPT with dropout), recounted for today's decoder (RMSNorm, SwiGLU, GQA, no dropout):
    attention block saves norm input h, norm output h, Q a·d, K and V 2·kv·d, attention output a·d;
    the MLP saves norm input h, norm output h, gate, up, act(gate) and their product (4·f; 2·f un-gated).
    Without flash attention the softmax output a·s per token is stored too (eq. 1's 5as/h term, no dropout).
    Full recomputation stores only the layer input (h) per layer (§4.2.1)."""
    h = m.hidden_size or 0
    if recompute == "full":
        return h * act_bytes
    heads = m.num_attention_heads or 0
    d = head_dim(m)
    if m.mla is not None:
        q = heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim)
        kv = heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim + m.mla.v_head_dim) + m.mla.kv_lora_rank
        attn = 2 * h + q + kv + heads * m.mla.v_head_dim
    else:
        attn = 2 * h + heads * d + 2 * _kv_heads(m) * d + heads * d
    f = ffn_width_active(m)
    mlp = 2 * h + (4 * f if m.ffn_gated else 2 * f)
    elems = attn + mlp
    if not flash_attention and recompute == "none":
        elems += heads * seq  # softmax probabilities, a·s per token
    return elems * act_bytes


def lora_params(m: ModelArch, rank: int, targets: str = "all-linear") -> int:
    """Trainable LoRA parameters: r·(d_in + d_out) per adapted linear layer (Hu et al. 2021, LoRA §4.1)."""
    require_llm(m, "LoRA")
    h, layers = m.hidden_size or 0, m.num_layers or 0
    heads, d = m.num_attention_heads or 0, head_dim(m)
    kvd = _kv_heads(m) * d
    q_out = 0
    if m.mla is not None:
        q_out = heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim)
        attn = (h + q_out) + (h + m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) + (heads * m.mla.v_head_dim + h)
    else:
        attn = (h + heads * d) + 2 * (h + kvd) + (heads * d + h)
    per_layer = attn
    if targets == "q,v":
        # LitGPT's default LoRA: query and value projections only
        if m.mla is not None:
            per_layer = (h + q_out) + (h + m.mla.kv_lora_rank + m.mla.qk_rope_head_dim)
        else:
            per_layer = (h + heads * d) + (h + kvd)
    elif targets == "all-linear":
        n_proj = 3 if m.ffn_gated else 2
        if m.moe is None:
            per_layer += n_proj * (h + (m.intermediate_size or 0))
        else:
            moe = m.moe
            experts = moe.num_experts + moe.num_shared_experts
            per_layer += experts * n_proj * (h + moe.expert_intermediate_size)
    elif targets != "attention":
        raise EstimateError(Message("err.lora_targets_unknown_allowed_attention_all", targets=targets))
    return int(rank * per_layer * layers)


def routed_expert_params(m: ModelArch) -> int:
    """Parameters of the routed experts (what expert parallelism shards): MoE layers × experts × the expert
    MLP (gated: 3·h·f; plain: 2·h·f), shared experts excluded (Lepikhin et al. 2020, GShard §2.2)."""
    if m.moe is None:
        return 0
    h, layers = m.hidden_size or 0, m.num_layers or 0
    moe_layers = max(layers - m.moe.first_dense_layers, 0)
    per_expert = (3 if m.ffn_gated else 2) * h * m.moe.expert_intermediate_size
    return moe_layers * m.moe.num_experts * per_expert
