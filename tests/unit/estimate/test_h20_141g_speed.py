"""Buyer review 2026-12-01: the H20 141GB estimated slower than the 96 GB H20 (TPOT 49.8 vs 43.6 ms, qwen2.5-32b, tp 2,
batch 50) although it has more bandwidth. The source (zzc0721/torch-performance-test-data database.md) measured only
the 'NVIDIA H20 96GB'; the 141 GB variant got the Hopper family median (0.80, set by H100/H200) instead of its own die's
0.96. A variant with no run of its own and the same dense peak now inherits its measured parent's factor."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.catalog.load import MEASURED_MATMUL
from suanli.catalog.peaks import dense_peak_tflops
from suanli.catalog.load import read_yaml
from suanli.estimate.efficiency import efficiency
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload

_MEASURED = {(r["device"], r["dtype"]) for r in (read_yaml(MEASURED_MATMUL) or {})["measurements"]}


@pytest.mark.parametrize("precision", ["bf16", "fp16", "fp32"])
def test_141g_inherits_the_measured_h20_matmul(cat, precision: str) -> None:  # type: ignore[no-untyped-def]
    big, small = lookup.accelerator(cat, "h20-141g"), lookup.accelerator(cat, "h20")
    assert ("h20", precision) in _MEASURED and ("h20-141g", precision) not in _MEASURED  # what the source has
    e_big, e_small = efficiency(cat, big, "matmul", precision), efficiency(cat, small, "matmul", precision)
    assert e_big.value == e_small.value and e_big.source == e_small.source == "meas-zzc-db"
    assert e_big.factor_id == f"matmul-h20-141g-{precision}" and "inherited from h20" in (e_big.note or "")


def test_every_unmeasured_same_peak_variant_inherits(cat) -> None:  # type: ignore[no-untyped-def]
    by_id = {a.id: a for a in cat.accelerators}
    for acc in cat.accelerators:
        parent = by_id.get(acc.variant_of or "")
        for dtype in ("bf16", "fp16", "fp32"):
            if (parent is None or (acc.id, dtype) in _MEASURED or (parent.id, dtype) not in _MEASURED
                    or dense_peak_tflops(acc, dtype) != dense_peak_tflops(parent, dtype)):
                continue
            assert efficiency(cat, acc, "matmul", dtype).value == efficiency(cat, parent, "matmul", dtype).value


@pytest.mark.parametrize(("model", "precision", "gpus", "batch"), [
    ("qwen2.5-32b", "bf16", 2, 50), ("qwen2.5-32b", "bf16", 2, 1), ("qwen2.5-7b", "bf16", 1, 16),
    ("qwen2.5-7b", "fp8", 1, 64), ("qwen2.5-72b", "bf16", 4, 32),
])
def test_141g_never_slower_than_h20_inference(cat, model: str, precision: str, gpus: int, batch: int) -> None:  # type: ignore[no-untyped-def]
    """Same die and compute, more bandwidth: never slower at equal settings unless a cited measurement of the 141 GB
    part says so (none in data/measured)."""
    m = lookup.model(cat, model)
    w = make_workload(task="inference", precision=precision, gpus=gpus, tp=gpus, batch=batch, input=1024, output=256)
    big = estimate(cat, m, lookup.accelerator(cat, "h20-141g"), w).inference
    small = estimate(cat, m, lookup.accelerator(cat, "h20"), w).inference
    assert big is not None and small is not None
    assert big.tpot_steady_s <= small.tpot_steady_s and big.tpot_s <= small.tpot_s
    assert big.ttft_s <= small.ttft_s and big.prefill_tokens_per_s >= small.prefill_tokens_per_s


def test_141g_never_slower_than_h20_training(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    w = make_workload(task="lora", precision="bf16", gpus=1, batch=4, seq=2048)
    big = estimate(cat, m, lookup.accelerator(cat, "h20-141g"), w).training
    small = estimate(cat, m, lookup.accelerator(cat, "h20"), w).training
    assert big is not None and small is not None and big.step_time_s <= small.step_time_s
