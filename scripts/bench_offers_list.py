"""How long `suanli offers` takes with 10,000 imported offers (issue 11: under 1 s).

Imports 10,000 plausible rows into a fresh SQLite store in a temporary SUANLI_HOME, then times the CLI as a user
runs it (a new process each time: start-up, opening the store, reading the offers, filtering, paging), best of
`--repeat` runs. Rerun: `.venv/bin/python scripts/bench_offers_list.py`."""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROWS = [("rtx-4090", 1, "hour", 2.0), ("rtx-4090", 8, "month", 7920.0), ("ascend-910b", 8, "month", 15600.0),
        ("h100-sxm", 8, "hour", 180.0), ("a800", 1, "hour", 5.0)]
COMMANDS = [
    ["offers"],
    ["offers", "--limit", "20", "--offset", "5000"],
    ["offers", "--device", "rtx-4090", "--billing-unit", "hour", "--limit", "20"],
    ["offers", "--stale", "--limit", "20"],
    ["offers", "--region", "cn", "--offer-kinds", "listing", "--json", "--limit", "100"],
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    exe = str(Path(sys.executable).with_name("suanli"))
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "SUANLI_HOME": home}
        env.pop("SUANLI_DATABASE_URL", None)
        rng = random.Random(11)
        csv = Path(home) / "bulk.csv"
        lines = ["id,provider,device,cards,billing_unit,price_cny,date,source"]
        for i in range(args.rows):
            dev, cards, unit, price = ROWS[i % len(ROWS)]
            lines.append(f"bulk-{i},Bulk {i % 37},{dev},{cards},{unit},{price * rng.uniform(0.6, 1.6):.2f},"
                         f"2025-{1 + i % 12:02d}-01,bulk-list")
        csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
        t0 = time.perf_counter()
        subprocess.run([exe, "offers", "import", str(csv)], env=env, check=True, capture_output=True)
        print(f"import of {args.rows} rows: {time.perf_counter() - t0:.2f} s")
        for cmd in COMMANDS:
            best = float("inf")
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                subprocess.run([exe, *cmd], env=env, check=True, capture_output=True)
                best = min(best, time.perf_counter() - t0)
            print(f"suanli {' '.join(cmd)}: {best:.2f} s (best of {args.repeat})")


if __name__ == "__main__":
    main()
