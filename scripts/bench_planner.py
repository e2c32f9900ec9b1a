"""Planner speed benchmark (issue 4, item 3): configurations evaluated per second by the vectorized search,
wall time of full-catalog plans, and the same kind of evaluations through llm-analysis==0.2.2 in the same run.

    .venv/bin/python scripts/bench_planner.py            # creates .bench-venv with llm-analysis on first use
    .venv/bin/python scripts/bench_planner.py --no-llm-analysis

A benchmark, not a test: it prints figures; nothing asserts on them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_VENV = ROOT / ".bench-venv"

LLM_ANALYSIS_SNIPPET = r"""
import itertools, json, logging, sys, time
logging.disable(logging.CRITICAL)
from llm_analysis.analysis import train
gpus = ["a100-sxm-80gb", "a100-sxm-40gb", "h100-sxm-80gb", "a10-pcie-28gb"]
batches = [1, 2, 4, 8]
zeros = [0, 1, 2, 3]
tps = [1, 2, 4, 8]
configs = list(itertools.product(gpus, batches, zeros, tps))
n = int(sys.argv[1])
configs = (configs * (n // len(configs) + 1))[:n]
t0 = time.perf_counter()
ok = 0
for g, b, z, tp in configs:
    try:
        train(model_name="NousResearch_Llama-2-7b-hf", gpu_name=g, dtype_name="w16a16e16",
              log_level="CRITICAL", batch_size_per_gpu=b, ds_zero=z, tp_size=tp, total_num_gpus=8,
              seq_len=2048, total_num_tokens=int(1e9), flops_efficiency=0.5, hbm_memory_efficiency=0.9,
              activation_recomputation=0)
        ok += 1
    except Exception:
        pass
dt = time.perf_counter() - t0
print(json.dumps({"configs": len(configs), "ok": ok, "seconds": dt}))
"""


def _median_time(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    fn()  # warm-up (catalog load, imports)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def suanli_figures(repeats: int) -> dict[str, float]:
    """The planner's grid runs the estimator's own kernels (training_memory, training_step, setup, billing):
    configurations/s here are configurations of the shared kernels that `suanli estimate` uses."""
    from suanli.catalog import lookup
    from suanli.catalog.load import packaged_catalog
    from suanli.catalog.offers import usable_offers
    from suanli.plan.request import make_request
    from suanli.plan.search import _devices, _train_grid, plan

    cat = packaged_catalog()
    every = dict(region="any", offer_kinds=("listing", "index", "reference"))
    out: dict[str, float] = {}
    m = lookup.model(cat, "llama-2-7b")
    req = make_request(model="llama-2-7b", task="full", tokens=1e9, max_gpus=512, framework="megatron", **every)
    devs = _devices(cat, m, req, usable_offers(cat, req.region, req.offer_kinds))
    grid, n = _train_grid(cat, m, req, devs)
    t = _median_time(lambda: _train_grid(cat, m, req, devs), repeats)
    out["grid_configurations"] = n
    out["valid_configurations"] = int(grid["dev"].shape[0])
    out["grid_seconds"] = t
    out["configurations_per_s"] = n / t
    out["valid_configurations_per_s"] = int(grid["dev"].shape[0]) / t
    for name, kw in {
        "plan_lora_7b": dict(model="qwen2.5-7b", task="lora", tokens=1e8),
        "plan_full_70b": dict(model="llama-2-70b", task="full", tokens=1e9),
        "plan_pretrain_405b_512_megatron": dict(model="llama-3.1-405b", task="pretrain", tokens=1e10, max_gpus=512),
        "plan_moe_megatron_ep": dict(model="mixtral-8x7b", task="full", tokens=1e9, framework="megatron"),
        "plan_serve_7b": dict(model="qwen2.5-7b", task="inference", requests_per_s=5, tpot_s=0.05),
        "plan_serve_72b": dict(model="qwen2.5-72b", task="inference", requests_per_s=5),
    }.items():
        r = make_request(**kw, **every)
        mm = lookup.model(cat, r.model)
        out[f"{name}_seconds"] = _median_time(lambda r=r, mm=mm: plan(cat, mm, r), repeats)
    return out


def llm_analysis_figures(n: int) -> dict[str, float] | None:
    py = BENCH_VENV / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(BENCH_VENV)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", "llm-analysis==0.2.2"], check=True)
    env = {**os.environ, "TRANSFORMERS_VERBOSITY": "error"}
    r = subprocess.run([str(py), "-c", LLM_ANALYSIS_SNIPPET, str(n)], capture_output=True, text=True, env=env)
    lines = [x for x in r.stdout.splitlines() if x.startswith("{")]
    if r.returncode != 0 or not lines:
        print("llm-analysis run failed:", r.stderr[-2000:], file=sys.stderr)
        return None
    d = json.loads(lines[-1])
    d["configurations_per_s"] = d["configs"] / d["seconds"]
    return d


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--llm-analysis-configs", type=int, default=256)
    ap.add_argument("--no-llm-analysis", action="store_true")
    args = ap.parse_args()
    import datetime

    print(f"{datetime.date.today()} · machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}")
    s = suanli_figures(args.repeats)
    print(f"suanli shared kernels (Megatron layouts, every device): {s['grid_configurations']:,.0f} device × layout "
          f"configurations in {s['grid_seconds'] * 1000:,.1f} ms = {s['configurations_per_s']:,.0f} configurations/s "
          f"(median of {args.repeats}); {s['valid_configurations']:,.0f} rentable ones fully evaluated = "
          f"{s['valid_configurations_per_s']:,.0f}/s")
    for k, v in s.items():
        if k.startswith("plan_"):
            print(f"  {k.removesuffix('_seconds')}: {v * 1000:,.1f} ms for a full-catalog plan (every region and price kind)")
    if not args.no_llm_analysis:
        la = llm_analysis_figures(args.llm_analysis_configs)
        if la:
            print(f"llm-analysis 0.2.2 train(): {la['configs']} configurations in {la['seconds']:,.2f} s "
                  f"= {la['configurations_per_s']:,.1f} configurations/s ({la['ok']} completed)")
            print(f"ratio suanli (valid layouts) / llm-analysis: {s['valid_configurations_per_s'] / la['configurations_per_s']:,.0f}×")


if __name__ == "__main__":
    main()
