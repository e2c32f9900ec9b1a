"""The TensorRT-LLM H200 blog cases cache KV in 8 bits (encoding fixed 2026-12-01): the blogs state batches that a
16-bit cache cannot hold on the stated cards, so every row of each source is encoded kv_dtype fp8 alike."""

from __future__ import annotations

from typing import Any

import pytest

from suanli.catalog import lookup
from suanli.catalog.load import load_catalog
from suanli.catalog.schema import Catalog
from suanli.estimate.memory import estimate_memory
from suanli.estimate.workload import make_workload
from suanli.validate.report import VALIDATION_DIR, _model_for, case_workload_kwargs, load_cases

SOURCES = ("hold-trtllm-h200-launch", "hold-trtllm-falcon180b-h200")
# rows whose stated batch does not fit a 16-bit cache (the argument the encoding rests on)
OVER_WITH_16_BIT = {
    "hold-trtllm-h200-llama-2-13b-fp8-b1024-in128-out128",
    "hold-trtllm-h200-llama-2-13b-fp8-b128-in128-out2048",
    "hold-trtllm-h200-llama-2-70b-fp8-b512-tp2-in128-out2048",
    "hold-trtllm07-h200-llama-2-70b-fp8-b960-in128-out128",
    "hold-trtllm07-h200-llama-2-70b-fp8-b192-in128-out2048",
    "hold-trtllm07-h200-llama-2-70b-fp8-b96-in128-out4096",
}


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def _cases() -> list[dict[str, Any]]:
    return [c for c in load_cases() if c.get("source") in SOURCES]


def _needed_bytes(cat: Catalog, case: dict[str, Any], kv_dtype: str | None) -> tuple[float, float]:
    m = _model_for(cat, case, VALIDATION_DIR)
    acc = lookup.accelerator(cat, case["device"])
    stack = next((s for s in cat.stacks if s.id == acc.stack), None)
    kw = {**case_workload_kwargs(case), "kv_dtype": kv_dtype}
    est = estimate_memory(m, make_workload(**kw), acc, stack, cat)
    need = est.per_gpu_bytes - est.breakdown_bytes.get("kv_cache_pool_unused", 0.0)
    return need, acc.specs.memory_gib.value * 2**30


def test_every_row_of_both_sources_is_encoded_fp8_kv() -> None:
    cases = _cases()
    assert len(cases) == 10
    assert all(c.get("kv_dtype") == "fp8" for c in cases)
    assert OVER_WITH_16_BIT <= {c["id"] for c in cases}


def test_each_source_has_rows_a_16_bit_cache_cannot_hold(cat: Catalog) -> None:
    for case in _cases():
        need_16, cap = _needed_bytes(cat, case, None)
        need_8, _ = _needed_bytes(cat, case, "fp8")
        assert need_8 < cap, case["id"]  # every stated batch fits with an 8-bit cache
        assert (need_16 > cap) == (case["id"] in OVER_WITH_16_BIT), case["id"]
