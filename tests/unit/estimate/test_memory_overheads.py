"""Memory cases measure what their source measured, and the estimator reports that quantity (issue 12, memory pass).

- A case measured with torch.cuda.max_memory_allocated() (tensor memory of the caching allocator) says
  `measured_as: allocated` and carries no runtime term; a case read from nvidia-smi / a whole-process figure says
  `measured_as: device`, and estimate_memory's runtime item is exactly the stack's runtime_overhead_gib (CUDA context
  and loaded kernels); memory.measured_quantity_bytes adds it beside the allocator's pool.
- LitGPT's multi-GPU LoRA rows run FSDP with every Block checkpointed (Lightning-AI/lit-gpt:finetune/lora.py,
  `FSDPStrategy(auto_wrap_policy={Block}, activation_checkpointing_policy={Block}, ...)` when devices > 1), so they
  state `recompute: full`; the single-GPU rows run without checkpointing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import accelerator, model
from suanli.estimate.memory import estimate_memory
from suanli.estimate.workload import make_workload
from suanli.units import GiB
from suanli.validate.report import case_workload_kwargs

VAL_DIR = Path(__file__).resolve().parents[3] / "src" / "suanli" / "data" / "validation"


def _cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted(VAL_DIR.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        out += [c for c in doc.get("cases", []) or [] if isinstance(c, dict)]
    return out


MEMORY = [c for c in _cases() if str(c.get("group", "")).endswith("memory")]
LITGPT_FSDP = [c for c in MEMORY if c["id"].startswith("litgpt-") and c.get("gpus", 1) > 1]
LITGPT_ONE = [c for c in MEMORY if c["id"].startswith("litgpt-") and c.get("gpus", 1) == 1
              and c["group"] == "training-memory"]


def test_litgpt_fsdp_rows_checkpoint_every_block() -> None:
    assert len(LITGPT_FSDP) == 3
    for c in LITGPT_FSDP:
        assert c["recompute"] == "full", c["id"]
        assert c["zero"] == 3, c["id"]
        assert "activation_checkpointing_policy={Block}" in c["note"], c["id"]
    # one GPU: strategy "auto", no checkpointing
    assert LITGPT_ONE and all(c["recompute"] == "none" for c in LITGPT_ONE)


@pytest.mark.parametrize("case", MEMORY, ids=[c["id"] for c in MEMORY])
def test_allocator_figures_carry_no_runtime(case: dict[str, Any]) -> None:
    """max_memory_allocated counts tensors only: a case that says so must not add the CUDA context."""
    text = f"{case.get('note', '')} {case.get('reported', '')}"
    if "max_memory_allocated" in text and "reserved" not in text:
        assert case["measured_as"] == "allocated", case["id"]


def test_runtime_term_is_the_stack_overhead_only() -> None:
    """The stack adds its runtime_overhead_gib (0.5 GiB on CUDA) to the same tensor estimate, as one item."""
    cat = packaged_catalog()
    case = next(c for c in MEMORY if c.get("measured_as") == "device" and c.get("device", "cpu") != "cpu")
    acc = accelerator(cat, case["device"])
    stack = next(s for s in cat.stacks if s.id == acc.stack)
    assert stack.runtime_overhead_gib is not None
    m = model(cat, case["model"])
    w = make_workload(**case_workload_kwargs(case))
    bare = estimate_memory(m, w, acc, None)
    full = estimate_memory(m, w, acc, stack)
    assert full.per_gpu_bytes - bare.per_gpu_bytes == pytest.approx(stack.runtime_overhead_gib.value * GiB)
    assert full.breakdown_bytes["runtime_overhead"] == pytest.approx(stack.runtime_overhead_gib.value * GiB)


def test_checkpointed_fsdp_row_by_hand() -> None:
    """Llama-2-7B LoRA q,v r=8 on 2 GPUs, ZeRO-3/FSDP, recompute full, micro-batch 1 x 1304: the activations are
    one checkpointed input per layer plus one layer's full activations (memory.training_memory), far below the
    uncheckpointed run's, and the weights are half the bf16 model."""
    cat = packaged_catalog()
    c = next(x for x in LITGPT_FSDP if x["id"] == "litgpt-llama-2-7b-lora-mb1-2gpu-mem")
    m = model(cat, c["model"])
    ckpt = estimate_memory(m, make_workload(**case_workload_kwargs(c)))
    plain = estimate_memory(m, make_workload(**{**case_workload_kwargs(c), "recompute": "none"}))
    assert ckpt.breakdown_bytes["activations"] < 0.25 * plain.breakdown_bytes["activations"]
    # bf16 base weights sharded over 2 ranks, fp32 adapters (PEFT-style) likewise: about 6.7 GB
    assert 6.5e9 < ckpt.breakdown_bytes["weights"] < 7.0e9
