"""suanli.trace.ops: record aten operators of tiny models on meta/CPU and classify them."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from suanli.migrate.coverage import classify, load_caveats, load_op_list  # noqa: E402
from suanli.trace.ops import (  # noqa: E402
    is_moe,
    op_name,
    record_ops,
    shrink_config,
    trace_model,
    trace_module,
)

TINY_LLAMA = {
    "model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 256, "max_position_embeddings": 128,
}
TINY_QWEN3_MOE = {
    "model_type": "qwen3_moe", "hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768,
    "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
    "num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936, "decoder_sparse_step": 1,
    "mlp_only_layers": [], "max_position_embeddings": 40960, "eos_token_id": 151645,
}
NPU = load_op_list("2.13.0")


def test_op_name_uses_native_functions_spelling() -> None:
    assert op_name(torch.ops.aten.add.Tensor) == "add.Tensor"
    assert op_name(torch.ops.aten.mm.default) == "mm"


def test_records_ops_and_decompositions() -> None:
    x = torch.randn(4, 8, device="meta")
    counts, decomps, _, _ = record_ops(lambda: torch.nn.functional.gelu(x @ x.T), device_type="meta")
    assert counts["mm"] == 1 and counts["gelu"] == 1
    assert decomps["gelu"] == {"empty.memory_format": 1, "gelu.out": 1} or "gelu.out" in (decomps["gelu"] or {})


class _UsesMode(torch.nn.Module):
    """A test model with an operator torch_npu 2.13.0 does not register: aten::mode (CPU-only kernel)."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = self.lin(x)
        return y + torch.mode(y, dim=-1).values.unsqueeze(-1)


def test_unsupported_operator_is_reported_as_cpu_fallback() -> None:
    m = _UsesMode()
    x = torch.randn(3, 8)
    trace = trace_module(m, lambda mod: mod(x), model="uses-mode", task="inference", device_type="cpu")
    rep = classify(trace, NPU, caveats=load_caveats())
    assert rep.verdict == "cpu-fallback"
    assert rep.fallback_ops == {"mode": 1}
    assert {r.op: r.status for r in rep.ops}["mode"] == "cpu-fallback"
    assert {r.op: r.status for r in rep.ops}["addmm"] == "npu"


def test_tiny_llama_inference_on_meta_is_npu_native() -> None:
    trace = trace_model(TINY_LLAMA, name="tiny-llama", task="inference", keep_whole=NPU.aten, seq_len=16)
    assert trace.device == "meta" and not trace.shrunk
    # kept whole as on the NPU: SDPA and matmul reach the recorder undecomposed
    assert "scaled_dot_product_attention" in trace.ops and "matmul" in trace.ops
    assert "LlamaRMSNorm" in trace.module_classes
    rep = classify(trace, NPU, caveats=load_caveats())
    assert rep.verdict == "npu-native", rep.fallback_ops


def test_keep_whole_registration_is_undone() -> None:
    trace_model(TINY_LLAMA, name="tiny-llama", task="inference", keep_whole=NPU.aten, seq_len=8)
    q = torch.randn(1, 2, 4, 8, device="meta")
    counts, _, kept, _ = record_ops(lambda: torch.nn.functional.scaled_dot_product_attention(q, q, q))
    assert kept == [] and "scaled_dot_product_attention" not in counts


def test_training_trace_includes_backward_ops() -> None:
    inf = trace_model(TINY_LLAMA, name="tiny-llama", task="inference", seq_len=16)
    tr = trace_model(TINY_LLAMA, name="tiny-llama", task="training", seq_len=16)
    backward = {op for op in tr.ops if "backward" in op}
    assert {"silu_backward", "embedding_dense_backward"} <= backward
    assert not any("backward" in op for op in inf.ops)
    assert classify(tr, NPU, caveats=load_caveats()).verdict == "npu-native"


def test_moe_is_traced_shrunk_on_cpu() -> None:
    assert is_moe(TINY_QWEN3_MOE) and not is_moe(TINY_LLAMA)
    trace = trace_model(TINY_QWEN3_MOE, name="qwen3-moe", task="inference", keep_whole=NPU.aten)
    assert trace.device == "cpu"
    assert trace.shrunk["num_experts"] == [128, 8] and trace.shrunk["num_hidden_layers"] == [48, 2]
    assert "topk" in trace.ops
    assert any("data-dependent" in w for w in trace.warnings)


def test_shrink_keeps_layer_kinds_and_token_ids_valid() -> None:
    cfg = {
        "model_type": "x", "num_hidden_layers": 12, "hidden_size": 4096, "num_attention_heads": 32,
        "num_key_value_heads": 32, "layer_types": ["sliding_attention"] * 5 + ["full_attention"] * 7,
        "first_k_dense_replace": 1, "n_routed_experts": 256, "num_experts_per_tok": 8, "n_group": 8,
        "topk_group": 4, "vocab_size": 100000, "eos_token_id": [99999, 3], "kv_lora_rank": 512,
    }
    small, changed = shrink_config(cfg)
    assert small["num_hidden_layers"] == 6  # the first full-attention layer is layer 6
    assert small["layer_types"] == ["sliding_attention"] * 5 + ["full_attention"]
    assert small["num_key_value_heads"] == small["num_attention_heads"]  # MHA stays MHA
    assert small["n_routed_experts"] == 8 and small["num_experts_per_tok"] == 2
    assert small["n_group"] == 2 and small["topk_group"] == 2
    assert max(small["eos_token_id"]) < small["vocab_size"]
    assert small["kv_lora_rank"] == 32 and "kv_lora_rank" in changed
    assert cfg["num_hidden_layers"] == 12  # the input is not modified
