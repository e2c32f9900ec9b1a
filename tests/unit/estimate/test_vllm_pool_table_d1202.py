"""Helper D, 2026-12-02: `suanli estimate --engine vllm` printed a memory table whose total (22.09 GiB for
Qwen2.5-7B on an RTX 4090) was above "usable" (21.59 GiB) on a row that fits: the runtime overhead sits outside vLLM's
pre-allocated pool (gpu_memory_utilization × the card), which the other items fill to the byte. The table now shows
the pool as a subtotal and the runtime overhead beside it, from memory.py's terms (`pool_bytes`, `OUTSIDE_POOL`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.estimate.estimate import estimate
from suanli.estimate.memory import OUTSIDE_POOL, pool_bytes
from suanli.estimate.workload import make_workload


@pytest.mark.parametrize(("model", "gpu", "gpus"), [("qwen2.5-7b", "rtx-4090", 1), ("qwen2.5-72b", "h20", 8)])
def test_pool_and_outside_items_add_up(model: str, gpu: str, gpus: int) -> None:
    cat = packaged_catalog()
    e = estimate(cat, lookup.model(cat, model), lookup.accelerator(cat, gpu),
                 make_workload(task="inference", engine="vllm", gpus=gpus, tp=gpus))
    mem = e.memory
    parts = mem.breakdown_bytes
    pool = pool_bytes(parts)
    assert pool is not None and mem.fits and mem.usable_bytes is not None
    assert pool == pytest.approx(mem.usable_bytes)  # the pool is the usable share, filled to the byte
    outside = sum(v for k, v in parts.items() if k in OUTSIDE_POOL)
    assert outside > 0 and pool + outside == pytest.approx(mem.per_gpu_bytes)
    assert mem.per_gpu_bytes > mem.usable_bytes  # why the table needs the split: the total is above usable
    assert mem.capacity_bytes is not None and mem.per_gpu_bytes <= mem.capacity_bytes


def test_no_pool_without_a_preallocating_engine() -> None:
    cat = packaged_catalog()
    e = estimate(cat, lookup.model(cat, "qwen2.5-7b"), lookup.accelerator(cat, "rtx-4090"),
                 make_workload(task="inference", engine="hf"))
    assert pool_bytes(e.memory.breakdown_bytes) is None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_table_shows_the_pool_and_what_sits_beside_it(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--lang", lang, "estimate", "--model", "qwen2.5-7b", "--gpu", "rtx4090", "--task",
                              "inference", "--engine", "vllm"], monkeypatch, capsys, tmp_path)
    assert code == 0, err
    flat = " ".join(out.split())
    if lang == "en":
        assert "vllm pool (90% of device memory) 23.18 GB (21.59 GiB)" in flat, out
        assert "runtime overhead, outside the pool 0.54 GB (0.50 GiB)" in flat, out
        assert ("the runtime overhead (0.50 GiB) sits beside it, so the card holds 22.09 of its 23.99 GiB; the fit "
                "counts the runtime overhead in needed (14.79 GiB) against the pool (usable 21.59 GiB)") in flat, out
    else:
        assert "vllm 预分配池（设备显存的 90%） 23.18 GB (21.59 GiB)" in flat, out
        assert "运行时开销（池外） 0.54 GB (0.50 GiB)" in flat, out
    code, out, err = run_cli(["estimate", "--model", "qwen2.5-7b", "--gpu", "rtx4090", "--task", "inference",
                              "--engine", "hf"], monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert "pool" not in out and "outside" not in out
