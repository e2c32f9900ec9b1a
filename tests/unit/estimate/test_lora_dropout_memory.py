"""LoRA dropout keeps a copy of each adapted input (issue 12, ms-swift Benchmark.md gap).

PEFT's LoRA Linear computes `lora_B(lora_A(dropout(x)))` with `nn.Dropout(p)` when lora_dropout > 0: lora_A keeps the
dropped-out input (compute dtype) and torch's native_dropout keeps its bool mask (1 byte), one per adapted linear.
ms-swift 1.x defaults lora_dropout_p = 0.05; the workload flag `lora_dropout` (default off) says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import model
from suanli.estimate.memory import estimate_memory
from suanli.estimate.workload import make_workload

CASES = Path(__file__).resolve().parents[3] / "src" / "suanli" / "data" / "validation" / "published_cases_memory.yaml"


@pytest.fixture(scope="module")
def llama7b():  # type: ignore[no-untyped-def]
    return model(packaged_catalog(), "llama-2-7b")


@pytest.mark.parametrize("targets,width", [("q,v", 2 * 4096), ("attention", 4 * 4096),
                                           ("all-linear", 4 * 4096 + 2 * 4096 + 11008)])
def test_dropout_adds_input_and_mask_per_adapted_linear(llama7b, targets: str, width: int) -> None:  # type: ignore[no-untyped-def]
    kw = dict(task="lora", precision="bf16", batch=2, seq=1024, lora_rank=8, lora_targets=targets, recompute="none")
    plain = estimate_memory(llama7b, make_workload(**kw))
    drop = estimate_memory(llama7b, make_workload(**kw, lora_dropout=True))
    added = drop.breakdown_bytes["activations"] - plain.breakdown_bytes["activations"]
    assert added == pytest.approx(width * (2 + 1) * 2 * 1024 * 32, rel=1e-9)  # bf16 copy + bool mask, 32 layers


def test_full_recompute_holds_it_for_the_recomputed_layer_only(llama7b) -> None:  # type: ignore[no-untyped-def]
    kw = dict(task="lora", precision="bf16", batch=1, seq=2048, lora_targets="attention", recompute="full")
    plain = estimate_memory(llama7b, make_workload(**kw))
    drop = estimate_memory(llama7b, make_workload(**kw, lora_dropout=True))
    added = drop.breakdown_bytes["activations"] - plain.breakdown_bytes["activations"]
    assert added == pytest.approx(4 * 4096 * 3 * 2048, rel=1e-9)


def test_off_by_default_and_no_effect_outside_lora(llama7b) -> None:  # type: ignore[no-untyped-def]
    assert make_workload(task="lora").lora_dropout is False
    kw = dict(task="full", precision="bf16", batch=1, seq=1024)
    assert estimate_memory(llama7b, make_workload(**kw, lora_dropout=True)).per_gpu_bytes == pytest.approx(
        estimate_memory(llama7b, make_workload(**kw)).per_gpu_bytes)


def test_swift_cases_encode_the_framework_default() -> None:
    cases = [c for c in yaml.safe_load(CASES.read_text())["cases"] if c.get("source") == "cmem-swift-benchmark"]
    assert len(cases) == 51
    assert all(c.get("lora_dropout") is True for c in cases)
    assert all(c.get("bnb_saves_inputs") is True for c in cases if c["task"] == "qlora")
