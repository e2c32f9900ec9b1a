"""A pre-allocating engine's pool, one rule for the fit and the table.

Helper D, 2026-12-02: `suanli estimate --engine vllm` printed a total (22.09 GiB for Qwen2.5-7B on an RTX 4090) above
"usable" (21.59 GiB) on a row that fits, and the table was then split into the pool and the runtime overhead "outside"
it, while the fit counted the runtime inside (needed, runtime included, ≤ the pool). Helper A, 2026-12-03: vLLM's
V1 worker sizes the KV cache as gpu_memory_utilization × the card less the tensors' peak and every byte outside
torch's allocator (the runtime's included; vllm-ascend's worker_v1 the same), so the runtime sits in the pool: the
unused KV pool is the pool less needed, the card holds the pool, and the table only shows that (`memory.pool_bytes`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.estimate.estimate import estimate
from suanli.estimate.memory import max_batch_that_fits, pool_bytes
from suanli.estimate.workload import make_workload


@pytest.mark.parametrize(("model", "gpu", "gpus", "engine"), [("qwen2.5-7b", "rtx-4090", 1, "vllm"),
                                                               ("qwen2.5-72b", "h20", 8, "vllm"),
                                                               ("qwen2.5-7b", "910b", 1, "vllm-ascend")])
def test_the_pool_holds_the_runtime_as_the_fit_counts_it(model: str, gpu: str, gpus: int, engine: str) -> None:
    cat = packaged_catalog()
    e = estimate(cat, lookup.model(cat, model), lookup.accelerator(cat, gpu),
                 make_workload(task="inference", engine=engine, gpus=gpus, tp=gpus))
    mem = e.memory
    parts = mem.breakdown_bytes
    pool = pool_bytes(parts)
    assert pool is not None and mem.fits and mem.usable_bytes is not None and mem.needed_bytes is not None
    assert parts["runtime_overhead"] > 0
    # the fit's rule: needed (runtime included) against the pool; the unused KV pool is exactly what is left of it
    assert parts["kv_cache_pool_unused"] == pytest.approx(mem.usable_bytes - mem.needed_bytes)
    # so the card holds the pool, no more (before: the pool + the runtime, 22.09 of 21.59 usable GiB)
    assert pool == pytest.approx(mem.usable_bytes) and mem.per_gpu_bytes == pytest.approx(mem.usable_bytes)
    assert mem.capacity_bytes is not None and mem.per_gpu_bytes <= mem.capacity_bytes


def test_the_largest_batch_fills_the_pool_the_note_names() -> None:
    """The KV pool the estimate's note names (the pool less the runtime and the tensors) is what the largest batch
    that fits fills (one rule): one more sequence's cache no longer fits in it (before: the note named 0.5 GiB more)."""
    cat = packaged_catalog()
    m, acc = lookup.model(cat, "qwen2.5-7b"), lookup.accelerator(cat, "rtx-4090")
    w = make_workload(task="inference", engine="vllm")
    stack = lookup.stack(cat, acc.stack)
    b = max_batch_that_fits(m, w, acc, stack, cat=cat)
    e1 = estimate(cat, m, acc, w.model_copy(update={"batch": 1})).memory
    eb = estimate(cat, m, acc, w.model_copy(update={"batch": b})).memory
    note = next(n for n in eb.notes_i18n if n["id"] == "est.note.prealloc")  # the KV pool at that batch
    kv_per_seq = e1.breakdown_bytes["kv_cache"]
    pool_gib = note["params"]["pool_gib"]
    assert eb.breakdown_bytes["kv_cache"] <= pool_gib * 2**30 + 1
    assert eb.breakdown_bytes["kv_cache"] + kv_per_seq > pool_gib * 2**30 - 2**20  # batch b + 1 would not fit


def test_no_pool_without_a_preallocating_engine() -> None:
    cat = packaged_catalog()
    e = estimate(cat, lookup.model(cat, "qwen2.5-7b"), lookup.accelerator(cat, "rtx-4090"),
                 make_workload(task="inference", engine="hf"))
    assert pool_bytes(e.memory.breakdown_bytes) is None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_table_shows_the_pool_with_the_runtime_in_it(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--lang", lang, "estimate", "--model", "qwen2.5-7b", "--gpu", "rtx4090", "--task",
                              "inference", "--engine", "vllm"], monkeypatch, capsys, tmp_path)
    assert code == 0, err
    flat = " ".join(out.split())
    if lang == "en":
        assert "total 23.18 GB (21.59 GiB)" in flat, out
        assert "outside the pool" not in flat, out
        assert ("vllm reserves 90% of the card, 21.59 GiB (usable), and its pool holds every item above, the runtime "
                "overhead (0.50 GiB) included") in flat, out
        assert "so the card holds 21.59 of its 23.99 GiB, and the fit counts needed (14.79 GiB) against the pool" in flat
    else:
        assert "总计 23.18 GB (21.59 GiB)" in flat or "23.18 GB (21.59 GiB)" in flat, out
        assert "运行时开销（0.50 GiB）也在内" in flat, out
        assert "池外" not in flat, out
    code, out, err = run_cli(["estimate", "--model", "qwen2.5-7b", "--gpu", "rtx4090", "--task", "inference",
                              "--engine", "hf"], monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert "pool" not in out
