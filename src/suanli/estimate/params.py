"""Parameter counts of a catalog model, computed from its architecture (pure arithmetic, no torch).

The formulas follow the module layout of the Hugging Face transformers implementations (LlamaForCausalLM,
Qwen2/Qwen3(-MoE), MixtralForCausalLM, DeepseekV3ForCausalLM, GlmForCausalLM, and the classes of the generic
config.json path: GPT-2, GPT-NeoX, Falcon, Phi, BLOOM, OPT, MPT, ...); tests/reference and
tests/unit/catalog/test_hf_config_generic.py check them against `sum(p.numel())` of those models built on the
`meta` device. Notation: h hidden size, L layers,
H attention heads, G key/value heads, d head dim, f FFN intermediate size, V vocabulary, E routed experts.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from suanli.catalog.schema import ModelArch
from suanli.errors import EstimateError
from suanli.i18n import Message

__all__ = ["ParamBreakdown", "param_count"]


class ParamBreakdown(BaseModel):
    """Parameters of one model by part. `total` is what the weights hold; `active` what one token uses.

    `ffn` holds dense FFNs, every routed expert and the shared experts; `router` the MoE gates (and
    DeepSeek-V3's expert bias, Qwen2-MoE's shared-expert gate). Norms inside attention (Qwen3 q/k norm,
    MLA's latent norms) are counted in `attention`; `norms` holds the per-block and final norms.
    `embedding` holds the input look-up tables: tokens and, for learned absolute positions, positions.
    Diffusion models: every count but `total`/`active` is 0 and `components` maps name -> params.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    embedding: int
    attention: int
    ffn: int
    router: int
    norms: int
    lm_head: int
    total: int
    active: int
    per_layer_attention: int = 0
    dense_ffn_per_layer: int = 0
    moe_ffn_per_layer: int = 0
    moe_active_ffn_per_layer: int = 0
    router_per_layer: int = 0
    dense_ffn_layers: int = 0
    moe_layers: int = 0
    logits_params: int = 0
    components: dict[str, int] = {}

    @property
    def non_embedding(self) -> int:
        """Total without the input embedding table (a lookup, no FLOPs)."""
        return self.total - self.embedding

    @property
    def active_non_embedding(self) -> int:
        """Per-token parameters that take part in matmuls (lm_head included when untied)."""
        return self.active - self.embedding

    def ffn_params_of_layer(self, layer: int) -> int:
        """FFN parameters (all experts) held by decoder layer `layer` (0-based); MoE models put dense layers first."""
        return self.dense_ffn_per_layer if layer < self.dense_ffn_layers else self.moe_ffn_per_layer

    def active_ffn_params_of_layer(self, layer: int) -> int:
        """FFN parameters one token passes through in decoder layer `layer`."""
        return self.dense_ffn_per_layer if layer < self.dense_ffn_layers else self.moe_active_ffn_per_layer


def _need(m: ModelArch, field: str) -> int:
    v = getattr(m, field)
    if v is None or v <= 0:
        raise EstimateError(Message("err.field_is_required_to_count_parameters", m_id=m.id, field_=field))
    return int(v)


def _norm(m: ModelArch, n: int) -> int:
    # RMSNorm has a weight of n; LayerNorm a weight and a bias, 2n (Zhang & Sennrich 2019; Ba et al. 2016);
    # Cohere's and MPT's LayerNorm drop the bias (n), OLMo-1's keeps neither (0).
    return {"rmsnorm": n, "layernorm-weight": n, "layernorm": 2 * n, "nonparametric": 0}[m.norm]


def _mlp(h: int, f: int, gated: bool, bias: bool = False) -> int:
    # SwiGLU/GeGLU: gate_proj h·f + up_proj h·f + down_proj f·h (Shazeer 2020, eq. 6); plain MLP: up + down;
    # with biases (GPT-2 c_fc/c_proj, GPT-NeoX dense_h_to_4h/dense_4h_to_h): + f per input projection + h.
    return (3 if gated else 2) * h * f + (((2 if gated else 1) * f + h) if bias else 0)


def _attention_per_layer(m: ModelArch, h: int, heads: int) -> int:
    if m.mla is not None:
        a = m.mla
        qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim
        if a.q_lora_rank:
            # q_a_proj h·r_q + q_a_layernorm r_q + q_b_proj r_q·H·(d_nope + d_rope) (DeepSeek-V2 §2.1.2, eq. 12-13)
            q = h * a.q_lora_rank + _norm(m, a.q_lora_rank) + a.q_lora_rank * heads * qk_head
        else:
            # q_proj h·H·(d_nope + d_rope) when queries are not compressed (DeepSeek-V2-Lite)
            q = h * heads * qk_head
        # kv_a_proj_with_mqa h·(r_kv + d_rope) + kv_a_layernorm r_kv (eq. 9-10; the rope key is shared by heads)
        kv_a = h * (a.kv_lora_rank + a.qk_rope_head_dim) + _norm(m, a.kv_lora_rank)
        # kv_b_proj r_kv·H·(d_nope + d_v): up-projects the latent to per-head keys and values (eq. 2-3)
        kv_b = a.kv_lora_rank * heads * (a.qk_nope_head_dim + a.v_head_dim)
        # o_proj H·d_v·h (eq. 8)
        o = heads * a.v_head_dim * h + (h if m.attention_out_bias else 0)
        return q + kv_a + kv_b + o
    d = m.head_dim or h // heads
    kv = m.num_key_value_heads or heads
    q = h * heads * d  # q_proj h·H·d
    k_v = 2 * h * kv * d  # k_proj and v_proj h·G·d each (GQA: Ainslie et al. 2023)
    bias = (heads * d + 2 * kv * d) if m.qkv_bias else 0  # q/k/v biases (Qwen, ChatGLM, GLM-4)
    o = heads * d * h + (h if m.attention_out_bias else 0)  # o_proj H·d·h (+ bias)
    # q_norm and k_norm over head_dim (Qwen3), or one weight per head (StableLM, Cohere: H·d + G·d, no bias)
    qk_norm = 0 if not m.qk_norm else (heads + kv) * d if m.qk_norm_width == "heads" else 2 * _norm(m, d)
    return q + k_v + bias + o + qk_norm


def _diffusion(m: ModelArch) -> ParamBreakdown:
    if not m.components:
        raise EstimateError(Message("err.a_diffusion_model_needs_its_components", m_id=m.id))
    comps = {c.name: int(round(c.params.value)) for c in m.components}
    total = sum(comps.values())  # a pipeline holds the sum of its networks (UNet/transformer, text encoders, VAE)
    return ParamBreakdown(
        embedding=0, attention=0, ffn=0, router=0, norms=0, lm_head=0, total=total, active=total,
        components=comps,
    )


def param_count(m: ModelArch) -> ParamBreakdown:
    """Parameters of `m` by part, total and per token (active). Memoized on the model's identity (models are
    frozen): the estimator's terms ask for it many times a plan."""
    hit = _COUNTS.get(id(m))
    if hit is not None and hit[0] is m:
        return hit[1]
    out = _param_count(m)
    if len(_COUNTS) > 1024:
        _COUNTS.clear()
    _COUNTS[id(m)] = (m, out)  # the model held, so that no other object takes its id
    return out


_COUNTS: dict[int, tuple[ModelArch, ParamBreakdown]] = {}


def _param_count(m: ModelArch) -> ParamBreakdown:
    if m.kind == "diffusion":
        return _diffusion(m)
    h, layers = _need(m, "hidden_size"), _need(m, "num_layers")
    heads, vocab = _need(m, "num_attention_heads"), _need(m, "vocab_size")

    embedding = vocab * h  # embed_tokens V·h
    if m.position_embedding == "learned":  # learned absolute positions (GPT-2 wpe, OPT embed_positions): rows·h
        embedding += (m.position_embedding_rows or m.max_context or 0) * h
    lm_head = 0 if m.tie_word_embeddings else vocab * h  # output projection h·V unless tied to the embedding
    lm_head += vocab if m.lm_head_bias else 0  # Phi-2, GPT-J: lm_head has a bias of V
    # pre-attention and pre-FFN norm per layer (1 for a parallel block, 4 with Gemma-2's post-norms) + final
    # norm (+ BLOOM's word_embeddings_layernorm)
    n_norms = (2 if m.norms_per_layer is None else m.norms_per_layer) * layers + 1 + (1 if m.embedding_norm else 0)
    norms = n_norms * _norm(m, h)

    attn_layer = _attention_per_layer(m, h, heads)
    attention = layers * attn_layer

    moe = m.moe
    if moe is None:
        f = _need(m, "intermediate_size")
        dense_layers, moe_layers = layers, 0
        dense_ffn = _mlp(h, f, m.ffn_gated, bool(m.mlp_bias))
        moe_ffn = moe_active = router_layer = 0
    else:
        dense_layers = moe.first_dense_layers
        moe_layers = layers - dense_layers
        if moe_layers < 0:
            raise EstimateError(Message("err.moe_first_dense_layers_exceeds_num", m_id=m.id, dense_layers=dense_layers, layers=layers))
        f_dense = moe.dense_intermediate_size or m.intermediate_size or 0
        if dense_layers and not f_dense:
            raise EstimateError(Message("err.field_moe_dense_intermediate_size_is", m_id=m.id))
        dense_ffn = _mlp(h, f_dense, m.ffn_gated, bool(m.mlp_bias)) if dense_layers else 0
        expert = _mlp(h, moe.expert_intermediate_size, m.ffn_gated, bool(m.mlp_bias))  # one routed expert
        shared = moe.num_shared_experts * _mlp(
            h, moe.shared_expert_intermediate_size or moe.expert_intermediate_size, m.ffn_gated, bool(m.mlp_bias)
        )  # shared experts run for every token (DeepSeekMoE, Dai et al. 2024, §3.2)
        moe_ffn = moe.num_experts * expert + shared  # E experts + shared experts
        moe_active = moe.top_k * expert + shared  # top-k routed experts + shared experts per token
        # router Linear(h, E) (+ E correction biases, DeepSeek-V3 §2.1.2) (+ shared-expert gate Linear(h, 1))
        router_layer = h * moe.num_experts + (moe.num_experts if moe.router_bias else 0)
        router_layer += h if moe.shared_expert_gate else 0

    ffn = dense_layers * dense_ffn + moe_layers * moe_ffn
    router = moe_layers * router_layer
    total = embedding + attention + ffn + router + norms + lm_head
    # per token: everything but the routed experts not chosen (router runs for every token)
    active = total - ffn + dense_layers * dense_ffn + moe_layers * moe_active
    return ParamBreakdown(
        embedding=embedding,
        attention=attention,
        ffn=ffn,
        router=router,
        norms=norms,
        lm_head=lm_head,
        total=total,
        active=active,
        per_layer_attention=attn_layer,
        dense_ffn_per_layer=dense_ffn,
        moe_ffn_per_layer=moe_ffn,
        moe_active_ffn_per_layer=moe_active,
        router_per_layer=router_layer,
        dense_ffn_layers=dense_layers,
        moe_layers=moe_layers,
        logits_params=vocab * h,  # the h·V matmul that makes logits, whether or not its weight is tied
    )
