"""Parameter counts from architecture: hand-checked formulas and every preset against its published count.

Tolerance against `published_params` / `published_active_params`: 2 %. Published counts are rounded to
two or three significant digits ("32.5B" is +-0.15 %, "3.3B" +-1.5 %), and publishers differ on whether the
router and the embeddings count as "activated" (DeepSeek-V3's 37B and Qwen3-30B-A3B's 3.3B sit 1.5 % and
1.6 % below the per-token count with both). Where the only published figure is the size class of the name
(note starting "nominal": Qwen-7B is 7.72e9, Baichuan2-7B 7.51e9), the count must be within 11 % of it;
the exact check of those presets is the meta-device build in tests/reference/test_params_meta.py.
"""

from __future__ import annotations

import pytest

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import model
from suanli.catalog.schema import DiffusionComponent, MLAConfig, ModelArch, MoEConfig
from suanli.errors import EstimateError
from suanli.estimate.params import ParamBreakdown, param_count

CAT = packaged_catalog()
LLMS = [m for m in CAT.models if m.kind == "llm"]
PUBLISHED_TOL = 0.02
NOMINAL_TOL = 0.11


def _arch(**kw: object) -> ModelArch:
    base: dict[str, object] = dict(
        id="t/tiny", family="llama", hidden_size=64, num_layers=2, num_attention_heads=4,
        num_key_value_heads=2, intermediate_size=128, vocab_size=1000, source="assumed",
    )
    base.update(kw)
    return ModelArch(**base)  # type: ignore[arg-type]


def test_dense_terms_by_hand() -> None:
    b = param_count(_arch())
    h, d, kv, f, v, layers = 64, 16, 2, 128, 1000, 2
    attn = h * h + 2 * h * kv * d + h * h  # q, k, v, o
    assert b.per_layer_attention == attn
    assert b.attention == layers * attn
    assert b.ffn == layers * 3 * h * f
    assert b.embedding == v * h and b.lm_head == v * h
    assert b.norms == (2 * layers + 1) * h
    assert b.router == 0
    assert b.total == b.embedding + b.attention + b.ffn + b.norms + b.lm_head
    assert b.active == b.total
    assert b.logits_params == v * h
    assert b.non_embedding == b.total - v * h


def test_options_change_the_right_terms() -> None:
    base = param_count(_arch())
    tied = param_count(_arch(tie_word_embeddings=True))
    assert tied.lm_head == 0 and tied.total == base.total - 1000 * 64 and tied.logits_params == 1000 * 64
    bias = param_count(_arch(qkv_bias=True))
    assert bias.per_layer_attention - base.per_layer_attention == 64 + 2 * 2 * 16
    out_bias = param_count(_arch(attention_out_bias=True))
    assert out_bias.per_layer_attention - base.per_layer_attention == 64
    qk = param_count(_arch(qk_norm=True, head_dim=32))
    assert qk.per_layer_attention == 64 * 4 * 32 + 2 * 64 * 2 * 32 + 4 * 32 * 64 + 2 * 32
    ln = param_count(_arch(norm="layernorm"))
    assert ln.norms == 2 * base.norms
    ungated = param_count(_arch(ffn_gated=False))
    assert ungated.ffn == 2 * 2 * 64 * 128


def test_moe_terms_and_active() -> None:
    moe = MoEConfig(
        num_experts=8, top_k=2, num_shared_experts=1, expert_intermediate_size=32,
        first_dense_layers=1, dense_intermediate_size=128, router_bias=True,
    )
    b = param_count(_arch(num_layers=3, moe=moe))
    expert = 3 * 64 * 32
    assert b.dense_ffn_layers == 1 and b.moe_layers == 2
    assert b.dense_ffn_per_layer == 3 * 64 * 128
    assert b.moe_ffn_per_layer == 9 * expert  # 8 routed + 1 shared
    assert b.moe_active_ffn_per_layer == 3 * expert  # top-2 + shared
    assert b.router_per_layer == 64 * 8 + 8
    assert b.ffn == b.dense_ffn_per_layer + 2 * b.moe_ffn_per_layer
    assert b.total - b.active == 2 * 6 * expert
    assert b.ffn_params_of_layer(0) == b.dense_ffn_per_layer
    assert b.ffn_params_of_layer(2) == b.moe_ffn_per_layer
    assert b.active_ffn_params_of_layer(1) == b.moe_active_ffn_per_layer
    gate = param_count(_arch(moe=MoEConfig(num_experts=4, top_k=1, expert_intermediate_size=32,
                                           num_shared_experts=1, shared_expert_intermediate_size=96,
                                           shared_expert_gate=True)))
    assert gate.router_per_layer == 64 * 4 + 64
    assert gate.moe_ffn_per_layer == 4 * 3 * 64 * 32 + 3 * 64 * 96


def test_mla_attention_by_hand() -> None:
    mla = MLAConfig(q_lora_rank=24, kv_lora_rank=16, qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=8)
    b = param_count(_arch(mla=mla))
    h, heads = 64, 4
    q = h * 24 + 24 + 24 * heads * 12
    kv = h * (16 + 4) + 16 + 16 * heads * (8 + 8)
    o = heads * 8 * h
    assert b.per_layer_attention == q + kv + o
    no_q_lora = param_count(_arch(mla=mla.model_copy(update={"q_lora_rank": None})))
    assert no_q_lora.per_layer_attention == h * heads * 12 + kv + o


def test_llama_2_7b_exact() -> None:
    # 32·(4·4096² + 3·4096·11008 + 2·4096) + 2·32000·4096 + 4096 = 6,738,415,616 (= sum(numel) of the HF model)
    assert param_count(model(CAT, "llama-2-7b")).total == 6_738_415_616


def test_deepseek_v3_counts() -> None:
    b = param_count(model(CAT, "deepseek-v3"))
    assert b.moe_layers == 58 and b.dense_ffn_layers == 3
    assert b.total == 671_026_419_200  # incl. 58·256 router correction biases the checkpoint stores
    assert 37.0e9 < b.active < 37.6e9


def test_diffusion_is_sum_of_components() -> None:
    sd = model(CAT, "sd-1.5")
    b = param_count(sd)
    assert b.components == {"unet": 859_520_964, "text_encoder": 123_060_480, "vae": 83_653_863}
    assert b.total == b.active == sum(b.components.values())
    flux = param_count(model(CAT, "flux.1-dev"))
    assert set(flux.components) == {"transformer", "text_encoder", "text_encoder_2", "vae"}
    with pytest.raises(EstimateError):
        param_count(ModelArch(id="x/d", family="x", kind="diffusion", source="assumed"))


def test_diffusion_components_match_published_rounding() -> None:
    for m in CAT.models:
        for c in m.components:
            assert isinstance(c, DiffusionComponent)
            chosen = c.params.value
            for alt in c.params.values:
                assert abs(alt.value - chosen) / chosen < PUBLISHED_TOL, (m.id, c.name, alt)


def test_missing_field_is_an_estimate_error() -> None:
    m = _arch().model_copy(update={"hidden_size": None})
    with pytest.raises(EstimateError, match="hidden_size"):
        param_count(m)


def test_breakdown_is_frozen() -> None:
    b = param_count(_arch())
    assert isinstance(b, ParamBreakdown)
    with pytest.raises(Exception):
        b.total = 1  # type: ignore[misc]


@pytest.mark.parametrize("m", LLMS, ids=lambda m: m.id)
def test_published_total(m: ModelArch) -> None:
    assert m.published_params is not None, f"{m.id} has no published_params"
    total = param_count(m).total
    pub = m.published_params.chosen
    tol = NOMINAL_TOL if (pub.note or "").startswith("nominal") else PUBLISHED_TOL
    assert abs(total - pub.value) / pub.value <= tol, (total, pub.value, tol)


@pytest.mark.parametrize("m", [m for m in LLMS if m.moe], ids=lambda m: m.id)
def test_published_active(m: ModelArch) -> None:
    assert m.published_active_params is not None, f"MoE {m.id} has no published_active_params"
    active = param_count(m).active
    pub = m.published_active_params.value
    assert abs(active - pub) / pub <= PUBLISHED_TOL, (active, pub)


@pytest.mark.parametrize("m", [m for m in LLMS if not m.moe], ids=lambda m: m.id)
def test_dense_active_equals_total(m: ModelArch) -> None:
    b = param_count(m)
    assert b.active == b.total


REQUIRED = [
    "Llama-2-7b-hf", "Llama-2-13b-hf", "Llama-2-70b-hf", "Llama-3.1-8B", "Llama-3.1-70B", "Llama-3.1-405B",
    "Qwen-1_8B", "Qwen-7B", "Qwen-14B", "Qwen-72B",
    "qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b", "Qwen/Qwen2.5-7B-Instruct", "qwen2.5-14b", "qwen2.5-32b",
    "qwen2.5-72b", "qwen3-8b", "qwen3-14b", "qwen3-32b", "qwen3-30b-a3b", "qwen3-235b-a22b",
    "deepseek-v3", "deepseek-r1", "DeepSeek-R1-Distill-Qwen-7B", "deepseek-r1-distill-qwen-32b",
    "mistral-7b", "mixtral-8x7b", "chatglm3-6b", "glm-4-9b", "baichuan2-7b", "baichuan2-13b", "yi-34b",
    "sd-1.5", "sdxl", "flux.1-dev",
]


@pytest.mark.parametrize("name", REQUIRED)
def test_issue_presets_exist(name: str) -> None:
    m = model(CAT, name)
    assert m.source in CAT.sources
    if m.kind == "llm":
        assert m.max_context and m.hf_architecture


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("QWEN/qwen2.5-7B-INSTRUCT", "Qwen/Qwen2.5-7B-Instruct"),
        ("Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct"),
        ("Qwen/Qwen2.5-7B", "Qwen/Qwen2.5-7B-Instruct"),
        ("llama-3.1-8b", "meta-llama/Llama-3.1-8B"),
        ("meta-llama/Meta-Llama-3.1-8B", "meta-llama/Llama-3.1-8B"),
        ("deepseek-ai/deepseek-v3", "deepseek-ai/DeepSeek-V3"),
        ("SDXL", "stabilityai/stable-diffusion-xl-base-1.0"),
        ("FLUX.1-dev", "black-forest-labs/FLUX.1-dev"),
    ],
)
def test_lookup_names(name: str, expected: str) -> None:
    assert model(CAT, name).id == expected
