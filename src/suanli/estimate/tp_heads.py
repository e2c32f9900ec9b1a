"""Which tensor-parallel sizes a training framework or a serving engine runs a model at: the attention-head rule.

One rule, one place: `suanli estimate` refuses a layout it fails (one line naming `tp` and the sizes that run) and
the planner drops such layouts from its search (training `_layouts`, serving `_serve_grid`, pinned `--tp` as a
why-not row). Pure arithmetic on ModelArch and catalog ids; floats or numpy arrays of tp alike."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from suanli.estimate import xp

from suanli.catalog.schema import ModelArch
from suanli.estimate import arch
from suanli.i18n import Message

__all__ = [
    "HEAD_PADDING_ALTERNATIVE",
    "HEAD_PADDING_ENGINES",
    "KV_REPLICATING_ENGINES",
    "SPLIT_HEADS_ENGINES",
    "SPLIT_HEADS_FRAMEWORKS",
    "allowed_tps",
    "tp_heads_refusal",
    "tp_heads_runs",
]

# Training frameworks whose tensor parallelism gives every rank whole attention heads and whole KV heads (query
# groups), never replicating a KV head, so tp must divide both (arch.tp_splits_heads):
# - Megatron-Core, and NeMo / MindSpeed built on it (frameworks.yaml names and notes): Attention.__init__
#   `divide(num_attention_heads, world_size)`, `divide(num_query_groups, world_size)` (NVIDIA/Megatron-LM
#   megatron/core/transformer/attention.py, ensure_divisibility in megatron/core/utils.py);
# - torchtitan: apply_tp shards attention.wq, wk and wv ColwiseParallel (pytorch/torchtitan
#   torchtitan/models/llama3/infra/parallelize.py) and Attention.forward views each shard as
#   `view(bs, seqlen, -1, self.head_dim)` "to infer the actual local heads ... as TP may have sharded them"
#   (torchtitan/models/llama3/model/model.py), so a shard that is not whole Q or KV heads does not run.
SPLIT_HEADS_FRAMEWORKS = ("megatron", "nemo", "mindspeed", "torchtitan")

# Serving engines that refuse a tp not dividing the attention heads:
# - vLLM: ModelConfig.verify_with_parallel_config raises "Total number of attention heads (N) must be divisible by
#   tensor parallel size (T)" (vllm-project/vllm vllm/config.py); vLLM-Ascend is a vLLM platform plugin, the same
#   ModelConfig check runs before its layers (vllm-ascend-readme);
# - SGLang: QKVParallelLinear `self.num_heads = divide(self.total_num_heads, tp_size)` (sgl-project/sglang
#   python/sglang/srt/layers/linear.py; divide asserts divisibility);
# - TensorRT-LLM: Attention.__init__ `assert num_attention_heads % tp_size == 0, "num_attention_heads must be
#   divisible by tp_size"` (NVIDIA/TensorRT-LLM tensorrt_llm/layers/attention.py);
# - LMDeploy TurboMind: the converter splits each weight over tp with `assert tensor.shape[split_dim] % tp == 0` and
#   views Q as (tp, -1) heads (InternLM/lmdeploy lmdeploy/turbomind/deploy/target_model/base.py save_split,
#   merge_qkv); later releases assert `head_num % tensor_para_size == 0` there (quoted in a 2024-12-09 post, not in
#   the stored code).
# transformers and llama.cpp split no heads here.
SPLIT_HEADS_ENGINES = ("vllm", "vllm-ascend", "sglang", "trt-llm", "lmdeploy")

# Serving engines that pad the heads rather than refuse a tp: MindIE (MindIE-LLM's ATB models). Weights.get_sharded
# splits whole heads where tp divides them or is a multiple of them (`(size // gqa_size) % world_size == 0 or
# world_size % (size // gqa_size) == 0`: get_partial_sharded, which past the heads gives rank r the head
# `rank // (world_size // group_size)`, each KV head replicated), and otherwise zero-pads every rank to
# ceil(heads / tp) heads (get_partial_sharded_padding / _padding_gqa: `block_head_num = (head_num + world_size - 1)
# // world_size`, the rest `torch.zeros`) (verylucky01/MindIE-LLM, a mirror of Ascend/MindIE-LLM,
# examples/atb_models/atb_llm/utils/weights.py @94a674a). Its model zoo lists Qwen2.5-7B-Instruct (28 heads, 4 KV
# heads) at "支持 world size 1,2,4,8" on the 800I A2, world sizes "对话测试可跑通" (MindIE-LLM
# examples/atb_models/examples/models/qwen/README.md, 特性矩阵). The same README's prose judges tp by the KV heads
# alone ("Qwen2-0.5B-Instruct 的 num_key_value_heads 为 2，表明其只支持 world size 1,2"), which its own table
# contradicts (Qwen2.5-0.5B, 2 KV heads: world size 1,2,4,8), so no head rule is applied to MindIE; the padded heads'
# extra compute (ceil(heads / tp) · tp / heads, 32/28 for Qwen2.5-7B at tp 8) is not counted.
HEAD_PADDING_ENGINES = ("mindie",)

# The engine a split-heads engine's refusal points to, on the same stack, that pads the heads instead (stacks.yaml:
# the CANN stack serves with vllm-ascend and mindie), with its name.
HEAD_PADDING_ALTERNATIVE = {"vllm-ascend": ("mindie", "MindIE")}

# ...of which those whose QKVParallelLinear splits the KV heads, or past them replicates each over tp / kv ranks:
# `if tp_size >= total_num_kv_heads: num_kv_head_replicas = divide(tp_size, total_num_kv_heads) else:
# num_kv_heads = divide(total_num_kv_heads, tp_size)` (vllm-project/vllm vllm/model_executor/layers/linear.py,
# sgl-project/sglang python/sglang/srt/layers/linear.py); MLA has no KV heads to split (one latent).
KV_REPLICATING_ENGINES = ("vllm", "vllm-ascend", "sglang")


def _kv_heads(m: ModelArch) -> int:
    return m.num_key_value_heads or m.num_attention_heads or 1


def tp_heads_runs(m: ModelArch, tp: Any, framework: str | None = None, engine: str | None = None) -> Any:
    """Whether `tp` (arrays work) runs `m` under training `framework` or serving `engine` by the head rule (True
    where neither has one)."""
    tp_ = xp.asarray(tp, dtype=float)
    ok = xp.full_like(tp_, True)
    if m.kind != "llm":
        return ok if xp.ndim(tp_) else bool(ok)
    if framework is not None and framework in SPLIT_HEADS_FRAMEWORKS:
        ok = ok & arch.tp_splits_heads(m, tp_)
    if engine is not None and engine in SPLIT_HEADS_ENGINES:
        ok = ok & (xp.mod(m.num_attention_heads or 1, tp_) == 0)
        if engine in KV_REPLICATING_ENGINES and m.mla is None:
            kv = _kv_heads(m)
            ok = ok & ((xp.mod(kv, tp_) == 0) | (xp.mod(tp_, kv) == 0))
    return ok if xp.ndim(tp_) else bool(ok)


def allowed_tps(m: ModelArch, tps: Iterable[int], framework: str | None = None, engine: str | None = None) -> list[int]:
    """The sizes of `tps` that run (`tp_heads_runs`)."""
    return [int(t) for t in tps if tp_heads_runs(m, float(t), framework, engine)]


def tp_heads_refusal(m: ModelArch, tp: int, framework: str | None = None, engine: str | None = None,
                     runner: Any = None, candidates: Iterable[int] = (1, 2, 4, 8, 16, 32, 64)) -> Message | None:
    """Why `tp` cannot run `m` (one line naming the field, the heads and the tp values that do run), None where it
    runs. `runner`: the framework's or engine's name to show (default its id). The field is a parameter
    (`field="tp"`): the CLI says --tp, the page and the API (the `.api` wording) the request's field, tp."""
    if tp <= 1 or tp_heads_runs(m, float(tp), framework, engine):
        return None
    heads, kv = m.num_attention_heads or 0, _kv_heads(m)
    allowed: Message | str = ", ".join(str(t) for t in allowed_tps(m, candidates, framework, engine))
    if framework is not None and framework in SPLIT_HEADS_FRAMEWORKS and not bool(arch.tp_splits_heads(m, float(tp))):
        return Message("why.tp_heads", framework=runner or framework, field="tp", tp=tp, heads=heads, kv_heads=kv, allowed=allowed)
    replicate = engine in KV_REPLICATING_ENGINES and m.mla is None
    alt = HEAD_PADDING_ALTERNATIVE.get(engine or "")
    if alt is not None:  # the engine beside it on the stack that pads the heads and runs this tp (--framework mindie)
        allowed = Message("why.tp_heads_padding_alt", allowed=allowed, engine=alt[1], field="framework", value=alt[0],
                          tp=tp)
    return Message("why.tp_heads_serving", engine=runner or engine, field="tp", tp=tp, heads=heads, allowed=allowed,
                   kv=Message("why.tp_heads_serving_kv", kv_heads=kv) if replicate else "")
