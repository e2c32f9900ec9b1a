"""Hugging Face `config.json` <-> catalog `ModelArch` (pure: takes and returns dicts, reads no file).

`from_hf_config` accepts the config of a model the parameter, FLOPs and KV-cache estimators understand:
model_type llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, glm,
gemma, and the remote-code types qwen (Qwen-1), chatglm (ChatGLM2/3, GLM-4) and baichuan (Baichuan/Baichuan2).
A missing or malformed field raises `InputError` naming it.

`to_hf_config` goes the other way: a config dict with `model_type` from which transformers builds a model
with the same parameter shapes (`AutoConfig.for_model(**cfg)`). Models whose own code needs
`trust_remote_code` map to an equivalent native class: Qwen-1 -> qwen2 (q/k/v bias, no o_proj bias, GQA
with kv = heads), ChatGLM3 / GLM-4 -> glm (q/k/v bias, fused gate_up, partial rotary), Baichuan2 -> llama
(W_pack is q/k/v fused without bias; Baichuan2-13B's ALiBi has no parameters, RoPE none either).
"""

from __future__ import annotations

from typing import Any

from suanli.catalog.schema import MLAConfig, ModelArch, MoEConfig
from suanli.errors import InputError

__all__ = ["HF_ARCHITECTURES", "SUPPORTED_MODEL_TYPES", "from_hf_config", "to_hf_config"]

# transformers class -> model_type of the native implementation that builds it
HF_ARCHITECTURES: dict[str, str] = {
    "LlamaForCausalLM": "llama",
    "MistralForCausalLM": "mistral",
    "MixtralForCausalLM": "mixtral",
    "Qwen2ForCausalLM": "qwen2",
    "Qwen2MoeForCausalLM": "qwen2_moe",
    "Qwen3ForCausalLM": "qwen3",
    "Qwen3MoeForCausalLM": "qwen3_moe",
    "DeepseekV3ForCausalLM": "deepseek_v3",
    "GlmForCausalLM": "glm",
    "GemmaForCausalLM": "gemma",
}
_ARCH_OF = {v: k for k, v in HF_ARCHITECTURES.items()}

# model_type read -> (family, class that builds an equivalent model)
_FAMILY: dict[str, tuple[str, str]] = {
    "llama": ("llama", "LlamaForCausalLM"),
    "mistral": ("mistral", "MistralForCausalLM"),
    "mixtral": ("mixtral", "MixtralForCausalLM"),
    "qwen2": ("qwen2", "Qwen2ForCausalLM"),
    "qwen2_moe": ("qwen2-moe", "Qwen2MoeForCausalLM"),
    "qwen3": ("qwen3", "Qwen3ForCausalLM"),
    "qwen3_moe": ("qwen3-moe", "Qwen3MoeForCausalLM"),
    "deepseek_v2": ("deepseek-v2", "DeepseekV3ForCausalLM"),
    "deepseek_v3": ("deepseek-v3", "DeepseekV3ForCausalLM"),
    "glm": ("glm", "GlmForCausalLM"),
    "gemma": ("gemma", "GemmaForCausalLM"),
    "qwen": ("qwen", "Qwen2ForCausalLM"),
    "chatglm": ("chatglm", "GlmForCausalLM"),
    "baichuan": ("baichuan", "LlamaForCausalLM"),
}
SUPPORTED_MODEL_TYPES: tuple[str, ...] = tuple(_FAMILY)

_MISSING = object()


def _get(cfg: dict[str, Any], key: str, default: Any = _MISSING) -> Any:
    if key in cfg and cfg[key] is not None:
        return cfg[key]
    if default is _MISSING:
        raise InputError(key, "missing from the Hugging Face config")
    return default


def _int(cfg: dict[str, Any], key: str, default: Any = _MISSING, *, positive: bool = True) -> Any:
    v = _get(cfg, key, default)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or int(v) != v:
        raise InputError(key, f"must be an integer, got {v!r}")
    v = int(v)
    if positive and v <= 0:
        raise InputError(key, f"must be a positive integer, got {v}")
    if not positive and v < 0:
        raise InputError(key, f"must not be negative, got {v}")
    return v


def _bool(cfg: dict[str, Any], key: str, default: bool) -> bool:
    v = _get(cfg, key, default)
    if not isinstance(v, bool):
        raise InputError(key, f"must be true or false, got {v!r}")
    return v


def _refuse(cfg: dict[str, Any], key: str, why: str, ok: tuple[Any, ...]) -> None:
    """Refuse a value of `key` outside `ok` (compared with its type: True is not 1 here)."""
    v = cfg.get(key)
    if v is not None and not any(type(v) is type(o) and v == o for o in ok):
        raise InputError(key, f"{v!r} is not supported: {why}")


def _check_heads(hidden: int, heads: int, kv: int, head_dim: int | None) -> None:
    if heads % kv:
        raise InputError("num_key_value_heads", f"{kv} does not divide num_attention_heads {heads}")
    if head_dim is None and hidden % heads:
        raise InputError("num_attention_heads", f"{heads} does not divide hidden_size {hidden}; give head_dim")


def from_hf_config(cfg: dict[str, Any], name: str) -> ModelArch:
    """A `ModelArch` from a Hugging Face `config.json` dict; `name` becomes the id (e.g. the file's name)."""
    if not isinstance(cfg, dict):
        raise InputError("config", "a Hugging Face config must be a JSON object")
    model_type = _get(cfg, "model_type")
    if model_type not in _FAMILY:
        raise InputError("model_type", f"{model_type!r} is not supported; supported: {', '.join(_FAMILY)}")
    family, arch = _FAMILY[model_type]
    fields: dict[str, Any] = {
        "id": name,
        "family": family,
        "kind": "llm",
        "hf_architecture": arch,
        "source": "user-config",
        "note": f"parsed from a Hugging Face config.json (model_type {model_type})",
    }
    if model_type == "chatglm":
        fields.update(_chatglm(cfg))
    elif model_type == "qwen":
        fields.update(_qwen1(cfg))
    else:
        fields.update(_common(cfg, model_type))
    if model_type in ("mixtral", "qwen2_moe", "qwen3_moe"):
        fields["moe"] = _moe_qwen_mixtral(cfg, model_type)
    elif model_type in ("deepseek_v2", "deepseek_v3"):
        fields["mla"], fields["moe"] = _deepseek(cfg, model_type)
        fields["mtp_layers"] = _int(cfg, "num_nextn_predict_layers", 0, positive=False)
        fields["num_key_value_heads"] = fields["num_attention_heads"]
    rope = cfg.get("rope_scaling")
    if isinstance(rope, dict) and (rope.get("rope_type") or rope.get("type")) not in (None, "default"):
        fields["rope_scaling"] = str(rope.get("rope_type") or rope.get("type"))
    elif model_type == "qwen" and cfg.get("use_dynamic_ntk") is True:
        fields["rope_scaling"] = "dynamic-ntk"  # Qwen-1: dynamic NTK-aware interpolation beyond seq_length
    try:
        return ModelArch(**fields)
    except ValueError as e:  # pydantic ValidationError: name the first bad field
        errs: list[Any] = getattr(e, "errors", lambda: [])()
        field = ".".join(str(p) for p in errs[0]["loc"]) if errs else "config"
        raise InputError(field, errs[0]["msg"] if errs else str(e)) from None


def _common(cfg: dict[str, Any], model_type: str) -> dict[str, Any]:
    hidden = _int(cfg, "hidden_size")
    heads = _int(cfg, "num_attention_heads")
    kv = _int(cfg, "num_key_value_heads", heads)
    head_dim = _int(cfg, "head_dim", None)
    _check_heads(hidden, heads, kv, head_dim)
    layers = _int(cfg, "num_hidden_layers")
    _refuse(cfg, "mlp_bias", "FFN biases are not modelled", (False,))
    tie_default = model_type == "gemma"  # transformers' default per class
    out: dict[str, Any] = {
        "hidden_size": hidden,
        "num_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "head_dim": head_dim,
        "vocab_size": _int(cfg, "vocab_size"),
        "tie_word_embeddings": _bool(cfg, "tie_word_embeddings", tie_default),
        # Baichuan2-13B names its context model_max_length (ALiBi has no position table)
        "max_context": _int(cfg, "max_position_embeddings", None) or _int(cfg, "model_max_length", None),
        "norm": "rmsnorm",
        "ffn_gated": True,
    }
    if model_type in ("mixtral",):
        out["intermediate_size"] = _int(cfg, "intermediate_size")
    elif model_type in ("qwen2_moe", "qwen3_moe", "deepseek_v2", "deepseek_v3"):
        out["intermediate_size"] = _int(cfg, "intermediate_size", None) or _int(cfg, "moe_intermediate_size")
    else:
        out["intermediate_size"] = _int(cfg, "intermediate_size")
    if model_type in ("qwen2", "qwen2_moe"):
        out["qkv_bias"] = _bool(cfg, "qkv_bias", True)  # Qwen2 q/k/v always carry a bias, o_proj none
    elif model_type == "glm":
        out["qkv_bias"] = _bool(cfg, "attention_bias", True)  # GLM: bias on q/k/v only
    elif model_type in ("llama", "qwen3", "qwen3_moe", "deepseek_v2", "deepseek_v3", "gemma"):
        bias = _bool(cfg, "attention_bias", False)  # these classes put it on q, k, v and o
        out["qkv_bias"] = out["attention_out_bias"] = bias
    if model_type in ("qwen3", "qwen3_moe"):
        out["qk_norm"] = True  # Qwen3Attention.q_norm / k_norm over head_dim
    if model_type in ("mistral", "mixtral"):
        out["sliding_window"] = _int(cfg, "sliding_window", None)
    elif model_type in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe"):
        # Qwen keeps a sliding_window value but only uses it when use_sliding_window is true
        if _bool(cfg, "use_sliding_window", False):
            out["sliding_window"] = _int(cfg, "sliding_window")
    return out


def _moe_qwen_mixtral(cfg: dict[str, Any], model_type: str) -> MoEConfig:
    if model_type == "mixtral":
        return MoEConfig(
            num_experts=_int(cfg, "num_local_experts"),
            top_k=_int(cfg, "num_experts_per_tok"),
            expert_intermediate_size=_int(cfg, "intermediate_size"),
        )
    _refuse(cfg, "decoder_sparse_step", "only configs with an MoE FFN in every layer are modelled", (1,))
    _refuse(cfg, "mlp_only_layers", "only configs with an MoE FFN in every layer are modelled", ([],))
    shared = _int(cfg, "shared_expert_intermediate_size", 0, positive=False) if model_type == "qwen2_moe" else 0
    return MoEConfig(
        num_experts=_int(cfg, "num_experts"),
        top_k=_int(cfg, "num_experts_per_tok"),
        expert_intermediate_size=_int(cfg, "moe_intermediate_size"),
        num_shared_experts=1 if shared else 0,
        shared_expert_intermediate_size=shared or None,
        shared_expert_gate=bool(shared),
    )


def _deepseek(cfg: dict[str, Any], model_type: str) -> tuple[MLAConfig, MoEConfig]:
    _refuse(cfg, "moe_layer_freq", "only an MoE FFN in every layer after first_k_dense_replace is modelled", (1,))
    mla = MLAConfig(
        q_lora_rank=_int(cfg, "q_lora_rank", None),
        kv_lora_rank=_int(cfg, "kv_lora_rank"),
        qk_nope_head_dim=_int(cfg, "qk_nope_head_dim"),
        qk_rope_head_dim=_int(cfg, "qk_rope_head_dim"),
        v_head_dim=_int(cfg, "v_head_dim"),
    )
    moe_inter = _int(cfg, "moe_intermediate_size")
    n_shared = _int(cfg, "n_shared_experts", 0, positive=False)
    moe = MoEConfig(
        num_experts=_int(cfg, "n_routed_experts"),
        top_k=_int(cfg, "num_experts_per_tok"),
        num_shared_experts=n_shared,
        expert_intermediate_size=moe_inter,
        first_dense_layers=_int(cfg, "first_k_dense_replace", 0, positive=False),
        dense_intermediate_size=_int(cfg, "intermediate_size"),
        # DeepSeek-V3's aux-loss-free balancing adds a per-expert bias to the router (V3 report §2.1.2)
        router_bias=model_type == "deepseek_v3" or cfg.get("topk_method") == "noaux_tc",
        n_group=_int(cfg, "n_group", None),
        topk_group=_int(cfg, "topk_group", None),
    )
    return mla, moe


def _chatglm(cfg: dict[str, Any]) -> dict[str, Any]:
    """ChatGLM2/3 and GLM-4 (THUDM remote code, model_type chatglm)."""
    hidden = _int(cfg, "hidden_size")
    heads = _int(cfg, "num_attention_heads")
    mqa = _bool(cfg, "multi_query_attention", False)
    kv = _int(cfg, "multi_query_group_num") if mqa else heads
    head_dim = _int(cfg, "kv_channels", None)
    _check_heads(hidden, heads, kv, head_dim)
    _refuse(cfg, "add_bias_linear", "biases on dense layers are not modelled", (False,))
    return {
        "hidden_size": hidden,
        "num_layers": _int(cfg, "num_layers"),
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "head_dim": head_dim,
        "intermediate_size": _int(cfg, "ffn_hidden_size"),  # dense_h_to_4h is 2·ffn (SwiGLU), dense_4h_to_h ffn
        "vocab_size": _int(cfg, "padded_vocab_size"),
        "tie_word_embeddings": _bool(cfg, "tie_word_embeddings", False),
        "qkv_bias": _bool(cfg, "add_qkv_bias", False),
        "norm": "rmsnorm" if _bool(cfg, "rmsnorm", True) else "layernorm",
        "max_context": _int(cfg, "seq_length", None),
    }


def _qwen1(cfg: dict[str, Any]) -> dict[str, Any]:
    """Qwen-1 (remote code, model_type qwen): c_attn has a bias, c_proj none; intermediate_size counts w1+w2."""
    hidden = _int(cfg, "hidden_size")
    heads = _int(cfg, "num_attention_heads")
    head_dim = _int(cfg, "kv_channels", None)
    _check_heads(hidden, heads, heads, head_dim)
    inter = _int(cfg, "intermediate_size")
    if inter % 2:
        raise InputError("intermediate_size", f"Qwen-1 gives w1 + w2 together, so it must be even, got {inter}")
    if not _bool(cfg, "no_bias", True):
        raise InputError("no_bias", "false is not supported: Qwen-1 checkpoints have biases on c_attn only")
    return {
        "hidden_size": hidden,
        "num_layers": _int(cfg, "num_hidden_layers"),
        "num_attention_heads": heads,
        "num_key_value_heads": heads,
        "head_dim": head_dim,
        "intermediate_size": inter // 2,  # QWenMLP: w1, w2 are h x (intermediate_size / 2) each
        "vocab_size": _int(cfg, "vocab_size"),
        "tie_word_embeddings": _bool(cfg, "tie_word_embeddings", False),
        "qkv_bias": True,
        "max_context": _int(cfg, "seq_length", None) or _int(cfg, "max_position_embeddings", None),
    }


def _model_type(m: ModelArch) -> str:
    if m.hf_architecture:
        if m.hf_architecture not in HF_ARCHITECTURES:
            raise InputError(
                "hf_architecture",
                f"{m.hf_architecture!r} unknown; known: {', '.join(HF_ARCHITECTURES)}",
            )
        return HF_ARCHITECTURES[m.hf_architecture]
    if m.mla is not None:
        return "deepseek_v3"
    if m.moe is not None:
        if m.qk_norm:
            return "qwen3_moe"
        return "qwen2_moe" if m.moe.num_shared_experts else "mixtral"
    if m.qk_norm:
        return "qwen3"
    if m.qkv_bias and not m.attention_out_bias:
        return "qwen2"
    return "mistral" if m.sliding_window else "llama"


def to_hf_config(m: ModelArch) -> dict[str, Any]:
    """A config dict (with `model_type`) from which transformers builds a model of the same shapes as `m`."""
    if m.kind != "llm":
        raise InputError("kind", f"{m.id} is a {m.kind} model; only LLMs have a transformers config")
    if not m.ffn_gated:
        raise InputError("ffn_gated", "no supported transformers class has an ungated FFN")
    if m.norm != "rmsnorm":
        raise InputError("norm", "no supported transformers class uses LayerNorm")
    mt = _model_type(m)
    heads = m.num_attention_heads or 0
    cfg: dict[str, Any] = {
        "model_type": mt,
        "architectures": [_ARCH_OF[mt]],
        "vocab_size": m.vocab_size,
        "hidden_size": m.hidden_size,
        "intermediate_size": m.intermediate_size,
        "num_hidden_layers": m.num_layers,
        "num_attention_heads": heads,
        "num_key_value_heads": m.num_key_value_heads or heads,
        "max_position_embeddings": m.max_context or 4096,
        "tie_word_embeddings": m.tie_word_embeddings,
        "hidden_act": "gelu_pytorch_tanh" if mt == "gemma" else "silu",
        # class defaults (e.g. GLM-4's pad id 151329) may lie outside a smaller vocabulary
        "pad_token_id": None,
    }
    if m.head_dim:
        cfg["head_dim"] = m.head_dim

    def need(cond: bool, field: str, why: str) -> None:
        if not cond:
            raise InputError(field, f"{m.id}: {why} for transformers model_type {mt}")

    if m.moe is None:
        need(mt not in ("mixtral", "qwen2_moe", "qwen3_moe", "deepseek_v3"), "moe", "an MoE config is required")
    else:
        need(mt in ("mixtral", "qwen2_moe", "qwen3_moe", "deepseek_v3"), "moe", "MoE is not supported")
    if mt != "deepseek_v3":
        need(m.mla is None, "mla", "MLA is not supported")
    need(m.qk_norm == (mt in ("qwen3", "qwen3_moe")), "qk_norm", "q/k norm must match the class")

    if mt in ("llama", "qwen3", "qwen3_moe", "gemma", "deepseek_v3"):
        # attention_bias puts a bias on q, k, v and o alike
        need(m.qkv_bias == m.attention_out_bias, "qkv_bias", "q/k/v bias and o_proj bias must agree")
        cfg["attention_bias"] = m.qkv_bias
    elif mt in ("qwen2", "qwen2_moe"):
        need(m.qkv_bias and not m.attention_out_bias, "qkv_bias", "q/k/v bias without o_proj bias is required")
    elif mt == "glm":
        need(not m.attention_out_bias, "attention_out_bias", "no o_proj bias")
        cfg["attention_bias"] = m.qkv_bias
    else:  # mistral, mixtral
        need(not m.qkv_bias and not m.attention_out_bias, "qkv_bias", "no attention bias")

    if mt in ("mistral", "mixtral"):
        cfg["sliding_window"] = m.sliding_window
    elif mt in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe"):
        cfg["use_sliding_window"] = m.sliding_window is not None
        cfg["sliding_window"] = m.sliding_window
        cfg["max_window_layers"] = m.num_layers

    moe = m.moe
    if moe is not None and mt == "mixtral":
        need(moe.num_shared_experts == 0 and not moe.router_bias, "moe", "no shared experts or router bias")
        need(moe.first_dense_layers == 0, "moe.first_dense_layers", "every layer must be MoE")
        cfg.update(
            num_local_experts=moe.num_experts,
            num_experts_per_tok=moe.top_k,
            intermediate_size=moe.expert_intermediate_size,
        )
    elif moe is not None and mt in ("qwen2_moe", "qwen3_moe"):
        need(moe.first_dense_layers == 0, "moe.first_dense_layers", "every layer must be MoE")
        need(not moe.router_bias, "moe.router_bias", "no router bias")
        cfg.update(
            num_experts=moe.num_experts,
            num_experts_per_tok=moe.top_k,
            moe_intermediate_size=moe.expert_intermediate_size,
            decoder_sparse_step=1,
            mlp_only_layers=[],
            norm_topk_prob=mt == "qwen3_moe",  # Qwen3-MoE configs set it, Qwen1.5/2-MoE do not
        )
        if mt == "qwen2_moe":
            need(
                moe.num_shared_experts == 1 and moe.shared_expert_gate,
                "moe.num_shared_experts",
                "exactly one gated shared expert",
            )
            cfg["shared_expert_intermediate_size"] = (
                moe.shared_expert_intermediate_size or moe.expert_intermediate_size
            )
        else:
            need(moe.num_shared_experts == 0, "moe.num_shared_experts", "no shared experts")
    elif moe is not None and mt == "deepseek_v3":
        need(m.mla is not None, "mla", "MLA is required")
        need(
            moe.shared_expert_intermediate_size in (None, moe.expert_intermediate_size),
            "moe.shared_expert_intermediate_size",
            "shared experts as wide as routed ones",
        )
        assert m.mla is not None
        cfg.update(
            num_key_value_heads=heads,
            n_routed_experts=moe.num_experts,
            n_shared_experts=moe.num_shared_experts,
            num_experts_per_tok=moe.top_k,
            moe_intermediate_size=moe.expert_intermediate_size,
            first_k_dense_replace=moe.first_dense_layers,
            intermediate_size=moe.dense_intermediate_size or m.intermediate_size,
            n_group=moe.n_group or 1,
            topk_group=moe.topk_group or 1,
            norm_topk_prob=True,
            q_lora_rank=m.mla.q_lora_rank,
            kv_lora_rank=m.mla.kv_lora_rank,
            qk_nope_head_dim=m.mla.qk_nope_head_dim,
            qk_rope_head_dim=m.mla.qk_rope_head_dim,
            v_head_dim=m.mla.v_head_dim,
            head_dim=m.mla.qk_rope_head_dim,  # transformers' DeepseekV3Config sets head_dim to the rope part
        )
    return cfg
