"""One memory figure across plan, compare and estimate (2026-12-01 closing note, defect 1): `suanli compare` for
serving printed a GiB/card column that held vLLM's pre-allocated KV pool (22.1 GiB on a 24 GiB RTX 4090) where
`suanli plan` prints needed / usable (16/22). Compare now prints plan's figure, from the same estimate fields
(`memory_needed_bytes` / `memory_usable_bytes`, equal to `suanli estimate --json`'s needed_bytes / usable_bytes), and
says the engine's pool on a line of its own (`memory_pool_note`)."""

from __future__ import annotations

import datetime as dt
import json

from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.cli.main import app
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.validate.bands import packaged_error_bands

GiB = 2**30
TODAY = dt.date(2026, 12, 1)
CMP = ["compare", "--model", "qwen2.5-7b", "--task", "inference", "--gpu", "4090", "--gpu", "a100-80g", "--gpu", "910b"]


def _run(*args: str) -> str:
    out = CliRunner().invoke(app, ["--lang", "en", *args], env={"COLUMNS": "220"})
    assert out.exit_code == 0, out.output
    return out.output


def test_compare_row_has_plans_needed_and_usable_for_the_same_layout() -> None:
    """The plan's 4090 serving layout, given to compare as its batch: the same needed and usable bytes, and the row's
    total (the pool included) is not that figure."""
    cat = packaged_catalog()
    m = lookup.model(cat, "qwen2.5-7b")
    p = plan(cat, m, make_request(model="qwen2.5-7b", task="inference", requests_per_s=1.0, devices=("rtx-4090",),
                                  gpus=1), TODAY, error_bands=packaged_error_bands()).plans[0]
    rows = compare_devices(cat, m, ["rtx-4090", "a100-80g"], "inference", 1, batch=p.micro_batch, today=TODAY,
                           error_bands=packaged_error_bands())
    r = rows[0]
    assert r["layout"]["batch"] == p.micro_batch and r["layout"]["engine"] == p.engine == "vllm"
    assert abs(r["memory_needed_bytes"] - p.memory_needed_bytes) < 1e-6 * GiB
    assert abs(r["memory_usable_bytes"] - p.memory_usable_bytes) < 1e-6 * GiB
    assert r["memory_per_gpu_bytes"] - r["memory_needed_bytes"] > 4 * GiB  # the unused pool: not plan's figure
    assert r["memory_pool_note_i18n"]["id"] == "cmp.memory_pool"


def test_compare_estimate_and_plan_print_the_same_gib_per_card() -> None:
    """`compare --batch 8` on the RTX 4090 prints 16/22, as `plan` prints its b8 layout and as `estimate --json`
    counts it (needed 15.5 of 21.6 usable GiB); before, compare printed 22.1 (the pool included)."""
    rows = json.loads(_run(*CMP, "--batch", "8", "--json"))
    est = json.loads(_run("estimate", "--model", "qwen2.5-7b", "--gpu", "4090", "--batch", "8", "--engine", "vllm",
                          "--json"))
    r = next(x for x in rows if x["device"] == "rtx-4090")
    assert r["memory_needed_bytes"] == est["memory"]["needed_bytes"]
    assert r["memory_usable_bytes"] == est["memory"]["usable_bytes"]
    text = _run(*CMP, "--batch", "8")
    line = next(x for x in text.splitlines() if "RTX 4090" in x and " b8 " in x)  # plan's label: 1×tp1 b8 bf16
    need, usable = est["memory"]["needed_bytes"] / GiB, est["memory"]["usable_bytes"] / GiB
    assert f" {need:,.0f}/{usable:,.0f} " in line and "22.1" not in line.split("vllm")[1].split()[0]
    # the pool holds the runtime too (memory.pool_bytes, helper A 2026-12-03): 90% of 23.99 GiB in use, not 22.1
    assert "vllm reserves 90% of the card up front: 21.6 GiB in use per card" in " ".join(text.split())
    zh = CliRunner().invoke(app, ["--lang", "zh", *CMP, "--batch", "8"], env={"COLUMNS": "220"}).output
    assert "vllm 预先占用 90% 的显存" in zh


def test_an_engine_without_a_pool_has_no_pool_note() -> None:
    """Training (and engines that allocate on demand) hold no pre-allocated pool: needed / usable, no note."""
    rows = json.loads(_run("compare", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--gpu",
                           "a100-80g", "--gpu", "h100", "--json"))
    for r in rows:
        assert r["memory_pool_note"] is None and "kv_cache_pool_unused" not in r["breakdown_bytes"]
        assert abs(r["memory_needed_bytes"] - r["memory_per_gpu_bytes"]) < 1.0
        assert r["memory_usable_bytes"] < r["memory_capacity_bytes"]  # the stack's fragmentation margin
