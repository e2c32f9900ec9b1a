"""The generic `config.json` path: any decoder-only causal LM, counted as its transformers class lays it out.

Every case is a config and the total of `sum(p.numel())` of the model transformers builds from it on the meta
device (tied embeddings counted once: `parameters()` yields a shared tensor once). The golden totals were produced
with transformers 5.24.0 / torch 2.13.0+cpu by

    cfg = {...}  # a CASES entry
    with torch.device("meta"):
        m = transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model(**cfg))
    print(sum(p.numel() for p in m.parameters()))

and `test_meta_build_matches` re-runs exactly that where torch and transformers are installed; the pure tests
compare `param_count(from_hf_config(cfg))` with the written-down totals, so the check runs without them too.
Configs: the defaults of each transformers config class (its docstring names the checkpoint they reproduce,
e.g. GPT2Config() -> openai-community/gpt2, FalconConfig() -> tiiuae/falcon-7b), keeping only the fields that
shape the parameters; variants flip the flags that change parameter shapes.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from suanli.catalog.hf_config import _GENERIC, _SHAPE_FIELDS, _shape_value, from_hf_config, to_hf_config
from suanli.errors import InputError
from suanli.estimate import arch
from suanli.estimate.params import param_count
from suanli.estimate.speed import matmul_params

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "hf_configs"
MT_NLG = ROOT / "src" / "suanli" / "data" / "validation" / "configs" / "mt-nlg-530b.json"

# name -> (config.json fields, transformers' meta-device parameter total)
CASES: dict[str, tuple[dict[str, Any], int]] = {
    # openai-community/gpt2: transformers 5.24.0 GPT2Config() defaults
    'gpt2': (
        {'model_type': 'gpt2',
         'vocab_size': 50257,
         'n_embd': 768,
         'n_layer': 12,
         'n_head': 12,
         'n_positions': 1024,
         'tie_word_embeddings': True,
         'activation_function': 'gelu_new'},
        124439808,
    ),
    # bigcode/gpt_bigcode-santacoder: transformers 5.24.0 GPTBigCodeConfig() defaults
    'gpt_bigcode': (
        {'model_type': 'gpt_bigcode',
         'vocab_size': 50257,
         'n_embd': 768,
         'n_layer': 12,
         'n_head': 12,
         'num_key_value_heads': 1,
         'n_positions': 1024,
         'tie_word_embeddings': True,
         'multi_query': True,
         'activation_function': 'gelu_pytorch_tanh'},
        111446784,
    ),
    # EleutherAI/gpt-neox-20b: transformers 5.24.0 GPTNeoXConfig() defaults
    'gpt_neox': (
        {'model_type': 'gpt_neox',
         'vocab_size': 50432,
         'hidden_size': 6144,
         'num_hidden_layers': 44,
         'num_attention_heads': 64,
         'intermediate_size': 24576,
         'max_position_embeddings': 2048,
         'tie_word_embeddings': False,
         'attention_bias': True,
         'use_parallel_residual': True,
         'hidden_act': 'gelu'},
        20554567680,
    ),
    # EleutherAI/gpt-j-6B: transformers 5.24.0 GPTJConfig() defaults
    'gptj': (
        {'model_type': 'gptj',
         'vocab_size': 50400,
         'n_embd': 4096,
         'n_layer': 28,
         'n_head': 16,
         'n_positions': 2048,
         'tie_word_embeddings': False,
         'activation_function': 'gelu_new'},
        6050882784,
    ),
    # Salesforce/codegen-2B-mono: transformers 5.24.0 CodeGenConfig() defaults
    'codegen': (
        {'model_type': 'codegen',
         'vocab_size': 50400,
         'n_embd': 4096,
         'n_layer': 28,
         'n_head': 16,
         'n_positions': 2048,
         'tie_word_embeddings': False,
         'activation_function': 'gelu_new'},
        6050882784,
    ),
    # tiiuae/falcon-7b: transformers 5.24.0 FalconConfig() defaults
    'falcon': (
        {'model_type': 'falcon',
         'vocab_size': 65024,
         'hidden_size': 4544,
         'num_hidden_layers': 32,
         'num_attention_heads': 71,
         'num_kv_heads': 71,
         'ffn_hidden_size': 18176,
         'max_position_embeddings': 2048,
         'tie_word_embeddings': True,
         'bias': False,
         'parallel_attn': True,
         'new_decoder_architecture': False,
         'multi_query': True,
         'alibi': False},
        6921720704,
    ),
    # microsoft/phi-1: transformers 5.24.0 PhiConfig() defaults
    'phi': (
        {'model_type': 'phi',
         'vocab_size': 51200,
         'hidden_size': 2048,
         'num_hidden_layers': 24,
         'num_attention_heads': 32,
         'num_key_value_heads': 32,
         'intermediate_size': 8192,
         'max_position_embeddings': 2048,
         'tie_word_embeddings': False,
         'qk_layernorm': False,
         'hidden_act': 'gelu_new'},
        1418270720,
    ),
    # microsoft/Phi-3-mini-4k-instruct: transformers 5.24.0 Phi3Config() defaults
    'phi3': (
        {'model_type': 'phi3',
         'vocab_size': 32064,
         'hidden_size': 3072,
         'num_hidden_layers': 32,
         'num_attention_heads': 32,
         'num_key_value_heads': 32,
         'intermediate_size': 8192,
         'max_position_embeddings': 4096,
         'tie_word_embeddings': False,
         'hidden_act': 'silu'},
        3821079552,
    ),
    # bigscience/bloom: transformers 5.24.0 BloomConfig() defaults
    'bloom': (
        {'model_type': 'bloom',
         'vocab_size': 250880,
         'hidden_size': 64,
         'n_layer': 2,
         'n_head': 8,
         'tie_word_embeddings': True},
        16156544,
    ),
    # facebook/opt-350m: transformers 5.24.0 OPTConfig() defaults
    'opt': (
        {'model_type': 'opt',
         'vocab_size': 50272,
         'hidden_size': 768,
         'num_hidden_layers': 12,
         'num_attention_heads': 12,
         'ffn_dim': 3072,
         'max_position_embeddings': 2048,
         'tie_word_embeddings': True,
         'enable_bias': True,
         'activation_function': 'relu',
         'word_embed_proj_dim': 768},
        125239296,
    ),
    # mosaicml/mpt-7b: transformers 5.24.0 MptConfig() defaults
    'mpt': (
        {'model_type': 'mpt',
         'vocab_size': 50368,
         'd_model': 2048,
         'n_layers': 24,
         'n_heads': 16,
         'max_seq_len': 2048,
         'tie_word_embeddings': True},
        1311213568,
    ),
    # stabilityai/stablelm-3b-4e1t: transformers 5.24.0 StableLmConfig() defaults
    'stablelm': (
        {'model_type': 'stablelm',
         'vocab_size': 50304,
         'hidden_size': 2560,
         'num_hidden_layers': 32,
         'num_attention_heads': 32,
         'num_key_value_heads': 32,
         'intermediate_size': 6912,
         'max_position_embeddings': 4096,
         'tie_word_embeddings': False,
         'use_qkv_bias': False,
         'qk_layernorm': False,
         'use_parallel_residual': False,
         'hidden_act': 'silu'},
        2795443200,
    ),
    # CohereForAI/c4ai-command-r-v01: transformers 5.24.0 CohereConfig() defaults
    'cohere': (
        {'model_type': 'cohere',
         'vocab_size': 256000,
         'hidden_size': 8192,
         'num_hidden_layers': 40,
         'num_attention_heads': 64,
         'num_key_value_heads': 64,
         'intermediate_size': 22528,
         'max_position_embeddings': 8192,
         'tie_word_embeddings': True,
         'attention_bias': False,
         'use_qk_norm': False,
         'hidden_act': 'silu'},
        34980831232,
    ),
    # CohereForAI/c4ai-command-r-v01: transformers 5.24.0 Cohere2Config() defaults
    'cohere2': (
        {'model_type': 'cohere2',
         'vocab_size': 256000,
         'hidden_size': 8192,
         'num_hidden_layers': 40,
         'num_attention_heads': 64,
         'num_key_value_heads': 64,
         'head_dim': 128,
         'intermediate_size': 22528,
         'max_position_embeddings': 8192,
         'tie_word_embeddings': True,
         'attention_bias': False,
         'sliding_window': 4096,
         'hidden_act': 'silu'},
        34980831232,
    ),
    # allenai/OLMo-7B-hf: transformers 5.24.0 OlmoConfig() defaults
    'olmo': (
        {'model_type': 'olmo',
         'vocab_size': 50304,
         'hidden_size': 4096,
         'num_hidden_layers': 32,
         'num_attention_heads': 32,
         'num_key_value_heads': 32,
         'intermediate_size': 11008,
         'max_position_embeddings': 2048,
         'tie_word_embeddings': False,
         'attention_bias': False,
         'hidden_act': 'silu'},
        6888095744,
    ),
    # allenai/OLMo-2-1124-7B: transformers 5.24.0 Olmo2Config() defaults
    'olmo2': (
        {'model_type': 'olmo2',
         'vocab_size': 50304,
         'hidden_size': 4096,
         'num_hidden_layers': 32,
         'num_attention_heads': 32,
         'num_key_value_heads': 32,
         'intermediate_size': 11008,
         'max_position_embeddings': 2048,
         'tie_word_embeddings': False,
         'attention_bias': False,
         'hidden_act': 'silu'},
        6888624128,
    ),
    # allenai/Olmo-3-7B-Instruct: transformers 5.24.0 Olmo3Config() defaults
    'olmo3': (
        {'model_type': 'olmo3',
         'vocab_size': 50304,
         'hidden_size': 4096,
         'num_hidden_layers': 32,
         'num_attention_heads': 32,
         'num_key_value_heads': 32,
         'intermediate_size': 11008,
         'max_position_embeddings': 2048,
         'tie_word_embeddings': False,
         'attention_bias': False,
         'sliding_window': 4096,
         'hidden_act': 'silu'},
        6888624128,
    ),
    # ibm-granite/granite-3.0-8b-base: transformers 5.24.0 GraniteConfig() defaults
    'granite': (
        {'model_type': 'granite',
         'vocab_size': 32000,
         'hidden_size': 4096,
         'num_hidden_layers': 32,
         'num_attention_heads': 32,
         'num_key_value_heads': 32,
         'intermediate_size': 11008,
         'max_position_embeddings': 2048,
         'tie_word_embeddings': False,
         'attention_bias': False,
         'mlp_bias': False,
         'hidden_act': 'silu'},
        6738415616,
    ),
    # bigcode/starcoder2-7b: transformers 5.24.0 Starcoder2Config() defaults
    'starcoder2': (
        {'model_type': 'starcoder2',
         'vocab_size': 49152,
         'hidden_size': 3072,
         'num_hidden_layers': 30,
         'num_attention_heads': 24,
         'num_key_value_heads': 2,
         'intermediate_size': 12288,
         'max_position_embeddings': 4096,
         'tie_word_embeddings': True,
         'use_bias': True,
         'hidden_act': 'gelu_pytorch_tanh'},
        3030371328,
    ),
    # google/gemma2-7b: transformers 5.24.0 Gemma2Config() defaults
    'gemma2': (
        {'model_type': 'gemma2',
         'vocab_size': 256000,
         'hidden_size': 2304,
         'num_hidden_layers': 26,
         'num_attention_heads': 8,
         'num_key_value_heads': 4,
         'head_dim': 256,
         'intermediate_size': 9216,
         'max_position_embeddings': 8192,
         'tie_word_embeddings': True,
         'attention_bias': False,
         'sliding_window': 4096},
        2614341888,
    ),
    # google/gemma-3-4b-it: transformers 5.24.0 Gemma3TextConfig() defaults
    'gemma3_text': (
        {'model_type': 'gemma3_text',
         'vocab_size': 262208,
         'hidden_size': 2304,
         'num_hidden_layers': 26,
         'num_attention_heads': 8,
         'num_key_value_heads': 4,
         'head_dim': 256,
         'intermediate_size': 9216,
         'max_position_embeddings': 131072,
         'tie_word_embeddings': True,
         'attention_bias': False,
         'sliding_window': 4096},
        2628658432,
    ),
    # zai-org/GLM-OCR: transformers 5.24.0 Glm4Config() defaults
    'glm4': (
        {'model_type': 'glm4',
         'vocab_size': 151552,
         'hidden_size': 4096,
         'num_hidden_layers': 40,
         'num_attention_heads': 32,
         'num_key_value_heads': 2,
         'head_dim': 128,
         'intermediate_size': 13696,
         'max_position_embeddings': 131072,
         'tie_word_embeddings': False,
         'attention_bias': True,
         'hidden_act': 'silu'},
        9400279040,
    ),
    # ByteDance-Seed/Seed-OSS-36B-Instruct: transformers 5.24.0 SeedOssConfig() defaults
    'seed_oss': (
        {'model_type': 'seed_oss',
         'vocab_size': 155136,
         'hidden_size': 4096,
         'num_hidden_layers': 64,
         'num_attention_heads': 80,
         'num_key_value_heads': 8,
         'head_dim': 128,
         'intermediate_size': 27648,
         'max_position_embeddings': 524288,
         'tie_word_embeddings': False,
         'attention_bias': True,
         'mlp_bias': False,
         'attention_out_bias': False,
         'hidden_act': 'silu'},
        28921040896,
    ),
    # LGAI-EXAONE/EXAONE-4.0-32B: transformers 5.24.0 Exaone4Config() defaults
    'exaone4': (
        {'model_type': 'exaone4',
         'vocab_size': 102400,
         'hidden_size': 4096,
         'num_hidden_layers': 32,
         'num_attention_heads': 32,
         'num_key_value_heads': 32,
         'intermediate_size': 16384,
         'max_position_embeddings': 2048,
         'tie_word_embeddings': False,
         'sliding_window': 4096,
         'hidden_act': 'silu'},
        9429069824,
    ),
    # internlm/internlm3-8b-instruct: transformers 5.24.0 InternLM3Config() defaults
    'internlm3': (
        {'model_type': 'internlm3',
         'vocab_size': 128512,
         'hidden_size': 4096,
         'num_hidden_layers': 48,
         'num_attention_heads': 32,
         'num_key_value_heads': 2,
         'head_dim': 128,
         'intermediate_size': 10240,
         'max_position_embeddings': 32768,
         'tie_word_embeddings': False,
         'attention_bias': False,
         'mlp_bias': False,
         'hidden_act': 'silu'},
        8804241408,
    ),
    # tiiuae/falcon-40b config.json (huggingface.co/tiiuae/falcon-40b/blob/main/config.json): new decoder
    # architecture, 8 K/V heads, ln_attn + ln_mlp
    'falcon-40b': (
        {'model_type': 'falcon',
         'vocab_size': 65024,
         'hidden_size': 8192,
         'num_hidden_layers': 60,
         'num_attention_heads': 128,
         'num_kv_heads': 8,
         'new_decoder_architecture': True,
         'multi_query': True,
         'parallel_attn': True,
         'bias': False,
         'alibi': False},
        41303293952,
    ),
    'falcon-rw-1b': (
        {'model_type': 'falcon',
         'vocab_size': 50304,
         'hidden_size': 2048,
         'num_hidden_layers': 24,
         'num_attention_heads': 32,
         'multi_query': False,
         'new_decoder_architecture': False,
         'parallel_attn': False,
         'alibi': True,
         'bias': True},
        1311625216,
    ),
}

def _flagged(base: str, drop: tuple[str, ...] = (), **flags: Any) -> dict[str, Any]:
    """A base case's config with some flags set (and keys dropped): the variants transformers builds differently."""
    return {**{k: v for k, v in CASES[base][0].items() if k not in drop}, **flags}


# flag variants of the class defaults above (counts from the same meta-device run)
CASES.update({
    "gpt_neox-no-attention-bias": (_flagged("gpt_neox", attention_bias=False), 20553486336),
    "phi-qk-layernorm": (_flagged("phi", qk_layernorm=True), 1418276864),
    "stablelm-qkv-bias-parallel-qk-norm": (
        _flagged("stablelm", use_qkv_bias=True, qk_layernorm=True, use_parallel_residual=True), 2795688960),
    "cohere-qk-norm": (_flagged("cohere", use_qk_norm=True), 34981486592),
    "starcoder2-no-bias": (_flagged("starcoder2", use_bias=False), 3029710848),
    "granite-biases": (_flagged("granite", attention_bias=True, mlp_bias=True), 6739775488),
    "opt-no-bias-no-affine": (_flagged("opt", enable_bias=False, layer_norm_elementwise_affine=False), 125117952),
    "gpt_bigcode-mha": (_flagged("gpt_bigcode", drop=("num_key_value_heads",), multi_query=False), 124439808),
})


def _load(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


# the Megatron-Turing NLG 530B shape of the validation set (gpt2 class) and Llama-2-7B with mlp_bias
CASES["mt-nlg-530b"] = (json.loads(MT_NLG.read_text(encoding="utf-8")), 529600819200)
CASES["llama-mlp-bias"] = ({**_load("llama-2-7b.json"), "mlp_bias": True}, 6739251200)


@pytest.mark.parametrize("name", CASES)
def test_generic_count_matches_transformers(name: str) -> None:
    cfg, total = CASES[name]
    m = from_hf_config(cfg, name)
    assert param_count(m).total == total


@pytest.mark.parametrize("name", CASES)
def test_to_hf_config_round_trips(name: str) -> None:
    cfg, total = CASES[name]
    m = from_hf_config(cfg, name)
    out = to_hf_config(m)
    assert out["architectures"] == [m.hf_architecture]
    assert out["model_type"] == cfg["model_type"] or cfg["model_type"] not in _GENERIC
    back = from_hf_config(out, name)
    assert param_count(back).total == total
    for field in _SHAPE_FIELDS:
        assert _shape_value(back, field) == _shape_value(m, field), field


def test_every_listed_class_has_a_case() -> None:
    listed = {cfg["model_type"] for cfg, _ in CASES.values()}
    assert set(_GENERIC) - listed == {"internlm2"}  # remote code: transformers cannot build it here


def test_read_fields() -> None:
    falcon7 = from_hf_config(CASES["falcon"][0], "f")
    assert falcon7.num_key_value_heads == 1 and falcon7.norms_per_layer == 1  # multi_query, parallel block
    falcon40 = from_hf_config(CASES["falcon-40b"][0], "f")
    assert falcon40.num_key_value_heads == 8 and falcon40.norms_per_layer is None  # 2: ln_attn + ln_mlp
    rw = from_hf_config(CASES["falcon-rw-1b"][0], "f")
    assert rw.position_embedding == "alibi" and rw.mlp_bias and rw.num_key_value_heads == 32
    mt = from_hf_config(CASES["mt-nlg-530b"][0], "mt")
    assert (mt.hidden_size, mt.num_layers, mt.intermediate_size) == (20480, 105, 81920)
    assert mt.position_embedding == "learned" and mt.position_embedding_rows == 2048 and mt.norm == "layernorm"
    assert not mt.ffn_gated and mt.qkv_bias and mt.attention_out_bias and mt.mlp_bias
    gpt2 = from_hf_config(CASES["gpt2"][0], "g")
    assert gpt2.intermediate_size == 4 * 768  # n_inner null means 4·n_embd
    bloom = from_hf_config(CASES["bloom"][0], "b")
    assert bloom.embedding_norm and bloom.position_embedding == "alibi" and bloom.rope_scaling is None
    assert from_hf_config(CASES["opt"][0], "o").position_embedding_rows == 2048 + 2
    assert from_hf_config(CASES["gpt_bigcode"][0], "s").num_key_value_heads == 1
    assert from_hf_config(CASES["olmo"][0], "o").norm == "nonparametric"
    assert from_hf_config(CASES["starcoder2"][0], "s").ffn_gated is False
    assert from_hf_config(CASES["gemma2"][0], "g").norms_per_layer == 4


def test_unknown_decoder_reads_as_llama_and_says_so() -> None:
    cfg = {**_load("llama-2-7b.json"), "model_type": "my_decoder", "architectures": ["MyDecoderForCausalLM"]}
    m = from_hf_config(cfg, "mine")
    assert m.hf_architecture == "LlamaForCausalLM" and "assumed" in (m.note or "")
    assert param_count(m).total == param_count(from_hf_config(_load("llama-2-7b.json"), "l")).total
    assert to_hf_config(m)["model_type"] == "llama"


def test_kv_cache_and_flops_of_the_new_fields() -> None:
    mt = from_hf_config(CASES["mt-nlg-530b"][0], "mt")
    # learned positions add no KV: 2 (K, V) · 105 layers · 128 heads · 160 head dim · 2 bytes
    assert arch.kv_cache_bytes_per_token(mt, 2.0) == 2 * 105 * 128 * 160 * 2
    p = param_count(mt)
    # the tied vocabulary matrix is a matmul (as lm_head), the 2048-row position table a look-up
    assert matmul_params(mt) == p.total - 2048 * 20480
    falcon7 = from_hf_config(CASES["falcon"][0], "f")
    assert arch.kv_cache_bytes_per_token(falcon7, 2.0) == 2 * 32 * 1 * 64 * 2  # multi_query: one K/V head
    neox = from_hf_config(CASES["gpt_neox"][0], "n")
    assert matmul_params(neox) == param_count(neox).total - 50432 * 6144  # untied: input table is a look-up


@pytest.mark.parametrize(
    ("cfg", "words"),
    [
        ({"model_type": "t5", "d_model": 512, "num_layers": 6}, "encoder-decoder"),
        ({"model_type": "bart", "d_model": 1024}, "encoder-decoder"),
        ({"model_type": "bert", "hidden_size": 768}, "encoder-only"),
        ({"model_type": "vit", "hidden_size": 768}, "vision"),
        ({"model_type": "mamba", "hidden_size": 768}, "state-space"),
        ({"model_type": "my_s2s", "is_encoder_decoder": True}, "encoder-decoder"),
        ({"model_type": "llava", "text_config": {"model_type": "llama"}}, "text_config"),
        ({"model_type": "my_tagger", "architectures": ["MyTaggerForTokenClassification"]}, "TokenClassification"),
    ],
)
def test_non_decoders_get_one_line(cfg: dict[str, Any], words: str) -> None:
    with pytest.raises(InputError) as e:
        from_hf_config(cfg, "x")
    assert e.value.field == "model_type"
    assert cfg["model_type"] in str(e.value) and words in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("name", "drop", "field"),
    [
        ("gpt2", "n_embd", "hidden_size"),
        ("gpt_neox", "intermediate_size", "intermediate_size"),
        ("mpt", "n_heads", "num_attention_heads"),
        ("phi", "vocab_size", "vocab_size"),
    ],
)
def test_missing_field_is_named(name: str, drop: str, field: str) -> None:
    cfg = {k: v for k, v in CASES[name][0].items() if k != drop}
    with pytest.raises(InputError) as e:
        from_hf_config(cfg, "x")
    assert e.value.field == field and "\n" not in str(e.value)


def test_refused_layouts_name_the_field() -> None:
    with pytest.raises(InputError, match="word_embed_proj_dim"):
        from_hf_config({**CASES["opt"][0], "word_embed_proj_dim": 512}, "opt-350m")
    mt = from_hf_config(CASES["mt-nlg-530b"][0], "mt")
    with pytest.raises(InputError, match="mlp_bias"):
        to_hf_config(mt.model_copy(update={"mlp_bias": None}))  # GPT-2's MLP always has biases
    llama = from_hf_config(_load("llama-2-7b.json"), "l")
    with pytest.raises(InputError, match="position_embedding"):
        to_hf_config(llama.model_copy(update={"position_embedding": "learned", "position_embedding_rows": 4096}))


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_meta_build_matches(name: str) -> None:
    torch = pytest.importorskip("torch", reason="torch is an optional extra (pip install torch)")
    transformers = pytest.importorskip("transformers", reason="transformers is an optional extra")
    cfg, total = CASES[name]
    ours = from_hf_config(cfg, name)
    for c in (cfg, to_hf_config(ours)):
        kw = {k: v for k, v in c.items() if not k.startswith("_")}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            conf = transformers.AutoConfig.for_model(**kw)
            with torch.device("meta"):
                built = transformers.AutoModelForCausalLM.from_config(conf)
        assert sum(p.numel() for p in built.parameters()) == total == param_count(ours).total
