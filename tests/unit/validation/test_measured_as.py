"""Every memory case declares what its figure counts (issue 12, like with like): `measured_as` is allocated
(torch.cuda.max_memory_allocated or an exact tensor count), reserved (max_memory_reserved: the caching allocator's
pool), device (nvidia-smi / npu-smi: the pool plus the runtime's context) or unknown (the source does not say),
set from each source's text or code (the source notes say which), never from the error. `validate` scores the
estimate in that quantity through suanli.estimate.memory.measured_quantity_bytes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import accelerator, model
from suanli.estimate.memory import MEASURED_AS, estimate_memory
from suanli.estimate.workload import make_workload
from suanli.units import GiB
from suanli.validate.report import case_workload_kwargs, run_validation

VAL_DIR = Path(__file__).resolve().parents[3] / "src" / "suanli" / "data" / "validation"


def _memory_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted(VAL_DIR.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        out += [{**c, "_file": path.name} for c in doc.get("cases", []) or []
                if isinstance(c, dict) and str(c.get("group", "")).endswith("memory")]
    return out


MEMORY = _memory_cases()


def test_every_memory_case_declares_what_it_measured() -> None:
    assert len(MEMORY) >= 130
    bad = [c["id"] for c in MEMORY if c.get("measured_as") not in MEASURED_AS]
    assert not bad, bad
    assert not [c["id"] for c in MEMORY if "includes_runtime" in c], "includes_runtime became measured_as: device"
    assert not [c["id"] for c in _all_cases() if "measured_as" in c and not str(c["group"]).endswith("memory")]


def _all_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted(VAL_DIR.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        out += [c for c in doc.get("cases", []) or [] if isinstance(c, dict) and "group" in c]
    return out


@pytest.mark.parametrize("case", MEMORY, ids=[c["id"] for c in MEMORY])
def test_kind_matches_the_stated_counter(case: dict[str, Any]) -> None:
    """A note that names max_memory_reserved is `reserved`; one that names only max_memory_allocated is `allocated`;
    a CPU case (exact tensor count) is `allocated`."""
    text = f"{case.get('note', '')} {case.get('reported', '')}"
    if "max_memory_reserved" in text:
        assert case["measured_as"] == "reserved", case["id"]
    elif "max_memory_allocated" in text:
        assert case["measured_as"] == "allocated", case["id"]
    if case.get("device", "cpu") == "cpu":
        assert case["measured_as"] == "allocated", case["id"]


def test_declared_kinds_per_source() -> None:
    """The encoding, source by source (the reasons are in each source's note and docs/validation-log.md)."""
    kinds: dict[str, set[str]] = {}
    for c in MEMORY:
        kinds.setdefault(c["source"], set()).add(c["measured_as"])
    assert kinds == {
        "val-cpu-measured": {"allocated"}, "val-qwen25-speed": {"allocated"},
        "val-litgpt-resource-tables": {"allocated"}, "cmem-hf-awq-doc": {"allocated"},
        "cmem-swift-benchmark": {"reserved"}, "eng-glm4-basic-demo": {"device"},
        "eng-torchtune-readme": {"unknown"}, "hold-qwen1-readme": {"unknown"}, "cmem-qwen2-speed-hf": {"unknown"},
        # allocated peak + the memory outside the pool (optimum's harness); no kind adds the runtime to allocated alone
        "c2612b-optimum-gptq-bench": {"allocated"},
        # torchtune's tutorials label the column 'Peak memory reserved' (get_memory_stats: max_memory_reserved / 1e9);
        # the PEFT guide names no tool
        "cmt-torchtune-lora-tutorial": {"reserved"}, "cmt-torchtune-qlora-tutorial": {"reserved"},
        "cmt-peft-deepspeed-doc": {"unknown"}, "cmt-peft-fsdp-doc": {"unknown"},
    }


def test_validate_scores_reserved_and_device_through_the_fragmentation_relation() -> None:
    """A reserved case is scored on need / (1 − f), a device case on that plus the stack's runtime item, an allocated
    or unknown case on the need alone (CUDA: f 0.15 gmlake-2024, runtime 0.5 GiB)."""
    cat = packaged_catalog()
    results, _ = run_validation(cat)
    by_id = {r.id: r for r in results}
    swift = by_id["cmem-swift-lora-qwen-7b-len2048"]
    assert swift.default is not None and swift.seed is not None
    glm = by_id["eng-glm4-9b-hf-bf16-in1000-mem-a100"]
    assert glm.default is not None
    # the estimate in the measured quantity is larger than the need by exactly the relation
    case = next(c for c in MEMORY if c["id"] == glm.id)
    acc = accelerator(cat, case["device"])
    m = model(cat, case["model"])
    need = estimate_memory(m, make_workload(**case_workload_kwargs(case)), acc, None, cat).per_gpu_bytes
    assert glm.default == pytest.approx(need / (1 - 0.15) + 0.5 * GiB)
