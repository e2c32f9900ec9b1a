"""CLI start-up benchmark (issue 13, item 5): wall time of common `suanli` commands, median of N runs, each
in a fresh process as a user types it. The first run of each command warms the catalog cache
($SUANLI_HOME/cache) and is not counted.

    .venv/bin/python scripts/bench_cli_startup.py            # 7 runs per command
    .venv/bin/python scripts/bench_cli_startup.py --runs 15 --json
    .venv/bin/python scripts/bench_cli_startup.py --write-bytecode   # as after `pip install` (see below)

A benchmark, not a test: it prints figures against the targets (≤ 0.3 s; `plan` ≤ 0.6 s); nothing asserts.

Bytecode: a `pip install` compiles suanli's modules, and Python writes `__pycache__` on first import of an
editable install unless PYTHONDONTWRITEBYTECODE is set; this build machine sets it, so every call compiles
~35 suanli modules again (~0.04 s). By default the environment is left as it is; `--write-bytecode` lets the
warm-up write the caches. The header says whether suanli's bytecode was cached, and the load average.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUANLI = str(Path(sys.executable).parent / "suanli")

COMMANDS: list[tuple[str, list[str], float]] = [
    ("--help", ["--help"], 0.3),
    ("--version", ["--version"], 0.3),
    ("gpus", ["gpus"], 0.3),
    ("gpu 910b", ["gpu", "910b"], 0.3),
    ("estimate", ["estimate", "--model", "llama-2-7b", "--task", "inference", "--gpu", "rtx-4090"], 0.3),
    ("plan", ["plan", "--file", str(ROOT / "examples" / "lora-7b.yaml")], 0.6),
]


def _time(args: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run([SUANLI, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def _bytecode_cached() -> bool:
    """Whether the compiled bytecode of suanli's CLI entry module exists (Python reads it even when
    PYTHONDONTWRITEBYTECODE forbids writing it)."""
    src = ROOT / "src" / "suanli" / "cli" / "main.py"
    return Path(importlib.util.cache_from_source(str(src))).is_file()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="timed runs per command (after one warm-up)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ap.add_argument("--write-bytecode", action="store_true",
                    help="unset PYTHONDONTWRITEBYTECODE so the warm-up writes suanli's __pycache__ (as an install does)")
    a = ap.parse_args()
    env = {**os.environ, "COLUMNS": "100"}
    if a.write_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    rows = []
    for label, args, target in COMMANDS:
        _time(args, env)  # warm-up: builds the catalog cache, fills the OS page cache
        runs = [_time(args, env) for _ in range(a.runs)]
        med = statistics.median(runs)
        rows.append({"command": f"suanli {label}", "median_s": round(med, 3), "min_s": round(min(runs), 3),
                     "max_s": round(max(runs), 3), "target_s": target, "met": med <= target})
    meta = {"date": dt.date.today().isoformat(), "python": platform.python_version(),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs", "runs": a.runs,
            "bytecode_cached": _bytecode_cached(), "load_average_1min": load}
    if a.json:
        print(json.dumps({**meta, "results": rows}, indent=2))
        return
    print(f"suanli CLI start-up, median of {a.runs} runs · {meta['date']} · Python {meta['python']} · {meta['machine']}")
    print(f"suanli bytecode cached: {'yes' if meta['bytecode_cached'] else 'no'} · load average before: "
          + (f"{load:.2f}" if load is not None else "n/a"))
    print(f"{'command':<18} {'median s':>9} {'min s':>7} {'max s':>7} {'target s':>9}  met")
    for r in rows:
        print(f"{r['command']:<18} {r['median_s']:>9.3f} {r['min_s']:>7.3f} {r['max_s']:>7.3f} {r['target_s']:>9.1f}  "
              f"{'yes' if r['met'] else 'no'}")


if __name__ == "__main__":
    main()
