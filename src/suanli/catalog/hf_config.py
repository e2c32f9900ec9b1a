"""Hugging Face `config.json` <-> catalog `ModelArch` (pure: takes and returns dicts, reads no file).

`from_hf_config` accepts the config of any decoder-only causal LM. Read with their own rules: model_type llama,
mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, glm, gemma, and the remote-code
types qwen (Qwen-1), chatglm (ChatGLM2/3, GLM-4) and baichuan (Baichuan/Baichuan2). Read through the layout of
their transformers class (`_GENERIC`: norms, biases, positions, parallel blocks, field aliases such as GPT-2's
n_embd): gpt2, gpt_bigcode, gpt_neox, gptj, codegen, falcon, phi, phi3, bloom, opt, mpt, stablelm, cohere(2),
olmo(2, 3), granite, starcoder2, gemma2, gemma3_text, glm4, seed_oss, exaone4, internlm2 — their totals equal
transformers' on the meta device (tests/unit/catalog/test_hf_config_generic.py). Any other model_type with the
standard fields is read as LlamaForCausalLM (MixtralForCausalLM with experts) lays them out, and its note says so.
Encoder-decoder, encoder-only, vision, state-space and multimodal configs are refused in one line naming the
model_type; a missing or malformed field raises `InputError` naming it.

`to_hf_config` goes the other way: a config dict with `model_type` from which transformers builds a model
with the same parameter shapes (`AutoConfig.for_model(**cfg)`); the generic classes keep their model_type and
field names, and a ModelArch their class cannot express is refused, naming the field. Models whose own code needs
`trust_remote_code` map to an equivalent native class: Qwen-1 -> qwen2 (q/k/v bias, no o_proj bias, GQA
with kv = heads), ChatGLM3 / GLM-4 -> glm (q/k/v bias, fused gate_up, partial rotary), Baichuan2 -> llama
(W_pack is q/k/v fused without bias; Baichuan2-13B's ALiBi has no parameters, RoPE none either).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from suanli.catalog.schema import MLAConfig, ModelArch, MoEConfig
from suanli.errors import InputError, validation_message
from suanli.i18n import Message

__all__ = ["HF_ARCHITECTURES", "SUPPORTED_MODEL_TYPES", "config_model_name", "from_hf_config", "to_hf_config"]

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
        raise InputError(key, Message("err.missing_from_the_hugging_face_config"))
    return default


def _int(cfg: dict[str, Any], key: str, default: Any = _MISSING, *, positive: bool = True) -> Any:
    v = _get(cfg, key, default)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or int(v) != v:
        raise InputError(key, Message("err.must_be_an_integer_got", v=v))
    v = int(v)
    if positive and v <= 0:
        raise InputError(key, Message("err.must_be_a_positive_integer_got", v=v))
    if not positive and v < 0:
        raise InputError(key, Message("err.must_not_be_negative_got", v=v))
    return v


def _bool(cfg: dict[str, Any], key: str, default: bool) -> bool:
    v = _get(cfg, key, default)
    if not isinstance(v, bool):
        raise InputError(key, Message("err.must_be_true_or_false_got", v=v))
    return v


def _refuse(cfg: dict[str, Any], key: str, why: str, ok: tuple[Any, ...]) -> None:
    """Refuse a value of `key` outside `ok` (compared with its type: True is not 1 here)."""
    v = cfg.get(key)
    if v is not None and not any(type(v) is type(o) and v == o for o in ok):
        raise InputError(key, Message("err.is_not_supported", v=v, why=why))


def _check_heads(hidden: int, heads: int, kv: int, head_dim: int | None) -> None:
    if heads % kv:
        raise InputError("num_key_value_heads", Message("err.does_not_divide_num_attention_heads", kv=kv, heads=heads))
    if head_dim is None and hidden % heads:
        raise InputError("num_attention_heads", Message("err.does_not_divide_hidden_size_give", heads=heads, hidden=hidden))


def config_model_name(cfg: dict[str, Any], path: str) -> str:
    """The name a config.json file's model goes by, in every command: the config's own `_name_or_path` (what
    transformers' save_pretrained writes: the Hub id, or the last part of a local folder path) when present, else the
    file's stem (`qwen3moe.json` -> qwen3moe); a file named config.json, the Hub's name for every model, takes its
    folder's name (`Qwen3-30B-A3B/config.json` -> Qwen3-30B-A3B)."""
    given = cfg.get("_name_or_path")
    if isinstance(given, str) and given.strip().rstrip("/\\"):
        given = given.strip().rstrip("/\\")
        # a local folder (absolute, relative or home path) is named by its last part; a Hub id stays whole
        local = given.startswith(("/", ".", "~")) or "\\" in given or given.count("/") > 1
        return given.replace("\\", "/").rsplit("/", 1)[-1] if local else given
    parts = path.replace("\\", "/").rstrip("/").split("/")
    stem = parts[-1].rsplit(".", 1)[0] if parts else ""
    if stem.lower() == "config" and len(parts) > 1 and parts[-2] not in ("", ".", ".."):
        return parts[-2]
    return stem or path


def from_hf_config(cfg: dict[str, Any], name: str) -> ModelArch:
    """A `ModelArch` from a Hugging Face `config.json` dict; `name` becomes the id (e.g. the file's name)."""
    if not isinstance(cfg, dict):
        raise InputError("config", Message("err.a_hugging_face_config_must_be"))
    model_type = _get(cfg, "model_type")
    if not isinstance(model_type, str):
        raise InputError("model_type", Message("err.must_be_a_string_got", model_type=model_type))
    _refuse_non_decoder(cfg, model_type)
    native = _native_dtype(cfg)
    if model_type not in _FAMILY:
        return _build({**_generic(cfg, model_type, name), **({"native_dtype": native} if native else {})})
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
    if model_type == "llama" and _bool(cfg, "mlp_bias", False):
        fields["mlp_bias"] = True  # LlamaMLP: gate_proj, up_proj and down_proj with bias=config.mlp_bias
    if model_type == "qwen" and cfg.get("use_dynamic_ntk") is True:
        fields["rope_scaling"] = "dynamic-ntk"  # Qwen-1: dynamic NTK-aware interpolation beyond seq_length
    else:
        fields["rope_scaling"] = _rope_scaling(cfg)
    if fields.get("max_context") is None:
        fields["note"] += _NO_CONTEXT_NOTE.format(mt=model_type)
    if native:
        fields["native_dtype"] = native
    return _build(fields)


def _native_dtype(cfg: dict[str, Any]) -> str | None:
    """The checkpoint's weight dtype where it is not 16-bit: `fp8` for quantization_config.quant_method fp8 (the
    block-wise FP8 of DeepSeek-V3/R1 and the Qwen3 *-FP8 repos: fmt e4m3, weight_block_size [128, 128]; DeepSeek-V3
    README_WEIGHTS.md) or an FP8 compressed-tensors scheme (llm-compressor FP8_DYNAMIC: weights of type float, 8
    bits); None otherwise (16-bit, or a quantization the estimate's default does not follow)."""
    q = cfg.get("quantization_config")
    if not isinstance(q, dict):
        return None
    method = str(q.get("quant_method") or "").lower()
    if method == "fp8":
        return "fp8"
    if method == "compressed-tensors":
        groups = q.get("config_groups")
        weights = [g.get("weights") for g in groups.values() if isinstance(g, dict)] if isinstance(groups, dict) else []
        if weights and all(isinstance(w, dict) and w.get("type") == "float" and w.get("num_bits") == 8
                           for w in weights):
            return "fp8"
    return None


def _rope_scaling(cfg: dict[str, Any]) -> str | None:
    # transformers < 5 writes rope_scaling, 5.x rope_parameters (same rope_type / type key)
    for key in ("rope_scaling", "rope_parameters"):
        rope = cfg.get(key)
        if isinstance(rope, dict) and (rope.get("rope_type") or rope.get("type")) not in (None, "default"):
            return str(rope.get("rope_type") or rope.get("type"))
    return None


def _build(fields: dict[str, Any]) -> ModelArch:
    try:
        return ModelArch(**fields)
    except ValueError as e:  # pydantic ValidationError: name the first bad field
        errs: list[Any] = getattr(e, "errors", lambda: [])()
        field = ".".join(str(p) for p in errs[0]["loc"]) if errs else "config"
        raise InputError(field, errs[0]["msg"] if errs else str(e), validation_message(errs[0]) if errs else None) from None


def _moe(**fields: Any) -> MoEConfig:
    """An `MoEConfig`, its bounds (experts ≥ 1, 1 ≤ num_experts_per_tok ≤ experts) refused in one line."""
    try:
        return MoEConfig(**fields)
    except ValueError as e:  # pydantic ValidationError: MoEConfig's own sentence, which names the config.json field
        errs: list[Any] = getattr(e, "errors", lambda: [])()
        msg = str(errs[0]["msg"]).removeprefix("Value error, ") if errs else str(e)
        raise InputError("moe", msg, validation_message(errs[0]) if errs else None) from None


def _common(cfg: dict[str, Any], model_type: str) -> dict[str, Any]:
    hidden = _int(cfg, "hidden_size")
    heads = _int(cfg, "num_attention_heads")
    kv = _int(cfg, "num_key_value_heads", heads)
    head_dim = _int(cfg, "head_dim", None)
    _check_heads(hidden, heads, kv, head_dim)
    layers = _int(cfg, "num_hidden_layers")
    if model_type != "llama":
        _refuse(cfg, "mlp_bias", f"{model_type} has no FFN biases", (False,))
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
        # MistralAttention / MixtralAttention pass config.sliding_window in every layer (layer_types is ignored)
        out["sliding_window"] = _int(cfg, "sliding_window", None)
    elif model_type in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe"):
        # Qwen keeps a sliding_window value but only uses it when use_sliding_window is true
        if _bool(cfg, "use_sliding_window", False):
            out["sliding_window"] = _int(cfg, "sliding_window")
            out["layer_types"] = _qwen_layer_types(cfg, model_type, layers)
    return out


def _layer_types_field(cfg: dict[str, Any], layers: int) -> tuple[str, ...] | None:
    """config.json's layer_types, checked: one of full_attention / sliding_attention per layer."""
    lt = cfg.get("layer_types")
    if lt is None:
        return None
    if not isinstance(lt, list) or len(lt) != layers or any(
            t not in ("full_attention", "sliding_attention") for t in lt):
        raise InputError("layer_types", Message("err.must_list_full_attention_or_sliding", layers=layers))
    return tuple(lt)


def _qwen_layer_types(cfg: dict[str, Any], model_type: str, layers: int) -> tuple[str, ...] | None:
    """Which layers of a Qwen config with use_sliding_window are windowed (transformers v5.24.0
    configuration_qwen2.py / qwen3: layer i >= max_window_layers (default 28); configuration_qwen2_moe.py: even
    layers below max_window_layers; Qwen3MoeAttention: every layer)."""
    if model_type == "qwen3_moe":
        return None
    given = _layer_types_field(cfg, layers)
    if given is not None:
        return given
    mwl = _int(cfg, "max_window_layers", 28, positive=False)
    if model_type == "qwen2_moe":
        return tuple("sliding_attention" if (i + 1) % 2 and i < mwl else "full_attention" for i in range(layers))
    return tuple("sliding_attention" if i >= mwl else "full_attention" for i in range(layers))


def _generic_windows(cfg: dict[str, Any], model_type: str, lay: _Layout,
                     layers: int) -> tuple[int | None, tuple[str, ...] | None]:
    """sliding_window and layer_types of a generic class: config.json's layer_types where given, else the class's
    default pattern (transformers v5.24.0 configuration_<type>.py: Gemma2Config every 2nd layer global, Gemma3
    sliding_window_pattern (6), Cohere2 sliding_window_pattern (4), Olmo3 every 4th, Exaone4 sliding_window_pattern
    int or 'LLLG' string); Phi-3 and Starcoder2 window every layer; any other class with layer_types (gpt-oss) as
    listed."""
    window = _int(cfg, "sliding_window", None)
    if window is None or (lay.window_every is None and not lay.sliding_window and cfg.get("layer_types") is None):
        return None, None
    given = _layer_types_field(cfg, layers)
    if given is not None:
        return window, given
    if lay.sliding_window or lay.window_every is None:
        return window, None
    pattern: Any = lay.window_every
    if model_type in ("gemma3_text", "cohere2", "exaone4"):  # the classes that read sliding_window_pattern
        pattern = cfg.get("sliding_window_pattern", lay.window_every)
    if isinstance(pattern, str) and pattern and set(pattern) <= {"L", "G"}:
        kinds = tuple("sliding_attention" if pattern[i % len(pattern)] == "L" else "full_attention"
                      for i in range(layers))
    elif isinstance(pattern, int) and not isinstance(pattern, bool) and pattern > 0:
        kinds = tuple("sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(layers))
    else:
        raise InputError("sliding_window_pattern", Message("err.must_be_a_positive_integer_or", pattern=pattern))
    return window, kinds


def _moe_qwen_mixtral(cfg: dict[str, Any], model_type: str) -> MoEConfig:
    if model_type == "mixtral":
        return _moe(
            num_experts=_int(cfg, "num_local_experts"),
            top_k=_int(cfg, "num_experts_per_tok"),
            expert_intermediate_size=_int(cfg, "intermediate_size"),
        )
    _refuse(cfg, "decoder_sparse_step", "only configs with an MoE FFN in every layer are modelled", (1,))
    _refuse(cfg, "mlp_only_layers", "only configs with an MoE FFN in every layer are modelled", ([],))
    shared = _int(cfg, "shared_expert_intermediate_size", 0, positive=False) if model_type == "qwen2_moe" else 0
    return _moe(
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
    moe = _moe(
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
        raise InputError("intermediate_size", Message("err.qwen_gives_w1_w2_together_so", inter=inter))
    if not _bool(cfg, "no_bias", True):
        raise InputError("no_bias", Message("err.false_is_not_supported_qwen_checkpoints"))
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


# ---- every other decoder-only causal LM: the standard fields, read through the layout of its transformers class ----

# model_types that are not a decoder-only causal LM (the reason names the kind)
_ENCODER_DECODER = frozenset({
    "t5", "mt5", "umt5", "longt5", "switch_transformers", "bart", "mbart", "plbart", "pegasus", "pegasus_x", "marian",
    "m2m_100", "nllb-moe", "fsmt", "prophetnet", "xlm-prophetnet", "led", "blenderbot", "blenderbot-small",
    "bigbird_pegasus", "whisper", "speech_to_text", "seamless_m4t", "seamless_m4t_v2", "encoder-decoder",
    "vision-encoder-decoder", "speech-encoder-decoder", "pix2struct", "t5gemma", "mvp", "nougat", "moonshine",
})
_ENCODER = frozenset({
    "bert", "roberta", "xlm-roberta", "xlm-roberta-xl", "deberta", "deberta-v2", "distilbert", "albert", "electra",
    "camembert", "mpnet", "modernbert", "xlm", "ernie", "nezha", "roformer", "funnel", "longformer", "big_bird",
    "megatron-bert", "rembert", "squeezebert", "mobilebert", "layoutlm", "canine", "luke", "esm", "flaubert",
    "ibert", "data2vec-text", "nomic_bert", "jina_bert", "xmod", "markuplm", "splinter",
})
_VISION = frozenset({
    "vit", "deit", "beit", "swin", "swinv2", "convnext", "convnextv2", "resnet", "dinov2", "clip", "clip_vision_model",
    "siglip", "siglip_vision_model", "siglip2", "sam", "detr", "yolos", "mobilevit", "efficientnet", "regnet",
    "segformer", "mask2former", "dpt", "vit_mae", "imagegpt", "levit", "pvt", "hiera", "owlvit", "owlv2",
})
_NOT_ATTENTION = frozenset({
    "mamba", "mamba2", "falcon_mamba", "rwkv", "rwkv7", "jamba", "zamba", "zamba2", "recurrent_gemma", "xlstm",
    "bamba", "falcon_h1", "lfm2", "granitemoehybrid", "nemotron_h", "qwen3_next", "minimax",
})
_CAUSAL_SUFFIXES = ("ForCausalLM", "LMHeadModel")
_OTHER_HEADS = (
    "ForConditionalGeneration", "ForMaskedLM", "ForSeq2SeqLM", "ForSequenceClassification", "ForTokenClassification",
    "ForQuestionAnswering", "ForImageClassification", "ForCTC", "ForAudioClassification", "ForSpeechSeq2Seq",
    "ForPreTraining", "ForMultipleChoice", "ForObjectDetection", "ForSemanticSegmentation", "Encoder",
)


def _refuse_non_decoder(cfg: dict[str, Any], model_type: str) -> None:
    why = None
    if model_type in _ENCODER_DECODER or cfg.get("is_encoder_decoder") is True:
        why = "an encoder-decoder model, not a decoder-only causal LM"
    elif model_type in _ENCODER:
        why = "an encoder-only model, not a decoder-only causal LM"
    elif model_type in _VISION:
        why = "a vision model, not a decoder-only causal LM"
    elif model_type in _NOT_ATTENTION:
        why = "a state-space / recurrent (hybrid) model; only attention decoders are modelled"
    elif isinstance(cfg.get("text_config"), dict) and model_type not in _FAMILY:
        inner = cfg["text_config"].get("model_type")
        why = (f"a multimodal model (vision/audio tower + text decoder); give its text_config alone"
               f"{f' (model_type {inner})' if inner else ''} to size the language model")
    elif model_type not in _FAMILY:
        archs = cfg.get("architectures")
        if isinstance(archs, list) and archs and all(
            isinstance(a, str) and a.endswith(_OTHER_HEADS) and not a.endswith(_CAUSAL_SUFFIXES) for a in archs
        ):
            why = f"built as {', '.join(archs)}, not a decoder-only causal LM (…ForCausalLM / …LMHeadModel)"
    if why:
        raise InputError("model_type", Message("err.is", model_type=model_type, why=why))


@dataclass(frozen=True)
class _Layout:
    """How a transformers class lays out the standard fields (read from its modeling_*.py, transformers 5.24)."""

    cls: str
    norm: str = "rmsnorm"
    norms_per_layer: int = 2
    gated: bool = True
    position: str = "rope"
    qkv_bias: bool = False  # fixed by the class (a flag below may switch it)
    out_bias: bool = False
    mlp_bias: bool = False
    lm_head_bias: bool = False
    tie: bool = False  # the config class's tie_word_embeddings default
    embedding_norm: bool = False
    ffn_4h: bool = False  # intermediate size defaults to (or is fixed at) 4·hidden
    attention_bias_flag: str | None = None  # a flag putting a bias on q, k, v and o
    qkv_bias_only: bool = False  # attention_bias_flag biases q, k, v only (GLM-4)
    out_bias_flag: str | None = None  # a flag for the o_proj bias alone (Seed-OSS)
    mlp_bias_flag: str | None = None
    qk_norm_flag: str | None = None
    qk_norm_width: str | None = None
    sliding_window: bool = False  # sliding_window applies to every layer
    window_every: int | None = None  # default: every n-th layer global, the others windowed (config.layer_types)
    # native field names for to_hf_config: hidden, layers, heads, kv heads, FFN width, positions
    names: tuple[str, str, str, str, str, str] = (
        "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "intermediate_size",
        "max_position_embeddings",
    )


_GPT2_NAMES = ("n_embd", "n_layer", "n_head", "", "n_inner", "n_positions")
_LN, _LNW = "layernorm", "layernorm-weight"
_GENERIC: dict[str, _Layout] = {
    # GPT2Block: ln_1, c_attn (+bias), c_proj (+bias), ln_2, MLP c_fc/c_proj (+bias); wpe; lm_head tied
    "gpt2": _Layout("GPT2LMHeadModel", _LN, gated=False, position="learned", qkv_bias=True, out_bias=True,
                    mlp_bias=True, tie=True, ffn_4h=True, names=_GPT2_NAMES),
    # as GPT-2, with multi_query (one K/V head) by default
    "gpt_bigcode": _Layout("GPTBigCodeForCausalLM", _LN, gated=False, position="learned", qkv_bias=True,
                           out_bias=True, mlp_bias=True, tie=True, ffn_4h=True, names=_GPT2_NAMES),
    # GPTNeoXLayer: two LayerNorms even with use_parallel_residual; query_key_value/dense biased by attention_bias
    "gpt_neox": _Layout("GPTNeoXForCausalLM", _LN, gated=False, mlp_bias=True, attention_bias_flag="attention_bias"),
    # GPTJBlock: one ln_1 feeds attention and MLP in parallel; q/k/v/out_proj without bias; lm_head with bias
    "gptj": _Layout("GPTJForCausalLM", _LN, 1, gated=False, mlp_bias=True, lm_head_bias=True, ffn_4h=True,
                    names=_GPT2_NAMES),
    "codegen": _Layout("CodeGenForCausalLM", _LN, 1, gated=False, mlp_bias=True, lm_head_bias=True, ffn_4h=True,
                       names=_GPT2_NAMES),
    # FalconDecoderLayer: norms and K/V heads depend on new_decoder_architecture / parallel_attn (see _falcon)
    "falcon": _Layout("FalconForCausalLM", _LN, gated=False, tie=True, ffn_4h=True,
                      names=("hidden_size", "num_hidden_layers", "num_attention_heads", "num_kv_heads",
                             "ffn_hidden_size", "max_position_embeddings")),
    # PhiDecoderLayer: one input_layernorm (parallel block); q/k/v/dense, fc1/fc2 and lm_head all with bias
    "phi": _Layout("PhiForCausalLM", _LN, 1, gated=False, qkv_bias=True, out_bias=True, mlp_bias=True,
                   lm_head_bias=True, qk_norm_flag="qk_layernorm", qk_norm_width="head_dim"),
    "phi3": _Layout("Phi3ForCausalLM", sliding_window=True),  # fused qkv_proj / gate_up_proj, no biases
    # BloomBlock: ALiBi, word_embeddings_layernorm, every linear biased, MLP fixed at 4h
    "bloom": _Layout("BloomForCausalLM", _LN, gated=False, position="alibi", qkv_bias=True, out_bias=True,
                     mlp_bias=True, tie=True, embedding_norm=True, ffn_4h=True,
                     names=("hidden_size", "n_layer", "n_head", "", "", "")),
    # OPTDecoderLayer: learned positions with 2 offset rows, enable_bias on every linear (see _opt)
    "opt": _Layout("OPTForCausalLM", _LN, gated=False, position="learned", tie=True,
                   names=("hidden_size", "num_hidden_layers", "num_attention_heads", "", "ffn_dim",
                          "max_position_embeddings")),
    # MptBlock: LayerNorms with the bias removed, no linear biases, ALiBi, MLP fixed at 4h, lm_head tied
    "mpt": _Layout("MptForCausalLM", _LNW, gated=False, position="alibi", tie=True, ffn_4h=True,
                   names=("d_model", "n_layers", "n_heads", "", "", "max_seq_len")),
    # StableLmDecoderLayer: LayerNorm, use_qkv_bias, per-head qk_layernorm, 1 norm with use_parallel_residual
    "stablelm": _Layout("StableLmForCausalLM", _LN, qk_norm_flag="qk_layernorm", qk_norm_width="heads"),
    # CohereDecoderLayer: one bias-free LayerNorm (parallel block), per-head use_qk_norm, lm_head tied
    "cohere": _Layout("CohereForCausalLM", _LNW, 1, tie=True, attention_bias_flag="attention_bias",
                      qk_norm_flag="use_qk_norm", qk_norm_width="heads"),
    # OlmoLayerNorm has no parameters
    "olmo": _Layout("OlmoForCausalLM", "nonparametric", attention_bias_flag="attention_bias"),
    # Olmo2: post-attention and post-FFN RMSNorms only; q_norm/k_norm over all heads
    "olmo2": _Layout("Olmo2ForCausalLM", attention_bias_flag="attention_bias", qk_norm_width="heads"),
    "granite": _Layout("GraniteForCausalLM", attention_bias_flag="attention_bias", mlp_bias_flag="mlp_bias"),
    # Starcoder2: LayerNorm, use_bias on every linear, plain GELU MLP, sliding window in every layer
    "starcoder2": _Layout("Starcoder2ForCausalLM", _LN, gated=False, tie=True, sliding_window=True),
    # Gemma2/3: pre- and post-norms around attention and FFN (4 RMSNorms); Gemma-3 adds q/k norm over head_dim
    "gemma2": _Layout("Gemma2ForCausalLM", norms_per_layer=4, tie=True, attention_bias_flag="attention_bias",
                      window_every=2),
    "gemma3_text": _Layout("Gemma3ForCausalLM", norms_per_layer=4, tie=True, attention_bias_flag="attention_bias",
                           qk_norm_width="head_dim", window_every=6),
    "cohere2": _Layout("Cohere2ForCausalLM", _LNW, 1, tie=True, attention_bias_flag="attention_bias",
                       window_every=4),
    "olmo3": _Layout("Olmo3ForCausalLM", attention_bias_flag="attention_bias", qk_norm_width="heads",
                     window_every=4),
    # Glm4DecoderLayer: input, post-attention, post-self-attn and post-MLP RMSNorms; attention_bias on q/k/v only
    "glm4": _Layout("Glm4ForCausalLM", norms_per_layer=4, attention_bias_flag="attention_bias", qkv_bias_only=True),
    # SeedOss: attention_bias on q/k/v, attention_out_bias on o_proj
    "seed_oss": _Layout("SeedOssForCausalLM", attention_bias_flag="attention_bias", qkv_bias_only=True,
                        out_bias_flag="attention_out_bias", mlp_bias_flag="mlp_bias"),
    # Exaone4: post-attention and post-FFN RMSNorms only, q_norm/k_norm over head_dim
    "exaone4": _Layout("Exaone4ForCausalLM", qk_norm_width="head_dim", window_every=4),
    # InternLM2 (remote code): wqkv and wo biased by `bias`, SwiGLU w1/w3/w2 without bias
    "internlm2": _Layout("LlamaForCausalLM", attention_bias_flag="bias"),
}
GENERIC_MODEL_TYPES: tuple[str, ...] = tuple(_GENERIC)
HF_ARCHITECTURES.update({lay.cls: mt for mt, lay in _GENERIC.items() if lay.cls not in HF_ARCHITECTURES})
# any other model_type with the standard fields is read as LlamaForCausalLM lays them out (note says so)
_LLAMA_LIKE = _Layout("LlamaForCausalLM", attention_bias_flag="attention_bias", mlp_bias_flag="mlp_bias")

_ALIASES: dict[str, tuple[str, ...]] = {
    "hidden_size": ("hidden_size", "n_embd", "n_embed", "d_model"),
    "num_hidden_layers": ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
    "num_attention_heads": ("num_attention_heads", "n_head", "num_heads", "n_heads"),
    "num_key_value_heads": ("num_key_value_heads", "num_kv_heads", "n_head_kv"),
    "intermediate_size": ("intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim"),
    "max_position_embeddings": ("max_position_embeddings", "n_positions", "max_seq_len", "n_ctx", "seq_length"),
}


# The context a transformers config class takes when config.json omits it: each class's documented default for
# max_position_embeddings / n_positions / max_seq_len (huggingface/transformers
# src/transformers/models/<type>/configuration_<type>.py, read at v5.24.0; e.g. FalconConfig
# "max_position_embeddings (int, optional, defaults to 2048)", https://huggingface.co/docs/transformers/model_doc/falcon).
# BloomConfig has none (ALiBi); internlm2 is remote code: neither is listed.
_CONTEXT_DEFAULTS: dict[str, tuple[str, int]] = {
    "gpt2": ("GPT2Config", 1024), "gpt_bigcode": ("GPTBigCodeConfig", 1024), "gpt_neox": ("GPTNeoXConfig", 2048),
    "gptj": ("GPTJConfig", 2048), "codegen": ("CodeGenConfig", 2048), "falcon": ("FalconConfig", 2048),
    "phi": ("PhiConfig", 2048), "phi3": ("Phi3Config", 4096), "opt": ("OPTConfig", 2048), "mpt": ("MptConfig", 2048),
    "stablelm": ("StableLmConfig", 4096), "cohere": ("CohereConfig", 8192), "olmo": ("OlmoConfig", 2048),
    "olmo2": ("Olmo2Config", 2048), "granite": ("GraniteConfig", 2048), "starcoder2": ("Starcoder2Config", 4096),
    "gemma2": ("Gemma2Config", 8192), "gemma3_text": ("Gemma3TextConfig", 131072), "cohere2": ("Cohere2Config", 8192),
    "olmo3": ("Olmo3Config", 2048), "glm4": ("Glm4Config", 131072), "seed_oss": ("SeedOssConfig", 524288),
    "exaone4": ("Exaone4Config", 2048),
}
_NO_CONTEXT_NOTE = ("; the config gives no context length (max_position_embeddings) and no transformers default is "
                    "recorded for model_type {mt}: prompts are not checked against one")


def _std(cfg: dict[str, Any], key: str, default: Any = _MISSING) -> Any:
    """The standard field `key` under any of its names (GPT-2's n_embd is hidden_size)."""
    for name in _ALIASES[key]:
        if cfg.get(name) is not None:
            return _int(cfg, name)
    if default is _MISSING:
        names = _ALIASES[key]
        raise InputError(key, Message("error.hf.missing_also", names=", ".join(names[1:])) if len(names) > 1
                         else Message("err.missing_from_the_hugging_face_config"))
    return default


def _generic(cfg: dict[str, Any], model_type: str, name: str) -> dict[str, Any]:
    lay = _GENERIC.get(model_type, _LLAMA_LIKE)
    known = model_type in _GENERIC
    hidden = _std(cfg, "hidden_size")
    layers = _std(cfg, "num_hidden_layers")
    heads = _std(cfg, "num_attention_heads")
    kv = _std(cfg, "num_key_value_heads", heads)
    head_dim = _int(cfg, "head_dim", None)
    if lay.ffn_4h and model_type in ("bloom", "mpt"):
        inter = 4 * hidden  # BloomMLP / MptMLP: 4·hidden_size, whatever the config says
    elif lay.ffn_4h:
        inter = _std(cfg, "intermediate_size", 4 * hidden)  # n_inner / ffn_hidden_size: None means 4·hidden
    else:
        inter = _std(cfg, "intermediate_size")
    qkv_bias, out_bias, mlp_bias = lay.qkv_bias, lay.out_bias, lay.mlp_bias
    if lay.attention_bias_flag:
        qkv_bias = _bool(cfg, lay.attention_bias_flag, model_type == "gpt_neox")
        out_bias = False if lay.qkv_bias_only else qkv_bias
    if lay.out_bias_flag:
        out_bias = _bool(cfg, lay.out_bias_flag, False)
    if lay.mlp_bias_flag:
        mlp_bias = _bool(cfg, lay.mlp_bias_flag, False)
    norm, npl, position = lay.norm, lay.norms_per_layer, lay.position
    qk_norm = lay.qk_norm_width is not None and (lay.qk_norm_flag is None or _bool(cfg, lay.qk_norm_flag, False))
    rows = None
    positions = _std(cfg, "max_position_embeddings", None)
    sliding, layer_types = _generic_windows(cfg, model_type, lay, layers)
    note = f"parsed from a Hugging Face config.json (model_type {model_type})"
    if not known:
        note += "; layout assumed LlamaForCausalLM's (RMSNorm, SwiGLU, RoPE): the model_type is not in the list read"
        for flag in ("bias", "use_bias"):  # a bias flag of an unknown class: assumed on every linear layer
            if _bool(cfg, flag, False):
                qkv_bias = out_bias = mlp_bias = True
                note += f"; {flag}: true assumed on every linear layer"
        if cfg.get("qkv_bias") is not None:
            qkv_bias = _bool(cfg, "qkv_bias", False)
        if cfg.get("attention_out_bias") is not None:
            out_bias = _bool(cfg, "attention_out_bias", False)
    if model_type == "gpt_bigcode":
        kv = 1 if _bool(cfg, "multi_query", True) else heads
    elif model_type == "falcon":
        kv, npl, position, qkv_bias = _falcon(cfg, heads)
        out_bias = mlp_bias = qkv_bias
    elif model_type == "opt":
        if _int(cfg, "word_embed_proj_dim", hidden) != hidden:
            raise InputError("word_embed_proj_dim", Message("err.a_projection_between_embedding_and_hidden"))
        if not _bool(cfg, "do_layer_norm_before", True):
            raise InputError("do_layer_norm_before", Message("err.false_post_norm_no_final_norm"))
        qkv_bias = out_bias = mlp_bias = _bool(cfg, "enable_bias", True)
        if not _bool(cfg, "layer_norm_elementwise_affine", True):
            norm = "nonparametric"
        positions = _std(cfg, "max_position_embeddings")
        rows = positions + 2  # OPTLearnedPositionalEmbedding: max_position_embeddings + offset 2
    elif model_type == "stablelm":
        qkv_bias = _bool(cfg, "use_qkv_bias", False)
        npl = 1 if _bool(cfg, "use_parallel_residual", False) else 2
    elif model_type == "starcoder2":
        qkv_bias = out_bias = mlp_bias = _bool(cfg, "use_bias", True)
    elif model_type == "olmo2":
        qk_norm = True
    if model_type == "gpt2" or model_type == "gpt_bigcode":
        positions = _std(cfg, "max_position_embeddings")
    if position == "learned" and rows is None:
        rows = positions
    if kv not in (heads,) and model_type in ("gpt2", "gptj", "codegen", "bloom", "mpt", "opt", "gpt_neox"):
        raise InputError("num_key_value_heads", Message("err.has_as_many_k_v_heads", model_type=model_type, heads=heads, kv=kv))
    _check_heads(hidden, heads, kv, head_dim)
    out: dict[str, Any] = {
        "id": name,
        "family": model_type.replace("_", "-"),
        "kind": "llm",
        "hf_architecture": lay.cls,
        "source": "user-config",
        "note": note,
        "hidden_size": hidden,
        "num_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "head_dim": head_dim,
        "intermediate_size": inter,
        "ffn_gated": lay.gated,
        "vocab_size": _int(cfg, "vocab_size"),
        "tie_word_embeddings": _bool(cfg, "tie_word_embeddings", lay.tie),
        "qkv_bias": qkv_bias,
        "attention_out_bias": out_bias,
        "mlp_bias": mlp_bias or None,
        "lm_head_bias": lay.lm_head_bias or None,
        "qk_norm": qk_norm,
        "qk_norm_width": lay.qk_norm_width if qk_norm and lay.qk_norm_width == "heads" else None,
        "norm": norm,
        "norms_per_layer": None if npl == 2 else npl,
        "embedding_norm": lay.embedding_norm or None,
        "position_embedding": None if position == "rope" else position,
        "position_embedding_rows": rows if position == "learned" else None,
        "max_context": positions,
        "sliding_window": sliding,
        "layer_types": layer_types,
        "rope_scaling": _rope_scaling(cfg) if position == "rope" else None,
    }
    if model_type == "mpt":
        out["max_context"] = _int(cfg, "max_seq_len", None)
    if out["max_context"] is None:  # never unbounded silently
        if model_type in _CONTEXT_DEFAULTS:
            cls, ctx = _CONTEXT_DEFAULTS[model_type]
            out["max_context"] = ctx
            out["note"] += f"; context {ctx:,} tokens: the config omits it, {cls}'s default in transformers"
        else:
            out["note"] += _NO_CONTEXT_NOTE.format(mt=model_type)
    moe = _generic_moe(cfg)
    if moe is not None:
        if known:
            raise InputError("num_experts", Message("err.moe_layers_of_are_not_modelled", model_type=model_type))
        out["moe"] = moe
        out["hf_architecture"] = "MixtralForCausalLM"  # router Linear(h, E) + gated experts, as Mixtral
        out["note"] = note.replace("LlamaForCausalLM's (RMSNorm, SwiGLU, RoPE)", "MixtralForCausalLM's (RMSNorm, "
                                   "SwiGLU experts, RoPE)")
    return out


def _falcon(cfg: dict[str, Any], heads: int) -> tuple[int, int, str, bool]:
    """FalconAttention / FalconDecoderLayer: K/V heads, norms per layer, positions, bias (every linear)."""
    new = _bool(cfg, "new_decoder_architecture", False)
    mqa = _bool(cfg, "multi_query", True)
    kv_cfg = _std(cfg, "num_key_value_heads", heads)
    if new:
        kv = kv_cfg  # query_key_value: (2·num_kv_heads + heads)·head_dim
    elif mqa:
        kv = 1  # query_key_value: hidden + 2·head_dim
    else:
        kv = heads  # query_key_value: 3·hidden (num_kv_heads plays no part in the weights)
    if not _bool(cfg, "parallel_attn", True):
        npl = 2  # input_layernorm + post_attention_layernorm
    else:
        n_ln = _int(cfg, "num_ln_in_parallel_attn", None)
        npl = n_ln if n_ln is not None else (2 if new else 1)  # ln_attn + ln_mlp, or input_layernorm
        if npl not in (1, 2):
            raise InputError("num_ln_in_parallel_attn", Message("err.must_be_or_got", npl=npl))
    return kv, npl, "alibi" if _bool(cfg, "alibi", False) else "rope", _bool(cfg, "bias", False)


def _generic_moe(cfg: dict[str, Any]) -> MoEConfig | None:
    n = cfg.get("num_local_experts") or cfg.get("num_experts") or cfg.get("n_routed_experts")
    if not n:
        return None
    key = next(k for k in ("num_local_experts", "num_experts", "n_routed_experts") if cfg.get(k))
    return _moe(
        num_experts=_int(cfg, key),
        top_k=_int(cfg, "num_experts_per_tok"),
        expert_intermediate_size=_int(cfg, "moe_intermediate_size", None) or _int(cfg, "intermediate_size"),
    )


def _model_type(m: ModelArch) -> str:
    if m.hf_architecture:
        if m.hf_architecture not in HF_ARCHITECTURES:
            raise InputError(
                "hf_architecture",
                Message("err.unknown_known", m_hf_architecture=m.hf_architecture, names_hf_architectures=', '.join(HF_ARCHITECTURES)),
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
        raise InputError("kind", Message("err.is_a_model_only_llms_have", m_id=m.id, m_kind=m.kind))
    mt = _model_type(m)
    if mt in _GENERIC:
        return _to_generic(m, mt)
    if not m.ffn_gated:
        raise InputError("ffn_gated", Message("err.the_class_has_a_gated_ffn", m_id=m.id, mt=mt))
    if m.norm != "rmsnorm":
        raise InputError("norm", Message("err.the_class_uses_rmsnorm", m_id=m.id, mt=mt))
    for field, default in (("norms_per_layer", 2), ("embedding_norm", False), ("lm_head_bias", False),
                           ("position_embedding", "rope"), ("qk_norm_width", "head_dim")):
        value = getattr(m, field)
        if value is not None and value != default and not (field == "position_embedding" and value == "alibi"):
            raise InputError(field, Message("err.cannot_be_expressed_by_transformers_model", m_id=m.id, value=value, mt=mt))
    if m.mlp_bias and mt != "llama":
        raise InputError("mlp_bias", Message("err.ffn_biases_cannot_be_expressed_by", m_id=m.id, mt=mt))
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
        **({"mlp_bias": True} if m.mlp_bias else {}),
        # class defaults (e.g. GLM-4's pad id 151329) may lie outside a smaller vocabulary
        "pad_token_id": None,
    }
    if m.head_dim:
        cfg["head_dim"] = m.head_dim

    def need(cond: bool, field: str, why: str) -> None:
        if not cond:
            raise InputError(field, Message("err.for_transformers_model_type", m_id=m.id, why=why, mt=mt))

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
        if m.layer_types is not None and mt != "qwen3_moe":
            cfg["layer_types"] = list(m.layer_types)

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


# fields that fix the parameter shapes, compared after a round trip through a generic class's config
_SHAPE_FIELDS = (
    "hidden_size", "num_layers", "num_attention_heads", "num_key_value_heads", "intermediate_size", "ffn_gated",
    "vocab_size", "tie_word_embeddings", "qkv_bias", "attention_out_bias", "mlp_bias", "lm_head_bias", "qk_norm",
    "qk_norm_width", "norm", "norms_per_layer", "embedding_norm", "position_embedding", "position_embedding_rows",
    "sliding_window", "layer_types", "moe", "mla",
)


def _shape_value(m: ModelArch, field: str) -> Any:
    v = getattr(m, field)
    if field in ("mlp_bias", "lm_head_bias", "embedding_norm"):
        return bool(v)
    if field == "norms_per_layer":
        return 2 if v is None else v
    if field == "position_embedding":
        return v or "rope"
    if field == "qk_norm_width":
        return (v or "head_dim") if m.qk_norm else None
    if field == "layer_types":
        return _effective_layer_types(m)
    return v


def _effective_layer_types(m: ModelArch) -> tuple[str, ...]:
    """Every layer's attention kind, layer_types None spelt out (all sliding with a window, else all full)."""
    if m.layer_types is not None:
        return m.layer_types
    kind = "sliding_attention" if m.sliding_window is not None else "full_attention"
    return (kind,) * (m.num_layers or 0)


def _to_generic(m: ModelArch, mt: str) -> dict[str, Any]:
    """The config of `mt` (a class read by the generic path) in its own field names; refused where the class
    cannot express `m` (checked by reading the config back)."""
    lay = _GENERIC[mt]
    n_h, n_l, n_heads, n_kv, n_f, n_pos = lay.names
    heads = m.num_attention_heads or 0
    kv = m.num_key_value_heads or heads
    rows = m.position_embedding_rows
    cfg: dict[str, Any] = {
        "model_type": mt,
        "architectures": [lay.cls],
        "vocab_size": m.vocab_size,
        n_h: m.hidden_size,
        n_l: m.num_layers,
        n_heads: heads,
        "tie_word_embeddings": m.tie_word_embeddings,
        # class defaults (e.g. GPT-2's 50256) may lie outside a smaller vocabulary
        "pad_token_id": None,
        "bos_token_id": None,
        "eos_token_id": None,
    }
    if n_kv:
        cfg[n_kv] = kv
    if n_f:
        cfg[n_f] = m.intermediate_size
    if n_pos:
        cfg[n_pos] = rows if mt in ("gpt2", "gpt_bigcode") and rows else m.max_context or 2048
    if m.head_dim:
        cfg["head_dim"] = m.head_dim
    if lay.attention_bias_flag:
        cfg[lay.attention_bias_flag] = m.qkv_bias
    if lay.out_bias_flag:
        cfg[lay.out_bias_flag] = m.attention_out_bias
    if lay.mlp_bias_flag:
        cfg[lay.mlp_bias_flag] = bool(m.mlp_bias)
    if lay.qk_norm_flag:
        cfg[lay.qk_norm_flag] = m.qk_norm
    if lay.sliding_window:
        cfg["sliding_window"] = m.sliding_window
    elif lay.window_every is not None:
        # the class's own default window (Gemma2Config 4096) would apply without it; null turns windows off
        cfg["sliding_window"] = m.sliding_window
        if m.sliding_window is not None:
            cfg["layer_types"] = list(_effective_layer_types(m))
    npl = 2 if m.norms_per_layer is None else m.norms_per_layer
    if mt == "gpt_bigcode":
        cfg["multi_query"] = kv == 1
    elif mt == "falcon":
        new = npl == 2 or kv not in (1, heads)
        cfg.update(new_decoder_architecture=new, multi_query=kv == 1, parallel_attn=True, bias=m.qkv_bias,
                   alibi=m.position_embedding == "alibi")
        if new:
            cfg["num_ln_in_parallel_attn"] = npl
    elif mt == "opt":
        cfg.update(enable_bias=m.qkv_bias, word_embed_proj_dim=m.hidden_size, do_layer_norm_before=True,
                   layer_norm_elementwise_affine=m.norm != "nonparametric")
        cfg[n_pos] = (rows - 2) if rows else m.max_context or 2048
    elif mt == "stablelm":
        cfg.update(use_qkv_bias=m.qkv_bias, use_parallel_residual=npl == 1)
    elif mt == "starcoder2":
        cfg["use_bias"] = m.qkv_bias
    back = from_hf_config(cfg, m.id)
    for field in _SHAPE_FIELDS:
        want, got = _shape_value(m, field), _shape_value(back, field)
        if field == "head_dim":
            continue
        if want != got:
            raise InputError(field, Message("err.cannot_be_expressed_by_transformers_model_2", m_id=m.id, want=want, mt=mt, lay_cls=lay.cls, got=got))
    return cfg
