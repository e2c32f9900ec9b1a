"""Speed: inference prefill/decode by roofline over dense peaks with calibrated efficiency, and training
step time from FLOPs per token, compute efficiency and derived communication."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from suanli.estimate import xp
from pydantic import BaseModel, ConfigDict

from suanli.catalog.schema import Accelerator, Catalog, EfficiencyFactor, ModelArch
from suanli.estimate import arch
from suanli.estimate.efficiency import Efficiency, efficiency
from suanli.estimate.memory import (
    engine_predates,
    grad_bytes_per_param,
    kept_16bit_bytes,
    storage_precision,
    weights_bytes,
)
from suanli.estimate.params import param_count
from suanli.estimate.precision import (
    QUANTIZED,
    activation_bytes,
    compute_dtype,
    peak_flops_per_s,
    weight_bytes_per_param,
)
from suanli.estimate.scaling import (
    OVERLAP_FRACTION_OF_BACKWARD,
    CommTimes,
    bus,
    bus_half,
    group_ranks_per_node,
    link_rates,
    links_for,
    ring_allgather_s,
    ring_allreduce_s,
    rented_inter_node_bytes_per_s,
)
from suanli.estimate.workload import RECOMPUTE, Workload, engine_release
from suanli.errors import EstimateError
from suanli.i18n import Message
from suanli.units import GB, TFLOPS

__all__ = [
    "InferenceSpeedTerms",
    "TrainingSpeedTerms",
    "inference_rates",
    "inference_speed_terms",
    "inference_step",
    "joining_ttft_s",
    "StepLinks",
    "step_links",
    "training_rates",
    "training_speed_terms",
    "training_step",
    "training_step_of",
    "InferenceSpeed",
    "TrainingSpeed",
    "AWQ_GEMM_MAX_TOKENS",
    "awq_gemm_byte_factor",
    "QUANT_KERNEL_RULES",
    "QuantKernelRule",
    "quant_kernel_byte_factor",
    "quant_kernel_rule",
    "awq_gemm_notes",
    "quant_kernel_share_notes",
    "quant_kernel_notes",
    "roof_rates",
    "runs_awq_gemm",
    "runs_eager",
    "device_rates",
    "engine_release",
    "inference_speed",
    "matmul_params",
    "steady_tpot_s",
    "tpot_within",
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
    ttft_joining_s: float  # a request joining a running batch of `batch` (continuous batching); plans quote this
    tpot_steady_s: float  # `steady_tpot_s`: the batch kept full by continuous batching; serving plans quote this
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
        return float(n - (p.embedding - p.logits_params))  # shared matrix used once, as lm_head; positions: look-up
    return float(n - p.embedding)


def training_flops_per_token(m: ModelArch, seq: int) -> float:
    """Model FLOPs per trained token: 6N + 12·L·H·Q·T (PaLM, Chowdhery et al. 2022, App. B)."""
    return 6 * matmul_params(m) + 3 * arch.attention_flops_per_token(m, seq)


@dataclass(frozen=True)
class InferenceSpeedTerms:
    """Model-level inputs of the inference speed kernel for one precision, engine, prompt and output length."""

    input: int
    output: int
    matmul_params: float
    weights_bytes: float
    lookup_bytes: float
    total_params: float
    active_params: float
    experts: int
    top_k: int
    kv_bytes_per_token: float
    kv_read_factor: float
    prefill_attention_flops_per_token: float
    decode_attention_flops_per_token: float
    decode_context: float
    act_traffic_bytes_per_token_layer: float
    hidden_act_bytes: float
    layers: int
    moe_layers: float
    a2a_bytes_per_token: float
    prefill_score_bytes_per_token: float = 0.0
    decode_score_bytes_per_token: float = 0.0
    attention_kv_reads: float = 1.0
    # the cache's heads tensor parallelism splits it by (arch.kv_cache_heads; 0: split by any tp), and of the KV passes
    # outside / inside the attention kernel those over the cache itself, which a rank makes over the heads it holds
    # (the rest, repeat_kv copies or per-query-head reads, follow the query heads and split by tp)
    kv_cache_heads: int = 0
    kv_cache_reads_outside: float = 0.0
    kv_cache_reads_in_kernel: float = 1.0
    attention_blocks_per_sequence: float = 0.0
    linear_calls: float = 0.0
    identical_tokens: bool = False  # all tokens of a pass are the same (Workload.identical_tokens): one routing
    kv_proj_bytes: float = 0.0  # K and V projection weights, read whole per KV head a rank holds (arch.kv_proj_params)
    # of the weight bytes a forward pass reads, the share in AWQ's int4 linears where the engine release runs them
    # through AWQ's own GEMM kernel (`runs_awq_gemm`); 0 elsewhere (`awq_gemm_byte_factor`)
    awq_gemm_weight_share: float = 0.0
    # a 4-bit kernel with a per-pass rule (`QUANT_KERNEL_RULES`: bitsandbytes nf4, AutoGPTQ's GPTQ kernels): the share
    # of the read weight bytes in its quantized linears, the 16-bit bytes its dequantize-then-GEMM path writes and reads
    # again per packed byte, the input rows one pass over the packed weights serves (0: all) and the pass size from
    # which it dequantizes (0: never) (`quant_kernel_byte_factor`); share 0 where no rule applies
    quant_weight_share: float = 0.0
    quant_dequant_bytes_per_byte: float = 0.0
    quant_rows_per_pass: float = 0.0
    quant_dequant_from_tokens: float = 0.0


# attention without a fused (flash) kernel moves its score matrix four times per element: the QK^T product is
# written, the softmax reads it and writes probabilities, P·V reads them — in fp32 for the softmax (transformers
# eager_attention_forward: softmax(dtype=float32); llama.cpp's graph: F32 KQ, soft_max_ext, F32 KQV input), so 16
# bytes per element; flash attention keeps them on chip (Dao et al. 2022, FlashAttention §3.1: HBM accesses)
SCORE_BYTES_PER_ELEMENT = 16.0
# llama.cpp's CUDA back end runs KQ and KQV as batched cuBLAS GEMMs in F16 (ggml_cuda_mul_mat_batched_cublas,
# ggerganov/llama.cpp:ggml-cuda.cu at 005de593, early 2024, the non-flash path of the PR #6017 runs): KQ is written as
# F16 (2) and converted to the graph's F32 tensor (to_fp32: read 2, write 4), the soft-max reads and writes F32 (4 + 4),
# and KQV converts its F32 input to F16 (to_fp16: read 4, write 2) before the GEMM reads it (2): 24 bytes per element
LLAMACPP_SCORE_BYTES_PER_ELEMENT = 24.0


def score_bytes_per_element(engine: str) -> float:
    """HBM bytes a materialised attention score moves per element without flash attention, by engine."""
    return LLAMACPP_SCORE_BYTES_PER_ELEMENT if engine == "llama.cpp" else SCORE_BYTES_PER_ELEMENT
# PCIe x16 bytes per second per direction by generation (PCI-SIG base specifications: 8/16/32/64 GT/s per lane,
# 128b/130b encoding up to 5.0, 6.0 FLIT mode 242/256 payload; frameworks.yaml pci-sig-x16)
PCIE_X16_BYTES_PER_S = {3: 15.75 * GB, 4: 31.5 * GB, 5: 63.0 * GB, 6: 121.0 * GB}


def inference_speed_terms(m: ModelArch, w: Workload, kv_per_query_head: bool = False,
                          awq_gemm: bool = False) -> InferenceSpeedTerms:
    """`kv_per_query_head`: the release's decode attention reads the cache per query head (`reads_kv_per_query_head`);
    `awq_gemm`: the release runs the AWQ checkpoint's linears through AWQ's own GEMM kernel (`runs_awq_gemm`)."""
    arch.require_llm(m, "token speed")
    p = param_count(m)
    lookup_bytes = 0.0 if p.lm_head == 0 else p.embedding * (
        2.0 if w.precision in QUANTIZED else weight_bytes_per_param(w.precision))
    read_bytes = weights_bytes(m, w.precision) - lookup_bytes  # what a forward pass reads (`weight_bytes_read`)
    act_b = activation_bytes(w.precision)
    kv_b = weight_bytes_per_param(w.kv_dtype) if w.kv_dtype else act_b
    i, o = w.input, w.output
    # decode: one token per sequence per step, at the mean context length; sliding-window layers hold and read
    # at most their window (arch.cached_positions: the mean over layers)
    ctx = arch.cached_positions(m, i + o / 2)
    # the quantized linears' bytes (all but the 16-bit embedding and lm_head, memory.kept_16bit_bytes) of the read
    quantized_share = (read_bytes - (kept_16bit_bytes(m, w.precision) - lookup_bytes)) / read_bytes \
        if read_bytes > 0 else 0.0
    rule = quant_kernel_rule(w)
    return InferenceSpeedTerms(
        input=i,
        output=o,
        matmul_params=matmul_params(m),
        weights_bytes=weights_bytes(m, w.precision),
        kv_proj_bytes=arch.kv_proj_params(m) * weight_bytes_per_param(w.precision),
        # an untied input embedding is a look-up: a forward pass reads one row per token, not the table
        # (Kaplan et al. 2020 §2.1); a tied one is read whole as the lm_head
        lookup_bytes=lookup_bytes,
        total_params=float(p.total),
        active_params=float(p.active),
        experts=m.moe.num_experts if m.moe else 0,
        top_k=m.moe.top_k if m.moe else 0,
        kv_bytes_per_token=arch.kv_cache_bytes_per_token(m, kv_b, w.engine),
        kv_read_factor=kv_read_factor(m, w.engine),
        attention_kv_reads=attention_kv_reads(m, w.engine, kv_per_query_head),
        kv_cache_heads=arch.kv_cache_heads(m, w.engine),
        # transformers' repeat_kv reads the cache once, then works on the per-query-head copies; a GQA-aware kernel
        # reads the cache itself once; a per-query-head kernel (kv_per_query_head) reads it per query head
        # and a cache grown by concatenation is read and written whole each step (kv_append_passes)
        kv_cache_reads_outside=(1.0 if kv_repeat_factor(m, w.engine) > 1 else 0.0) + kv_append_passes(w.engine),
        kv_cache_reads_in_kernel=1.0 if attention_kv_reads(m, w.engine, kv_per_query_head) == 1.0 else 0.0,
        # the attention kernel's thread blocks per sequence at one query: one per head it sees (FlashAttention-2's
        # forward grid is query blocks x batch x heads, Dao 2023 §3.2; transformers hands it the heads after repeat_kv)
        attention_blocks_per_sequence=float(m.num_attention_heads or 0),
        # causal: i/2 keys on average; a window layer at most its window (arch.prefill_keys_per_query)
        prefill_attention_flops_per_token=arch.attention_flops_per_token(m, arch.prefill_keys_per_query(m, i)),
        decode_attention_flops_per_token=arch.attention_flops_per_token(m, ctx),
        decode_context=ctx,
        # norms, rotary, activation functions and residual adds are memory-bound and run between the GEMMs:
        # each writes and reads the layer's activations once (Ivanov et al. 2021, "Data Movement Is All You
        # Need", MLSys, §3), so their time adds to the GEMMs'
        act_traffic_bytes_per_token_layer=2 * arch.activation_bytes_per_token_per_layer(m, act_b, "none", True, i),
        hidden_act_bytes=(m.hidden_size or 0) * act_b,
        layers=m.num_layers or 0,
        moe_layers=moe_layers_per_stage(m, 1),
        a2a_bytes_per_token=(m.moe.top_k if m.moe else 0) * (m.hidden_size or 0) * act_b,
        # score elements per token: heads × keys seen (causal prefill: i/2 on average; decode: the context)
        prefill_score_bytes_per_token=0.0 if w.flash_attention else
        (m.num_layers or 0) * (m.num_attention_heads or 0) * (i / 2) * score_bytes_per_element(w.engine),
        decode_score_bytes_per_token=0.0 if w.flash_attention else
        (m.num_layers or 0) * (m.num_attention_heads or 0) * ctx * score_bytes_per_element(w.engine),
        linear_calls=(m.num_layers or 0) * linear_calls_per_layer(m),
        identical_tokens=w.identical_tokens,
        awq_gemm_weight_share=quantized_share if awq_gemm else 0.0,
        quant_weight_share=quantized_share if rule is not None else 0.0,
        # the dequantize step writes each weight in the 16-bit compute dtype and the GEMM reads it back
        quant_dequant_bytes_per_byte=2 * act_b / weight_bytes_per_param(w.precision),
        quant_rows_per_pass=float(rule.rows_per_pass) if rule is not None else 0.0,
        quant_dequant_from_tokens=float(rule.dequant_from_tokens) if rule is not None else 0.0,
    )


def linear_calls_per_layer(m: ModelArch) -> float:
    """Linear modules one token's forward calls per decoder layer in transformers' modeling code: q, k, v and o
    projections (modeling_llama.py LlamaAttention), gate, up and down per MLP (LlamaMLP) — for MoE once per expert the
    token routes to plus the shared experts (modeling_qwen2_moe.py / modeling_deepseek: a loop over the selected
    experts)."""
    mlps = float(m.moe.top_k + m.moe.num_shared_experts) if m.moe else 1.0
    return 4.0 + 3.0 * mlps


def kv_repeat_factor(m: ModelArch, engine: str) -> float:
    """Bytes of KV cache the attention moves per cached byte. Serving engines read the cache once in a GQA-aware
    kernel (vLLM/FlashAttention paged kernels). Hugging Face transformers' eager/SDPA path copies K and V to every
    query head first (`repeat_kv`: expand + reshape, transformers models/llama/modeling_llama.py; GLM-4's
    modeling_chatglm.py does the same with expand().contiguous()): read the cache once, write g copies and read them
    again, g = heads / kv_heads, so 1 + 2g."""
    if engine != "hf" or m.mla is not None:
        return 1.0
    heads = m.num_attention_heads or 0
    kv = arch._kv_heads(m)
    g = heads / kv if kv else 1.0
    return 1.0 if g <= 1 else 1.0 + 2.0 * g


def kv_append_passes(engine: str) -> float:
    """Passes over the whole KV cache an engine makes each step to add the new token's keys and values. transformers'
    dynamic cache grows by concatenation: every layer's update is `torch.cat([self.keys, key_states], dim=-2)` and the
    same for the values (transformers cache_utils.py DynamicLayer.update, 5.x; DynamicCache.update since 4.36; the
    models' own `torch.cat((past_key, key), dim=2)` before, and remote code such as Qwen 1 / GLM-4), which reads the
    old cache and writes a new one: 2. Paged and pre-allocated caches (vLLM, SGLang, TensorRT-LLM, LMDeploy, llama.cpp)
    write the new token in place: 0."""
    return 2.0 if engine == "hf" else 0.0


def kv_read_factor(m: ModelArch, engine: str) -> float:
    """Bytes of KV cache a decode step moves per cached byte: the attention's (`kv_repeat_factor`) plus the cache's
    growth (`kv_append_passes`)."""
    return kv_repeat_factor(m, engine) + kv_append_passes(engine)


def attention_kv_reads(m: ModelArch, engine: str, per_query_head: bool = False) -> float:
    """Of `kv_repeat_factor`, the reads the attention kernel itself makes: the g expanded copies after `repeat_kv`
    (the copy kernel reads the cache once and writes g copies at full bandwidth), else the cache once.
    `per_query_head`: a decode kernel with one thread block per (sequence, query head), each loading its KV head's
    cache (TensorRT-LLM's masked MHA before XQA: `hi_kv = hi / qhead_per_kv`, decoderMaskedMultiheadAttentionTemplate.h),
    reads it g = heads / kv_heads times and copies nothing; L2 reuse between those blocks is not counted."""
    f = kv_repeat_factor(m, engine)
    if per_query_head and m.mla is None and f <= 1:
        kv = arch._kv_heads(m)
        return max(1.0, (m.num_attention_heads or 0) / kv) if kv else 1.0
    return 1.0 if f <= 1 else (f - 1.0) / 2.0


def reads_kv_per_query_head(cat: Catalog, w: Workload) -> bool:
    """The run's engine release predates its GQA decode kernel (InferenceEngine.gqa_decode_kernel_from); a workload
    without a release (the planner's, or a case that states none) runs the current one."""
    return engine_predates(cat, w, "gqa_decode_kernel_from")


def runs_eager(cat: Catalog | None, w: Workload) -> bool:
    """Inference on an engine release older than the one that runs decode as a captured graph by default
    (InferenceEngine.graph_mode_from: vLLM-Ascend before 0.9.0rc1, V0, every operator dispatched from the host), whose
    per-step overhead is the efficiency metric eager_step_overhead_s; a workload without a release runs the current one."""
    return not w.training and engine_predates(cat, w, "graph_mode_from")


# vLLM's AWQ linear method (vllm/model_executor/layers/quantization/awq.py, AWQLinearMethod.apply): a forward pass of at
# least this many tokens dequantizes the weights and runs torch.matmul; fewer run the awq_gemm kernel
AWQ_GEMM_MAX_TOKENS = 256


def runs_awq_gemm(cat: Catalog | None, w: Workload) -> bool:
    """Inference on an AWQ checkpoint (Workload.quant_method awq, int4) with an engine release older than the one
    that runs AWQ through Marlin by default (InferenceEngine.awq_marlin_from: vLLM before 0.5.3), which runs AWQ's own
    GEMM kernel (awq_gemm, adapted from llm-awq) instead; a workload without a release runs the current one."""
    return (not w.training and w.quant_method == "awq" and w.precision == "int4"
            and engine_predates(cat, w, "awq_marlin_from"))


def awq_gemm_notes(cat: Catalog, acc: Accelerator, w: Workload, overrides: tuple[EfficiencyFactor, ...] = ()
                   ) -> list[Message]:
    """The estimate's line where `runs_awq_gemm` applies: the release, the kernel, and the read rate charged on `acc`
    (efficiency metric awq_gemm_share) or that none is measured there; empty elsewhere."""
    if not runs_awq_gemm(cat, w):
        return []
    row = next(e for e in cat.engines if e.id == w.engine)
    e = efficiency(cat, acc, "awq_gemm_share", w.precision, engine_for_efficiency(cat, w.engine), overrides)
    said = dict(engine=row.name, version=w.engine_version, tokens=AWQ_GEMM_MAX_TOKENS, first=row.awq_marlin_from,
                device=acc.name)
    if e.basis == "assumed":
        return [Message("est.note.awq_gemm_unmeasured", **said)]
    return [Message("est.note.awq_gemm", **said, share=e.value, source=e.source)]


def awq_gemm_byte_factor(t: InferenceSpeedTerms, tokens: Any, r: Any) -> Any:
    """Multiplier on a forward pass's weight bytes (over arrays of `tokens`, the pass's tokens): the share of them in
    AWQ linears run by AWQ's GEMM kernel (`t.awq_gemm_weight_share`) is read at r["e_awq"] of the 16-bit rate
    (efficiency metric awq_gemm_share), so it costs 1 / e_awq its bytes; a pass of AWQ_GEMM_MAX_TOKENS tokens or more
    dequantizes and runs the 16-bit GEMM (vLLM's heuristic), as does every pass where the rule does not apply."""
    if t.awq_gemm_weight_share == 0:  # no AWQ linears: 1 (the formula's 1 + 0 without its arrays)
        return 1.0
    slower = t.awq_gemm_weight_share * (1.0 / r.get("e_awq", 1.0) - 1.0)
    return 1.0 + xp.where(xp.asarray(tokens) < AWQ_GEMM_MAX_TOKENS, slower, 0.0)


@dataclass(frozen=True)
class QuantKernelRule:
    """How a 4-bit kernel runs one forward pass of a linear layer over `tokens` input rows: a pass over the packed
    weights serves `rows_per_pass` rows (0: all of them), and from `dequant_from_tokens` rows (0: never) it
    dequantizes the whole weight to a 16-bit copy and multiplies by that copy with cuBLAS. `share_metric`: the
    efficiency metric giving the rate of one pass over the packed weights as a share of the 16-bit path's read rate
    on the device (None: the 16-bit rate, no kernel measurement)."""

    rows_per_pass: int
    dequant_from_tokens: int
    share_metric: str | None = None


QUANT_KERNEL_RULES: dict[str, QuantKernelRule] = {
    # bitsandbytes matmul_4bit: gemv_4bit on the packed weights only for one token (A.numel() == A.shape[-1];
    # CHANGELOG 0.40.0 "4-bit inference kernels for batch size=1"); larger passes run MatMul4Bit: F.dequantize_4bit
    # then torch.nn.functional.linear (bitsandbytes/autograd/_functions.py)
    "nf4": QuantKernelRule(rows_per_pass=1, dequant_from_tokens=2),
    # AutoGPTQ exllama (v1): q4_matmul_cuda launches one block row per input row (blocks.y = x_height, THREADS_Y 1),
    # each reading its weight tiles; from matmul_recons_thd = 8 rows (autogptq_post_init: "the default from exllama
    # repo") q4_matmul_recons_cuda reconstructs the fp16 matrix into temp_dq and runs cublasHgemm
    # (autogptq_extension/exllama/cuda_func/q4_matmul.cu, auto_gptq/modeling/_utils.py)
    "exllama": QuantKernelRule(rows_per_pass=1, dequant_from_tokens=8, share_metric="gptq_exllama_share"),
    # AutoGPTQ exllamav2 GPTQ path: gemm_half_q_half_cuda reconstructs + cuBLAS when size_m > MAX_Q_GEMM_ROWS (50),
    # else runs the quantized GEMM over chunks of BLOCK_M_SIZE_MAX = 8 rows (exllamav2/cuda/q_gemm.cu)
    "exllamav2": QuantKernelRule(rows_per_pass=8, dequant_from_tokens=51),
    # AutoGPTQ qlinear_cuda_old (use_cuda_fp16): below kernel_switch_threshold = 128 rows VecQuant4MatMulKernelFaster_old
    # with the batch as the grid's z dimension (each row's blocks read the packed weights); from 128 rows the weights
    # are unpacked with torch ops to fp16 and multiplied by torch.matmul (qlinear_cuda_old.py forward,
    # autogptq_extension/cuda_256/autogptq_cuda_kernel_256.cu) — counted as one 16-bit copy, the least those ops move
    "cuda-old": QuantKernelRule(rows_per_pass=1, dequant_from_tokens=128, share_metric="gptq_cuda_old_share"),
}


def quant_kernel_rule(w: Workload) -> QuantKernelRule | None:
    """The per-pass rule of the 4-bit kernel an inference workload runs: bitsandbytes for nf4, the stated AutoGPTQ
    kernel (Workload.gptq_kernel) for int4 GPTQ through transformers; None elsewhere (one pass, no copy)."""
    if w.training:
        return None
    if w.precision == "nf4":
        return QUANT_KERNEL_RULES["nf4"]
    return QUANT_KERNEL_RULES[w.gptq_kernel] if w.gptq_kernel is not None else None


def quant_kernel_notes(w: Workload) -> list[Message]:
    """The estimate's line for a 4-bit kernel with a per-pass rule (`quant_kernel_rule`): which passes dequantize to a
    16-bit copy and how many times a decode step reads the packed weights; empty where no rule applies."""
    rule = quant_kernel_rule(w)
    if rule is None:
        return []
    ratio = 1.0 + 2 * activation_bytes(w.precision) / weight_bytes_per_param(w.precision)
    if w.precision == "nf4":
        return [Message("est.note.bnb_dequant" if w.batch > 1 else "est.note.bnb_dequant_prefill", batch=w.batch,
                        ratio=ratio)]
    return [Message("est.note.gptq_kernel_dequant" if w.batch >= rule.dequant_from_tokens else "est.note.gptq_kernel",
                    kernel=w.gptq_kernel, batch=w.batch, passes=float(quant_passes(rule.rows_per_pass, w.batch)),
                    rows=rule.dequant_from_tokens, ratio=ratio)]


def quant_passes(rows_per_pass: Any, tokens: Any) -> Any:
    """Passes over the packed weights a kernel serving `rows_per_pass` input rows each (0: all) makes for `tokens`."""
    rows = xp.asarray(rows_per_pass, dtype=float)
    return xp.where(rows > 0, xp.ceil(xp.asarray(tokens, dtype=float) / xp.where(rows > 0, rows, 1.0)), 1.0)


def quant_kernel_byte_factor(t: InferenceSpeedTerms, tokens: Any, r: Any) -> Any:
    """Multiplier on a forward pass's weight bytes (over arrays of `tokens`, the pass's tokens) for the quantized
    linears of a kernel with a per-pass rule (`t.quant_weight_share`, `QUANT_KERNEL_RULES`): from its dequantize size
    the packed bytes are read once and a 16-bit copy written and read back; below it the packed weights are read once
    per pass, a pass serving `quant_rows_per_pass` rows — each from device memory, assumed (no cache reuse between the
    passes counted: a layer's packed matrices are of the order of the L2 cache or larger) — at r["e_quant"] of the
    16-bit read rate (the kernel's `share_metric`; 1 where none is measured), so each pass costs 1 / e_quant its bytes."""
    if t.quant_weight_share == 0:  # no such linears: 1 (the formula's 1 + 0 × extra without its arrays)
        return 1.0
    tok = xp.asarray(tokens, dtype=float)
    dequant = (t.quant_dequant_from_tokens > 0) & (tok >= t.quant_dequant_from_tokens)
    passes = quant_passes(t.quant_rows_per_pass, tok) / r.get("e_quant", 1.0)
    extra = xp.where(dequant, t.quant_dequant_bytes_per_byte, passes - 1.0)
    return 1.0 + t.quant_weight_share * extra


def quant_kernel_share_notes(cat: Catalog, acc: Accelerator, w: Workload,
                             overrides: tuple[EfficiencyFactor, ...] = ()) -> list[Message]:
    """The estimate's line for a 4-bit kernel whose packed-weight passes have a measured rate (`share_metric`): the
    share of the 16-bit read rate charged on `acc`, or that none is measured there; empty elsewhere."""
    rule = quant_kernel_rule(w)
    if rule is None or rule.share_metric is None or w.batch >= rule.dequant_from_tokens:
        return []
    e = efficiency(cat, acc, rule.share_metric, w.precision, engine_for_efficiency(cat, w.engine), overrides)
    if e.basis == "assumed":
        return [Message("est.note.quant_kernel_share_unmeasured", kernel=w.gptq_kernel, device=acc.name)]
    return [Message("est.note.quant_kernel_share", kernel=w.gptq_kernel, device=acc.name, share=e.value,
                    source=e.source)]


def attention_sm_share(blocks: Any, sm_count: Any) -> Any:
    """Share of the device's SMs a decode attention kernel without split-KV keeps busy: it launches one thread block
    per sequence and head (FlashAttention-2 forward: grid query blocks x batch x heads, one query block at decode),
    each block streams its whole KV sequence alone, so with fewer blocks than SMs the rest idle and the kernel reads
    the cache at that share of the bandwidth (Dao, Haziza, Massa, Sizov 2023, "Flash-Decoding for long-context
    inference": FlashAttention "does not manage to occupy the entire GPU" at small batch; each SM taken to draw
    1/sm_count of the bandwidth, assumed). Engines that split the KV (Flash-Decoding) fill the device: sm_count 0,
    share 1."""
    sm = xp.asarray(sm_count, dtype=float)
    return xp.where(sm > 0, xp.minimum(1.0, xp.maximum(blocks, 1.0) / xp.where(sm > 0, sm, 1.0)), 1.0)


def weight_bytes_read(t: InferenceSpeedTerms, tokens: Any, ep: Any = 1.0) -> Any:
    """Weights one forward pass over `tokens` tokens must read: all dense weights, and for MoE the experts the
    tokens route to under uniform routing, 1 − (1 − k/E)^T of them. Identical tokens (`identical_tokens`) have
    identical hidden states at every layer — causal attention over equal value vectors returns that value whatever
    the (rotary) scores — so they route as one token: k/E of the experts.
    Expert parallel over `ep` ranks (DeepSeek-V3 technical report, arXiv 2412.19437, §3.4 inference deployment:
    attention and shared experts data/tensor parallel, routed experts spread over the EP group): `tokens` are the whole
    EP group's, and a rank reads the dense (attention, shared, dense-layer) weights whole and, of its E/ep routed
    experts, those that group's tokens touch — the same 1 − (1 − k/E)^T share, of 1/ep of the routed bytes."""
    if t.experts == 0:
        return t.weights_bytes - t.lookup_bytes + 0.0 * tokens
    if t.identical_tokens:
        tokens = 1.0 + 0.0 * tokens
    per = t.weights_bytes / max(t.total_params, 1)
    routed_total = (t.total_params - t.active_params) * t.experts / max(t.experts - t.top_k, 1)
    touched = 1.0 - (1.0 - t.top_k / t.experts) ** xp.maximum(tokens, 1.0)
    return (t.total_params - routed_total + touched * routed_total / ep) * per - t.lookup_bytes


def replicated_weight_bytes(t: InferenceSpeedTerms, kv_rep: Any) -> Any:
    """Weight bytes a rank reads beyond its 1/tp share, times tp (as the kernels divide by tp): the K/V projections of
    the KV heads it holds replicated, (kv_rep − 1) × their bytes (arch.kv_proj_params; the rule inference memory
    uses)."""
    return t.kv_proj_bytes * (kv_rep - 1.0)


def pass_weight_bytes(t: InferenceSpeedTerms, tokens: Any, ep: Any, kv_rep: Any, r: Any) -> Any:
    """Weight bytes one forward pass over `tokens` tokens of a replica costs at the device's weight-read rate: those it
    reads (`weight_bytes_read` over the expert-parallel group's tokens, plus the K/V projections its KV replicas
    repeat, `replicated_weight_bytes`), the AWQ linears of a release that runs AWQ's own GEMM kernel charged at that
    kernel's slower rate (`awq_gemm_byte_factor`), bitsandbytes' 4-bit linears with the 16-bit copy they dequantize
    to on a pass of more than one token and AutoGPTQ's kernels with their per-pass rules (`quant_kernel_byte_factor`).
    One function for prefill, the decode step and its roofline."""
    read = weight_bytes_read(t, tokens * ep, ep) + replicated_weight_bytes(t, kv_rep)
    return read * awq_gemm_byte_factor(t, tokens, r) * quant_kernel_byte_factor(t, tokens, r)


def kv_replication(t: InferenceSpeedTerms, tp: Any) -> Any:
    """How many times 1/tp of the KV cache one tensor-parallel rank holds, writes and reads over arrays of tp: 1
    while tp ≤ the cache's heads, tp / heads past them (a KV head per rank, replicated), tp for MLA's one latent
    head (arch.kv_cache_share_per_rank, the rule inference memory uses)."""
    if t.kv_cache_heads <= 0:
        return 1.0 + 0.0 * tp
    return arch.kv_cache_share_per_rank(t.kv_cache_heads, tp) * tp


@dataclass(frozen=True)
class StepLinks:
    """`inference_step`'s terms of a layout (tp, ep) on a device (`r`) that the batch does not change: the
    tensor-parallel group's bus (bytes/s), latency (s) and S_half (bytes), the rank's KV replication (`kv_replication`)
    and the expert-parallel all-to-alls as a function of a forward's tokens (`_expert_all_to_alls`). `step_links`
    computes them; a caller that steps the same layouts at many batches (the planner's batch searches) passes them."""

    busbw: Any
    lat: Any
    half: Any
    kv_rep: Any
    a2a_s: Callable[[Any], Any]


def step_links(t: InferenceSpeedTerms, tp: Any, ep: Any, r: Any) -> StepLinks:
    """`StepLinks` of layouts `tp`, `ep` (arrays or floats) on device rates `r`: each group's bus from its ranks per
    node (tensor innermost, then expert: scaling.group_ranks_per_node)."""
    cpn = r["cards_per_node"]
    tp_multi, tp_rpn = group_ranks_per_node(1.0, tp, cpn)
    busbw, lat = bus(r["intra_bw"], r["intra_lat"], r["inter_bw"], r["inter_lat"], tp_multi, tp_rpn, cpn)
    half = bus_half(r.get("intra_half", 0.0), r.get("inter_half", 0.0), tp_multi)  # bus bandwidth's size curve
    return StepLinks(busbw, lat, half, kv_replication(t, tp), _expert_all_to_alls(t, tp, ep, r))


def inference_step(t: InferenceSpeedTerms, tp: Any, ep: Any, batch: Any, r: Any, pp: Any = 1.0,
                   links: StepLinks | None = None) -> dict[str, Any]:
    """Roofline over arrays of layouts: time = max(FLOPs / (peak · matmul eff.), bytes / (bandwidth · decode
    eff.)) + elementwise traffic + tensor/expert-parallel collectives + the engine's per-forward overhead.
    `r` holds the device rates (arrays or floats): peak, bw, e_mm, e_bw, e_stream, overhead, intra_bw,
    intra_lat, inter_bw, inter_lat, cards_per_node, linear_call_s. Tensor parallel splits each layer's weights and
    work; pipeline stages run one after another for one token, so pp does not shorten a step; it adds the pp − 1
    stage-to-stage sends of the hidden states (`pipeline_send_s`).
    Expert parallel (`ep` > 1; DeepSeek-V3 technical report, arXiv 2412.19437, §3.4 inference deployment: attention
    data/tensor parallel, routed experts expert-parallel, dispatch/combine all-to-all): `batch` stays one replica's
    concurrent sequences (a replica: its tp ranks, which hold those sequences' KV cache), and ep such replicas — data-
    parallel attention, each rank reading all attention and shared weights (its 1/tp) — share one set of routed
    experts, E/ep per replica (memory.ep_share_of). A rank's expert GEMMs see the group's ep·b tokens' routings to its
    experts, b·top_k of them on average under uniform routing: the FLOPs of b tokens, as without ep; the expert bytes it
    reads are those of its own experts that the ep·b tokens touch (`weight_bytes_read` over the group's tokens).
    `links`: `step_links(t, tp, ep, r)` where the caller has them (the same layouts and rates)."""
    lk = links if links is not None else step_links(t, tp, ep, r)
    busbw, lat, half, a2a_s = lk.busbw, lk.lat, lk.half, lk.a2a_s
    b, i, o = batch, t.input, t.output
    # the engine's per-forward overhead, plus a per-call host cost for each linear layer where its kernel for this
    # precision has one (r["linear_call_s"]: 0 for every engine but transformers' fine-grained FP8Linear)
    overhead = r["overhead"] + t.linear_calls * r["linear_call_s"]
    # prefill: the whole batch of prompts in one pass
    pf_flops = 2 * t.matmul_params * b * i + b * i * t.prefill_attention_flops_per_token
    kv_rep = lk.kv_rep  # each rank writes and reads the KV heads it holds: past the heads, replicas (`kv_replication`)
    pf_bytes = pass_weight_bytes(t, b * i, ep, kv_rep, r) + t.kv_bytes_per_token * b * i * (
        t.kv_read_factor + kv_rep - 1.0)
    pf_compute = pf_flops / (r["peak"] * r["e_mm"]) / tp
    pf_memory = pf_bytes / (r["bw"] * r["e_bw"]) / tp
    pf_elementwise = b * i * (t.layers * t.act_traffic_bytes_per_token_layer + t.prefill_score_bytes_per_token) / (
        r["bw"] * r["e_stream"]) / tp
    # tensor parallel: 2 all-reduces of the activations per layer (Megatron-LM, Shoeybi et al. 2019 §3); expert
    # parallel: dispatch + combine all-to-alls of the top-k hidden states (GShard, Lepikhin et al. 2020 §3.2)
    pf_tp = 2 * t.layers * ring_allreduce_s(b * i * t.hidden_act_bytes, tp, busbw, lat, half)
    pf_tp = pf_tp + a2a_s(b * i)
    pf_tp = pf_tp + pipeline_send_s(t, tp, pp, b * i, r)
    prefill_s = xp.maximum(pf_compute, pf_memory) + pf_elementwise + pf_tp + overhead
    # decode: one token for each of the b sequences per step, at the mean context length
    dc_flops = 2 * t.matmul_params * b + b * t.decode_attention_flops_per_token
    dc_kv = t.kv_bytes_per_token * t.decode_context * b
    dc_weights = pass_weight_bytes(t, b, ep, kv_rep, r)
    dc_bytes = dc_weights + dc_kv * (
        max(t.kv_read_factor - t.attention_kv_reads, 0.0) + (kv_rep - 1.0) * t.kv_cache_reads_outside)
    # the attention kernel's own KV reads run at the share of SMs it occupies (1 with split-KV; r["sm_count"] is 0
    # for those engines and for devices without a published SM count)
    sm_share = attention_sm_share(b * t.attention_blocks_per_sequence / tp, r["sm_count"])
    dc_compute = dc_flops / (r["peak"] * r["e_mm"]) / tp
    dc_memory = (dc_bytes + dc_kv * (t.attention_kv_reads + (kv_rep - 1.0) * t.kv_cache_reads_in_kernel) / sm_share
                 ) / (r["bw"] * r["e_bw"]) / tp
    dc_tp = 2 * t.layers * ring_allreduce_s(b * t.hidden_act_bytes, tp, busbw, lat, half)
    dc_tp = dc_tp + a2a_s(b)
    dc_tp = dc_tp + pipeline_send_s(t, tp, pp, b, r)
    dc_elementwise = b * (t.layers * t.act_traffic_bytes_per_token_layer + t.decode_score_bytes_per_token) / (
        r["bw"] * r["e_stream"]) / tp
    # the linear layers' GEMMs and the attention kernel are separate kernels that run one after the other, so each
    # gets its own roofline and their times add (LLM-Viewer, Yuan et al. 2024, "LLM Inference Unveiled: Survey and
    # Roofline Model Insights", arXiv 2402.16363; its README: each layer through the roofline, "the overall network
    # performance ... obtained by aggregating the results of all layers"):
    # at large batch the GEMMs turn compute-bound while attention still streams the KV cache
    dc_step = decode_kernels_s(t, b, r, sm_share, kv_rep, ep, dc_weights) / tp
    step_s = dc_step + dc_elementwise + dc_tp + overhead
    total_s = prefill_s + (o - 1) * step_s  # token 1 from prefill, o − 1 decode steps
    return {
        "prefill_s": prefill_s, "step_s": step_s, "total_s": total_s, "tp_comm_s": dc_tp,
        "prefill_compute_bound": pf_compute >= pf_memory, "decode_compute_bound": dc_compute >= dc_memory,
    }


def _expert_all_to_alls(t: InferenceSpeedTerms, tp: Any, ep: Any, r: Any) -> Callable[[Any], Any]:
    """`inference_step`'s expert-parallel collectives of one forward over `tokens` tokens, as a function of them: the
    dispatch + combine all-to-alls of the top-k hidden states on each MoE layer (GShard, Lepikhin et al. 2020 §3.2)
    over the ep group's bus (its ranks `tp` apart: scaling.group_ranks_per_node); 0.0 for a dense model (no MoE
    layers: the product's 0, its bus not computed)."""
    if t.moe_layers == 0:
        return lambda tokens: 0.0
    cpn = r["cards_per_node"]
    multi, rpn = group_ranks_per_node(tp, ep, cpn)
    bw, lat = bus(r["intra_bw"], r["intra_lat"], r["inter_bw"], r["inter_lat"], multi, rpn, cpn)
    half = bus_half(r.get("intra_half", 0.0), r.get("inter_half", 0.0), multi)
    return lambda tokens: 2 * t.moe_layers * ring_allgather_s(tokens * t.a2a_bytes_per_token, ep, bw, lat, half)


def decode_kernels_s(t: InferenceSpeedTerms, batch: Any, r: Any, sm_share: Any, kv_rep: Any = 1.0,
                     ep: Any = 1.0, weight_bytes: Any = None) -> Any:
    """One decode step's GEMM and attention time on one card's worth of work (divide by tp): the linear layers'
    roofline, max(2·N·b FLOPs / (peak · matmul eff.), weight bytes / (bandwidth · decode eff.)), plus the
    attention's, max(attention FLOPs, KV bytes at its SM share / bandwidth) — separate kernels, so the two rooflines
    add (LLM-Viewer, Yuan et al. 2024, arXiv 2402.16363; hahnyuan/LLM-Viewer README.md: roofline per layer, summed).
    The KV copies an engine without a GQA-aware kernel makes (`kv_read_factor`) stay with the attention. `kv_rep`:
    the rank's KV replication (`kv_replication`), which its reads of the cache itself carry. `ep`: expert parallel
    replicas sharing the routed experts (`inference_step`): the rank reads its own experts the group's b·ep tokens
    touch, its FLOPs stay b tokens' worth. `weight_bytes`: `pass_weight_bytes` of this step where the caller has it."""
    b = batch
    if weight_bytes is None:
        weight_bytes = pass_weight_bytes(t, b, ep, kv_rep, r)
    mm_s = xp.maximum(2 * t.matmul_params * b / (r["peak"] * r["e_mm"]), weight_bytes / (r["bw"] * r["e_bw"]))
    dc_kv = t.kv_bytes_per_token * t.decode_context * b
    # copies outside the attention kernel (hf repeat_kv: 1 + g of 1 + 2g; hf's torch.cat growth of the cache: 2); none
    # where the kernel itself reads g times
    kv_bytes = dc_kv * max(t.kv_read_factor - t.attention_kv_reads, 0.0) + dc_kv * t.attention_kv_reads / sm_share
    kv_bytes = kv_bytes + dc_kv * (kv_rep - 1.0) * (t.kv_cache_reads_outside + t.kv_cache_reads_in_kernel / sm_share)
    attn_s = xp.maximum(b * t.decode_attention_flops_per_token / (r["peak"] * r["e_mm"]),
                        kv_bytes / (r["bw"] * r["e_bw"]))
    return mm_s + attn_s


def joining_ttft_s(t: InferenceSpeedTerms, tp: Any, ep: Any, batch: Any, r: Any, step_s: Any, pp: Any = 1.0,
                   links: StepLinks | None = None) -> Any:
    """TTFT of a request arriving at a replica that already decodes `batch` sequences: under iteration-level
    scheduling (Orca, Yu et al. OSDI '22 §3.2; vLLM, TRT-LLM in-flight batching) it waits for the step in flight,
    then its own prompt is prefilled; queueing behind other arrivals is not counted. `links`: as `inference_step`'s."""
    return inference_step(t, tp, ep, 1.0 + 0.0 * batch, r, pp, links)["prefill_s"] + step_s


def pipeline_send_s(t: InferenceSpeedTerms, tp: Any, pp: Any, tokens: Any, r: Any) -> Any:
    """One forward's pipeline sends in serving: each of the pp − 1 stage boundaries passes the `tokens`' hidden
    states on, each tensor-parallel rank its 1/tp slice (vLLM GroupCoordinator.send_tensor_dict with the tp group as
    all_gather_group; Megatron's scatter/gather optimization, Narayanan et al. 2021 §4.1), as training's pipeline
    p2p: a send/recv pair across nodes has one rank on each, so each rank reaches its own NIC only (ranks per node
    1: scaling.inter_share); a hop crosses nodes when the replica's tp × pp ranks do (tensor innermost:
    scaling.group_ranks_per_node), and every hop is charged at that slowest hop's rate."""
    if xp.plain(pp) and pp <= 1:  # one stage, no sends (the where below's 0.0, without its arrays: serving's grid)
        return 0.0
    cpn = r["cards_per_node"]
    multi, _ = group_ranks_per_node(tp, pp, cpn)
    bw, lat = bus(r["intra_bw"], r["intra_lat"], r["inter_bw"], r["inter_lat"], multi, 1.0, cpn)
    return xp.where(pp > 1, (pp - 1) * (lat + tokens * t.hidden_act_bytes / tp / bw), 0.0)


def moe_layers_per_stage(m: ModelArch, pp: int) -> float:
    if m.moe is None:
        return 0.0
    return max((m.num_layers or 0) - m.moe.first_dense_layers, 0) / pp


def engine_for_efficiency(cat: Catalog, engine: str) -> str:
    """The engine whose efficiency factors apply: its own, or the one the catalog says it borrows (`efficiency_as`)."""
    e = next((x for x in cat.engines if x.id == engine), None)
    return e.efficiency_as if e is not None and e.efficiency_as else engine


def device_rates(
    cat: Catalog, acc: Accelerator, w: Workload, overrides: tuple[EfficiencyFactor, ...] = ()
) -> tuple[float, float, Efficiency, Efficiency]:
    """The roofline's inputs: dense peak FLOP/s for the precision, peak memory bytes/s, and the matmul and
    memory-bandwidth efficiencies that apply."""
    if acc.specs.memory_bandwidth_gb_per_s is None:
        raise EstimateError(Message("err.has_no_published_memory_bandwidth_speed", acc_id=acc.id))
    peak, _ = peak_flops_per_s(acc, w.precision)
    bw = acc.specs.memory_bandwidth_gb_per_s.value * GB
    eng = engine_for_efficiency(cat, w.engine)
    e_mm = efficiency(cat, acc, "matmul", w.precision, eng, overrides)
    e_bw = efficiency(cat, acc, "decode_bandwidth", w.precision, eng, overrides)
    return peak, bw, e_mm, e_bw


def inference_rates(
    cat: Catalog, acc: Accelerator, w: Workload, overrides: tuple[EfficiencyFactor, ...] = ()
) -> tuple[dict[str, float], list[Efficiency]]:
    """Device rates for `inference_step`, with the efficiencies used."""
    peak, bw, e_mm, e_bw = device_rates(cat, acc, w, overrides)
    eng = engine_for_efficiency(cat, w.engine)
    engine = next((x for x in cat.engines if x.id == w.engine), None)
    if engine is not None and engine.fp16_accumulate and compute_dtype(w.precision) == "fp16" \
            and acc.specs.fp16_acc16_dense_tflops is not None:
        # the engine's fp16 GEMMs accumulate in fp16 (InferenceEngine.fp16_accumulate, cited in its note): the
        # FP16-accumulate rate is the roof (GeForce: twice the fp32-accumulate one; equal on data-centre parts)
        peak = acc.specs.fp16_acc16_dense_tflops.value * TFLOPS
    e_share = efficiency(cat, acc, "matmul_engine_share", w.precision, eng, overrides)
    # an engine release before its graph mode (`runs_eager`): the host dispatches every operator of a step
    oh_metric = "eager_step_overhead_s" if runs_eager(cat, w) else "decode_step_overhead_s"
    e_oh = efficiency(cat, acc, oh_metric, w.precision, eng, overrides)
    e_coll = efficiency(cat, acc, "collective_overhead_s", w.precision, eng, overrides)
    e_call = efficiency(cat, acc, "linear_call_overhead_s", w.precision, eng, overrides)
    # the catalog's bandwidth share, not a calibrated decode one (that one also holds the engine's overheads)
    e_stream = efficiency(cat, acc, "decode_bandwidth", w.precision, eng, calibrated=False).value
    links = link_rates(cat, acc)
    # a fused (flash) decode attention kernel that does not split the KV (InferenceEngine.split_kv) is limited by the
    # SM count; without flash attention the scores are GEMMs, parallel over the keys (cuBLAS)
    sm_count = 0.0
    if engine is not None and not engine.split_kv and w.flash_attention and acc.specs.sm_count is not None:
        sm_count = float(acc.specs.sm_count.value)
    # AWQ's own GEMM kernel where the release runs it (`runs_awq_gemm`): its int4 read rate, a share of the 16-bit one
    e_awq = efficiency(cat, acc, "awq_gemm_share", w.precision, eng, overrides) if runs_awq_gemm(cat, w) else None
    # a 4-bit kernel's passes over its packed weights where a kernel benchmark measured their rate (`share_metric`)
    rule = quant_kernel_rule(w)
    e_quant = (efficiency(cat, acc, rule.share_metric, w.precision, eng, overrides)
               if rule is not None and rule.share_metric is not None else None)
    return ({"e_awq": e_awq.value} if e_awq is not None else {}) | (
        {"e_quant": e_quant.value} if e_quant is not None else {}) | {
        "peak": peak, "bw": bw, "e_mm": e_mm.value * e_share.value, "e_bw": e_bw.value, "e_stream": e_stream,
        "overhead": e_oh.value, "sm_count": sm_count, "intra_bw": links.intra_bytes_per_s,
        # small-message collectives are latency-bound: the engine's launch and rank-skew time adds to each one
        "intra_lat": links.intra_latency_s + e_coll.value,
        # a group wider than a node reduces over the rented network (--inter-node-gbit caps the link data, as
        # training's: scaling.rented_inter_node_bytes_per_s; buyer review F 3: tp16 on two 910B nodes ignored it)
        "inter_bw": float(rented_inter_node_bytes_per_s(links.inter_bytes_per_s, w.inter_node_gbit_per_s)),
        "inter_lat": links.inter_latency_s,
        "cards_per_node": float(links.cards_per_node), "linear_call_s": e_call.value,
        "intra_half": links.intra_half_bytes, "inter_half": links.inter_half_bytes,
    }, ([e_mm, e_bw, e_oh, e_coll, e_share] + ([e_call] if e_call.value > 0 else []) + ([e_awq] if e_awq else [])
        + ([e_quant] if e_quant else []))


# the device rates at the physical roof (`roof_rates`): what no engine can beat on the catalog's peaks
_ROOF_RATES: dict[str, float] = {
    "e_mm": 1.0, "e_bw": 1.0, "eff": 1.0, "e_awq": 1.0, "e_quant": 1.0,  # peak dense FLOP/s and peak memory bytes/s
    "e_stream": math.inf,  # elementwise traffic: an engine may fuse it into the GEMMs
    "overhead": 0.0, "linear_call_s": 0.0, "moe_routed_s": 0.0, "cpu_adam_s": 0.0, "h2d_bw": math.inf,
    "sm_count": 0.0,  # every SM busy
    "intra_bw": math.inf, "inter_bw": math.inf, "intra_lat": 0.0, "inter_lat": 0.0, "intra_half": 0.0,
    "inter_half": 0.0,  # collectives: an engine may overlap them with compute
}


def roof_rates(r: dict[str, float]) -> dict[str, float]:
    """`inference_rates` / `training_rates` at the physical roof (validate.physics): every efficiency 1 on the same
    peaks (the engine's fp16-accumulate roof where it has one), no engine, per-call, routing or host-optimizer time,
    every SM busy, and what an engine may fuse or overlap costing nothing (elementwise traffic, collectives). The
    kernels' own byte and FLOP counts stay: `inference_step` / `training_step` on these rates is the fastest the
    workload can run."""
    return r | _ROOF_RATES


def served_tokens_per_s(batch: Any, output: Any, total_s: Any) -> Any:
    """Output tokens/s one replica serves in steady state with `batch` requests in flight: each request costs it its
    own prefill and `output` tokens of decode, so `batch` × `output` tokens per `inference_step`'s total_s (the
    prefill of `batch` prompts + (output − 1) decode steps). One function for `estimate` (output_tokens_per_s) and
    the planner's serving rows, capacity and serve-at-most rate."""
    return batch * output / total_s


def steady_tpot_s(step_s: Any, prefill_s: Any, output: Any) -> Any:
    """A user's time per output token while continuous batching keeps the batch full: the decode step plus the other
    requests' prefill interleaved with it, the batch's prompts per `output` steps (chunked prefill piggybacks prompt
    chunks on decode iterations: Sarathi-Serve, Agrawal et al. OSDI '24, arXiv 2403.02310; vLLM
    enable_chunked_prefill). At the run batch of a rate λ this is the self-consistent figure: τ = step + λτ · prefill
    per prompt, b = λ · output · τ. One function for `estimate` (tpot_steady_s) and the planner's serving rows.
    With output ≤ 1 a request has no second token, so no inter-token gap: TPOT is undefined there, NaN (vLLM's
    benchmark_serving counts TPOT only for outputs of 2+ tokens, (latency − TTFT) / (output − 1)), and a TPOT target
    does not apply (`tpot_within`), rather than the prefill ÷ 1 this formula would charge the one token."""
    if output <= 1:
        return step_s + math.nan  # same shape as step_s (a float or an array), every element NaN
    return step_s + prefill_s / output


def tpot_within(tpot_s: Any, limit_s: float, output: int) -> Any:
    """Whether a TPOT meets the target `limit_s`: always where output ≤ 1 (no inter-token gap, `steady_tpot_s` NaN:
    the check does not apply), else tpot_s ≤ limit_s (NaN fails: a configuration without speeds)."""
    return xp.asarray(tpot_s) <= limit_s if output > 1 else xp.full_like(tpot_s, True)


def inference_speed(
    cat: Catalog, m: ModelArch, acc: Accelerator, w: Workload, overrides: tuple[EfficiencyFactor, ...] = (),
    roof: bool = False,
) -> InferenceSpeed:
    """One workload through `inference_step` (as plain numbers: the very kernel the planner searches with); `roof`:
    on `roof_rates`, the fastest it can run."""
    t = inference_speed_terms(m, w, reads_kv_per_query_head(cat, w), runs_awq_gemm(cat, w))
    rates, effs = inference_rates(cat, acc, w, overrides)
    rates = roof_rates(rates) if roof else rates
    k = inference_step(t, float(w.tp), float(w.ep), float(w.batch), rates, float(w.pp))
    prefill_s, step_s, total_s = float(k["prefill_s"]), float(k["step_s"]), float(k["total_s"])
    b, i, o = w.batch, w.input, w.output
    replicas = w.dp  # cards beyond tp × pp serve as data-parallel replicas, each with its own `batch` sequences
    return InferenceSpeed(
        prefill_tokens_per_s=replicas * b * i / prefill_s,
        decode_tokens_per_s=replicas * b / step_s,
        output_tokens_per_s=replicas * served_tokens_per_s(b, o, total_s),
        ttft_s=prefill_s,  # the first token comes from the prefill's logits
        tpot_s=step_s,
        ttft_joining_s=float(joining_ttft_s(t, float(w.tp), float(w.ep), float(w.batch), rates, k["step_s"],
                                            float(w.pp))),
        tpot_steady_s=float(steady_tpot_s(step_s, prefill_s, o)),
        prefill_bound="compute" if bool(k["prefill_compute_bound"]) else "memory-bandwidth",
        decode_bound="compute" if bool(k["decode_compute_bound"]) else "memory-bandwidth",
        tp_comm_per_token_s=float(k["tp_comm_s"]),
        efficiencies=effs,
    )


@dataclass(frozen=True)
class TrainingSpeedTerms:
    """Model-level inputs of the training step kernel for one task and precision."""

    seq: int
    hw_flops_per_token: tuple[float, float, float]
    task_flops_per_token: float
    model_flops_per_token: float
    grad_comm_bytes: float
    weight_comm_bytes: float
    hidden_act_bytes: float
    layers: int
    moe_layers: float
    a2a_bytes_per_token: float
    # attention core (QK^T, softmax, PV) FLOPs per token of forward + backward, and the keys and values one layer
    # holds per token (context parallelism exchanges them)
    attn_flops_per_token: float = 0.0
    kv_bytes_per_token_layer: float = 0.0
    # per token and MoE layer, the routed copies' hidden elements (top_k x hidden) that the dispatcher moves
    routed_hidden_per_token: float = 0.0
    # optimizer offload (ZeRO-Offload): trainable parameters the host CPU steps, and the 16-bit weights copied back
    trainable_params: float = 0.0
    offload_h2d_bytes: float = 0.0


def training_speed_terms(m: ModelArch, w: Workload, cat: Catalog | None = None) -> TrainingSpeedTerms:
    """`cat` supplies the framework's gradient bytes (memory.grad_bytes_per_param); without it, the weights' bytes."""
    arch.require_llm(m, f"task {w.task}")
    model_fpt = training_flops_per_token(m, w.seq)
    attn = arch.attention_flops_per_token(m, w.seq)
    n_mm = matmul_params(m)
    lora = w.task in ("lora", "qlora")
    # frozen weights: forward 2N and input gradients 2N, no weight gradients (Hu et al. 2021 §4.2)
    task_fpt = 4 * n_mm + 3 * attn if lora else model_fpt
    # recomputation adds work the task does not need: full = one more forward (Korthikanti et al. 2022 §4.2.1:
    # 8N instead of 6N), selective = only the attention core again (ibid. §4.2.2)
    hw = (task_fpt, task_fpt + attn, task_fpt + 2 * n_mm + attn)
    p = param_count(m)
    trainable = arch.lora_params(m, w.lora_rank, w.lora_targets) if lora else p.total
    act_b = activation_bytes(w.precision)
    return TrainingSpeedTerms(
        seq=w.seq,
        hw_flops_per_token=hw,
        task_flops_per_token=task_fpt,
        # the model FLOPs of the task, the ones MFU counts (training_step's "mfu"): 6N full, 4N LoRA — not 6N for LoRA,
        # which printed model FLOPs above the hardware FLOPs (buyer review 2026-12-01; active parameters for MoE in both)
        model_flops_per_token=task_fpt,
        # data parallel: all-reduce of the trainable parameters' gradients in their buffer's dtype, the bytes the memory
        # kernel counts (memory.grad_bytes_per_param: 16-bit, or fp32 where Megatron-Core reduces main_grad in fp32,
        # megatron-grad-fp32); fp32 for LoRA adapters
        grad_comm_bytes=trainable * (4.0 if lora else grad_bytes_per_param(cat, w)),
        weight_comm_bytes=weights_bytes(m, "nf4" if w.task == "qlora" else storage_precision(w.precision)),
        hidden_act_bytes=(m.hidden_size or 0) * act_b,
        layers=m.num_layers or 0,
        moe_layers=moe_layers_per_stage(m, 1),
        a2a_bytes_per_token=(m.moe.top_k if m.moe else 0) * (m.hidden_size or 0) * act_b,
        attn_flops_per_token=3 * attn,
        kv_bytes_per_token_layer=_kv_bytes_per_token_layer(m, act_b),
        routed_hidden_per_token=float((m.moe.top_k if m.moe else 0) * (m.hidden_size or 0)),
        trainable_params=float(trainable),
        offload_h2d_bytes=trainable * (4.0 if lora else weight_bytes_per_param(storage_precision(w.precision))),
    )


def _kv_bytes_per_token_layer(m: ModelArch, act_b: float) -> float:
    """Keys and values one layer's attention reads per token in training: GQA's kv heads (Ainslie et al. 2023 §2);
    MLA's per-head keys and values after the up-projection (DeepSeek-V2 §2.1.2)."""
    if m.mla is not None:
        heads = m.num_attention_heads or 0
        return heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim + m.mla.v_head_dim) * act_b
    if not m.num_attention_heads:
        return 0.0
    return 2.0 * arch._kv_heads(m) * arch.head_dim(m) * act_b


def training_step(t: TrainingSpeedTerms, tp: Any, pp: Any, dp: Any, ep: Any, zero: Any, recompute: Any,
                  batch: Any, grad_accum: Any, r: Any, vpp: Any = 1.0, cp: Any = 1.0,
                  tp_overlap: Any = False, offload: Any = False) -> dict[str, Any]:
    """Step time = compute + exposed communication + pipeline bubble, per global step, over arrays of layouts.
    `r` holds the device rates: peak, eff (train MFU of the compute), intra_bw, intra_lat, inter_bw, inter_lat,
    cards_per_node. `dp` counts model replicas; `cp` context-parallel ranks split each sequence (dp × cp ranks
    reduce the gradients); `vpp` virtual pipeline stages per device (interleaved schedule); `tp_overlap` the
    tensor-parallel collectives pipelined with their GEMMs (Megatron-Core tp_comm_overlap)."""
    gpus = tp * pp * cp * dp
    hw = xp.take(t.hw_flops_per_token, recompute)
    micro_tokens = batch * t.seq
    # context parallel: each of the cp ranks runs seq/cp tokens of every micro-batch, attention balanced over the
    # ranks (Megatron-Core splits a sequence into 2·cp chunks so causal work is even)
    rank_tokens = micro_tokens / cp
    compute_s = micro_tokens * grad_accum * hw / (tp * pp * cp) / (r["peak"] * r["eff"])
    grad = t.grad_comm_bytes / (tp * pp)
    # the gradients are reduced (and ZeRO shards kept) over the dp × cp ranks that hold the same weights
    # (Megatron-Core: the data-parallel group with context parallelism), `tp` ranks apart: across nodes they reach
    # only their ranks-per-node share of the node's NICs (scaling.group_ranks_per_node; tp8 on 8-card nodes: 1/8)
    dp_ranks = dp * cp
    cpn = r["cards_per_node"]
    multi, rpn = group_ranks_per_node(tp, dp_ranks, cpn)
    busbw, lat = bus(r["intra_bw"], r["intra_lat"], r["inter_bw"], r["inter_lat"], multi, rpn, cpn)
    half = bus_half(r.get("intra_half", 0.0), r.get("inter_half", 0.0), multi)  # bus bandwidth's size curve
    # ZeRO-3 / FSDP: every micro-batch all-gathers the sharded weights for forward and again for backward
    # (frozen base weights included), then gradients are reduce-scattered once per step (Rajbhandari et al.
    # 2020, ZeRO §7.2.2); the all-gathers are prefetched, so they overlap forward and backward compute alike.
    # Otherwise the gradient all-reduce overlaps the last micro-batch's backward (2/3 of its compute).
    z3 = zero >= 3
    ag_w = ring_allgather_s(t.weight_comm_bytes / (tp * pp), dp_ranks, busbw, lat, half)
    # Under pipeline parallelism FSDP2 keeps the stage's weights gathered from the first forward to the last backward
    # (torch.distributed.pipelining stage.py backward_maybe_with_nosync; torchtitan apply_fsdp reshard_after_forward =
    # not pp_enabled): one all-gather per step, not two per micro-batch
    ag_count = xp.where(pp > 1, 1, grad_accum * 2)
    dp_s = xp.where(z3, ag_count * ag_w + ring_allgather_s(grad, dp_ranks, busbw, lat, half),
                    ring_allreduce_s(grad, dp_ranks, busbw, lat, half))
    hideable = xp.where(z3, compute_s, compute_s / grad_accum * 2 / 3)
    dp_exposed = xp.maximum(0.0, dp_s - OVERLAP_FRACTION_OF_BACKWARD * hideable)
    # tensor parallel: 4 all-reduces of b·s·h activations per layer per micro-batch (2 forward, 2 backward;
    # Shoeybi et al. 2019 §3) within the node. Sequence parallelism turns each into an all-gather + reduce-scatter of
    # the same bytes (Korthikanti et al. 2022 §4.2.2: same bandwidth), which is what makes them decomposable: with
    # tp_comm_overlap each is split into chunks pipelined with the GEMM that consumes or produces it (Wang et al.,
    # ASPLOS '23; Megatron-Core / Transformer Engine userbuffers, MindSpeed CoC), so only what the layer's linear
    # GEMMs (forward and backward, the attention core excluded) cannot hide is exposed; without it, none is hidden
    tp_comm = 4 * (t.layers / pp) * grad_accum * ring_allreduce_s(
        rank_tokens * t.hidden_act_bytes, tp, r["intra_bw"], r["intra_lat"], r.get("intra_half", 0.0))
    gemm_s = micro_tokens * grad_accum * (t.task_flops_per_token - t.attn_flops_per_token) / (tp * pp * cp) / (
        r["peak"] * r["eff"])
    tp_s = xp.where(tp_overlap & (tp > 1), xp.maximum(0.0, tp_comm - gemm_s), tp_comm)
    # expert parallel: dispatch and combine all-to-alls per MoE layer, forward and backward, not overlapped
    # (Megatron's expert group: ep ranks tp·cp apart)
    ep_multi, ep_rpn = group_ranks_per_node(tp * cp, ep, cpn)
    ep_bw, ep_lat = bus(r["intra_bw"], r["intra_lat"], r["inter_bw"], r["inter_lat"], ep_multi, ep_rpn, cpn)
    ep_half = bus_half(r.get("intra_half", 0.0), r.get("inter_half", 0.0), ep_multi)
    ep_s = 4 * (t.moe_layers / pp) * grad_accum * ring_allgather_s(
        rank_tokens * t.a2a_bytes_per_token, ep, ep_bw, ep_lat, ep_half)
    # MoE routed-token work beyond the expert GEMMs' FLOPs (router, permute/unpermute, grouped-GEMM scheduling): it scales
    # with tokens x top_k x hidden, not with the expert width, so fine-grained MoE pays it most; r["moe_routed_s"] per
    # routed element, fitted (Megatron-Bridge 25.11: MoE at 121-233 vs dense 719-744 model TFLOP/s/GPU on H100 with
    # force-balanced routing, so not load imbalance)
    moe_s = micro_tokens * grad_accum * t.moe_layers * t.routed_hidden_per_token * r.get("moe_routed_s", 0.0) / (
        tp * pp * cp)
    # context parallel: every layer all-gathers the keys and values of the sequence in forward, again in backward, and
    # reduce-scatters their gradients (Megatron-Core context parallelism; Liu et al. 2023, Ring Attention §3: the
    # blocks pass round the ring while the attention of the block in hand is computed), so it hides behind the
    # attention core's own compute and only the rest is exposed. Ranks tp·cp apart sit in one node when tp·cp fits
    # (Megatron's rank order: tensor, then context parallel)
    cp_multi, cp_rpn = group_ranks_per_node(tp, cp, cpn)
    cp_bw, cp_lat = bus(r["intra_bw"], r["intra_lat"], r["inter_bw"], r["inter_lat"], cp_multi, cp_rpn, cpn)
    cp_half = bus_half(r.get("intra_half", 0.0), r.get("inter_half", 0.0), cp_multi)
    cp_comm = 3 * (t.layers / pp) * grad_accum * ring_allgather_s(
        micro_tokens * t.kv_bytes_per_token_layer / tp, cp, cp_bw, cp_lat, cp_half)
    attn_s = micro_tokens * grad_accum * t.attn_flops_per_token / (tp * pp * cp) / (r["peak"] * r["eff"])
    cp_s = xp.where(cp > 1, xp.maximum(0.0, cp_comm - attn_s), 0.0)
    # pipeline: each stage sends its output activations forward and receives their gradients back, per virtual stage
    # and micro-batch: b·s·h/t bytes with the scatter/gather optimization (Narayanan et al. 2021 §4.1), s/cp under
    # context parallelism; the interleaved schedule has v× as many (ibid. §2.2.2). Plain 1F1B waits on them;
    # interleaved Megatron overlaps them with other chunks' compute (overlap_p2p_comm, valid only with VP > 1; set in
    # NeMo's Llama 2 70B launcher config), so there only what exceeds the compute shows
    # a hop crosses nodes when the whole layout does (pipeline outermost); a send/recv pair across nodes has one rank
    # on each, so each rank reaches its own NIC only (ranks per node 1: scaling.inter_share)
    p2p_bytes = rank_tokens * t.hidden_act_bytes / tp
    p2p_bw, p2p_lat = bus(r["intra_bw"], r["intra_lat"], r["inter_bw"], r["inter_lat"], gpus > cpn, 1.0, cpn)
    p2p = 2 * vpp * grad_accum * (p2p_lat + p2p_bytes / p2p_bw)
    p2p_s = xp.where(pp > 1, xp.where(vpp > 1, xp.maximum(0.0, p2p - compute_s), p2p), 0.0)
    # pipeline bubble (p − 1)/m of the ideal time (Narayanan et al. 2021 §2.2, 1F1B); the interleaved schedule with
    # v model chunks per device shrinks it to (p − 1)/(m·v) (ibid. §2.2.2)
    bubble_s = xp.where(pp > 1, compute_s * (pp - 1) / (grad_accum * vpp), 0.0)
    # optimizer offload (ZeRO-Offload, Ren et al. 2021 §4.1): the gradients go to the host during backward (pinned DMA
    # overlapping it: DeepSpeed config-json offload_optimizer.pin_memory), then the host CPU runs Adam on every rank's
    # shard of the node, r["cpu_adam_s"] per parameter (ibid. Table 2: CPU-Adam 2.57 s for 10B), and the updated
    # 16-bit weights cross PCIe back to each device (r["h2d_bw"], x16 per direction) before the next forward: both wait
    shard = xp.where(zero >= 1, 1.0 / dp_ranks, 1.0) / (tp * pp)  # each rank steps its ZeRO shard of the states
    offload_s = xp.where(offload, t.trainable_params * shard * xp.minimum(gpus, r["cards_per_node"])
                         * r.get("cpu_adam_s", math.nan) + t.offload_h2d_bytes * shard / r.get("h2d_bw", math.nan), 0.0)
    step_s = compute_s + moe_s + dp_exposed + tp_s + ep_s + cp_s + p2p_s + bubble_s + offload_s
    tok_s = micro_tokens * grad_accum * dp / step_s
    return {
        "compute_s": compute_s, "moe_s": moe_s, "dp_s": dp_s, "dp_exposed_s": dp_exposed, "tp_s": tp_s, "ep_s": ep_s,
        "cp_s": cp_s, "pp_p2p_s": p2p_s, "offload_s": offload_s,
        "pp_bubble_s": bubble_s, "step_s": step_s, "tokens_per_s": tok_s,
        # every collective before overlap hides any of it (dp all-reduce or ZeRO gathers, tp, ep, cp, pipeline p2p):
        # what the step would expose with no overlap at all (plan states it where all of it is assumed hidden)
        "comm_s": dp_s + tp_comm + ep_s + xp.where(cp > 1, cp_comm, 0.0) + xp.where(pp > 1, p2p, 0.0),
        "comm_exposed_s": dp_exposed + tp_s + ep_s + cp_s + p2p_s,
        # MFU over the FLOPs the task needs (6N full, 4N LoRA), whatever recomputation adds
        "mfu": tok_s * t.task_flops_per_token / (gpus * r["peak"]),
        "scaling": compute_s / step_s,
    }


def offload_rates(cat: Catalog, acc: Accelerator, w: Workload) -> tuple[float, float]:
    """Optimizer offload's rates: the framework's CPU Adam seconds per parameter (the pinned one, else any that
    offloads: DeepSpeed's kernel) and the device's PCIe x16 bytes/s per direction; NaN where unknown (offload is then
    not estimated: `offload_not_estimated` says why)."""
    cpu = [f.cpu_adam_s_per_param for f in cat.frameworks if f.cpu_adam_s_per_param is not None
           and (w.framework is None or f.id == w.framework)]
    gen = acc.specs.pcie_gen.value if acc.specs.pcie_gen is not None else None
    return cpu[0] if cpu else float("nan"), PCIE_X16_BYTES_PER_S.get(gen or 0, float("nan"))


def assumed_cpu_adam_s(cat: Catalog, framework: str | None = None) -> float | None:
    """The CPU-Adam seconds per parameter `offload_rates` takes for `framework` (id or name; None: the first that
    has one) when that figure is marked `assumed` in frameworks.yaml, else None (sourced, or no rate)."""
    for f in cat.frameworks:
        if f.cpu_adam_s_per_param is not None and framework in (None, f.id, f.name):
            return f.cpu_adam_s_per_param if f.cpu_adam_source == "assumed" else None
    return None


def offload_assumption(cat: Catalog, w: Workload) -> Message | None:
    """A training estimate with optimizer offload whose CPU-Adam rate is assumed: the note that says so."""
    if not (w.training and w.offload_optimizer):
        return None
    s = assumed_cpu_adam_s(cat, w.framework)
    return None if s is None else Message("est.note.offload_cpu_adam_assumed", s=s)


def offload_not_estimated(cat: Catalog, acc: Accelerator, w: Workload) -> Message | None:
    """Why an optimizer-offload step time cannot be estimated (a rate `offload_rates` lacks), else None."""
    if not (w.training and w.offload_optimizer):
        return None
    cpu_adam_s, h2d_bw = offload_rates(cat, acc, w)
    if not math.isfinite(h2d_bw):
        return Message("est.note.offload_no_pcie", device=acc.name)
    if not math.isfinite(cpu_adam_s):
        return Message("est.note.offload_no_cpu_adam", framework=w.framework or "?")
    return None


def training_rates(
    cat: Catalog, acc: Accelerator, w: Workload, overrides: tuple[EfficiencyFactor, ...] = ()
) -> tuple[dict[str, float], Efficiency]:
    peak, _ = peak_flops_per_s(acc, "bf16" if w.task == "qlora" else w.precision)
    e_tr = efficiency(cat, acc, "train_mfu", w.precision, w.engine, overrides, framework=w.framework)
    e_moe = efficiency(cat, acc, "moe_routed_overhead_s", w.precision, w.engine, overrides)
    links = link_rates(cat, acc)
    cpu_adam_s, h2d_bw = offload_rates(cat, acc, w)
    return {
        "cpu_adam_s": cpu_adam_s, "h2d_bw": h2d_bw,
        "peak": peak, "eff": e_tr.value, "moe_routed_s": e_moe.value,
        "intra_bw": links.intra_bytes_per_s, "intra_lat": links.intra_latency_s,
        "inter_bw": float(rented_inter_node_bytes_per_s(links.inter_bytes_per_s, w.inter_node_gbit_per_s)),
        "inter_lat": links.inter_latency_s,
        "cards_per_node": float(links.cards_per_node),
        "intra_half": links.intra_half_bytes, "inter_half": links.inter_half_bytes,
    }, e_tr


def training_step_of(
    cat: Catalog, m: ModelArch, acc: Accelerator, w: Workload, overrides: tuple[EfficiencyFactor, ...] = (),
    roof: bool = False,
) -> tuple[TrainingSpeedTerms, dict[str, float], Efficiency, dict[str, Any]]:
    """(terms, rates, train_mfu factor, `training_step`'s outputs) of one workload: plain numbers through the kernel
    the planner searches with (`training_speed` and plan's per-plan figures read it); `roof`: on `roof_rates`."""
    t = training_speed_terms(m, w, cat)
    rates, e_tr = training_rates(cat, acc, w, overrides)
    rates = roof_rates(rates) if roof else rates
    f = float
    k = training_step(t, f(w.tp), f(w.pp), f(w.dp), f(w.ep), int(w.zero), RECOMPUTE.index(w.recompute),
                      f(w.batch), f(w.grad_accum), rates, vpp=f(w.vpp), cp=f(w.cp),
                      tp_overlap=bool(w.tp_comm_overlap), offload=bool(w.offload_optimizer))
    return t, rates, e_tr, k


def training_speed(
    cat: Catalog, m: ModelArch, acc: Accelerator, w: Workload, overrides: tuple[EfficiencyFactor, ...] = (),
    roof: bool = False,
) -> TrainingSpeed:
    """One workload through `training_step` (as plain numbers: the very kernel the planner searches with); `roof`:
    on `roof_rates` (its compute_s is then the step's FLOPs at the dense peak)."""
    t, rates, e_tr, k = training_step_of(cat, m, acc, w, overrides, roof)
    intra, inter = links_for(cat, acc, w.gpus) if w.gpus > 1 else (None, None)
    comm = CommTimes(
        dp_s=float(k["dp_s"]),
        dp_exposed_s=float(k["dp_exposed_s"]),
        tp_s=float(k["tp_s"]),
        ep_s=float(k["ep_s"]),
        pp_bubble_s=float(k["pp_bubble_s"]),
        pp_p2p_s=float(k["pp_p2p_s"]),
        cp_s=float(k["cp_s"]),
        intra_link=intra.id if intra else None,
        inter_link=inter.id if inter else None,
        bus_gb_per_s=None if intra is None else intra.bus_gb_per_s.value if inter is None
        else min(intra.bus_gb_per_s.value, inter.bus_gb_per_s.value),
    )
    return TrainingSpeed(
        train_tokens_per_s=float(k["tokens_per_s"]),
        step_time_s=float(k["step_s"]),
        tokens_per_step=w.batch * w.seq * w.grad_accum * w.dp,
        mfu=float(k["mfu"]),
        model_flops_per_token=t.model_flops_per_token,
        hardware_flops_per_token=t.hw_flops_per_token[RECOMPUTE.index(w.recompute)],
        compute_s=float(k["compute_s"]),
        comm=comm,
        scaling_efficiency=float(k["scaling"]),
        efficiencies=[e_tr] + ([efficiency(cat, acc, "moe_routed_overhead_s", w.precision, w.engine, overrides)]
                               if t.routed_hidden_per_token > 0 else []),
    )
