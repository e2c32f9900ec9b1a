"""What `suanli compare` and `suanli rent-vs-buy` print (a buyer's review, 2026-11-30): compare names each row's
layout; rent-vs-buy prices a year from the cheapest way to rent a card for 8,760 h, names the offer and billing
unit, and says in words what a blank or zero would hide."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "220"})


def test_compare_prints_the_layout_per_row() -> None:
    out = _run("compare", "--model", "qwen2.5-72b", "--gpu", "h20", "--gpu", "h200", "--gpus", "8")
    assert out.returncode == 0, out.stderr
    assert "layout" in out.stdout
    rows = [line for line in out.stdout.splitlines() if line.startswith(("h20 ", "h200 "))]
    assert len(rows) == 2 and all("replicas" in r and " yes " in r for r in rows), out.stdout
