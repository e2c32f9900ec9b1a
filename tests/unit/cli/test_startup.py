"""`suanli estimate` without a calibration file does not import the benchmark package (start-up budget,
issue 13 item 5; the figures are in scripts/bench_cli_startup.py, not in a timed test). With a file, the
calibration applies (tests/unit/api/test_parity.py checks CLI and API agree)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROBE = """
import sys
from suanli.cli.main import run
sys.argv = ["suanli", "estimate", "--model", "llama-2-7b", "--task", "inference", "--gpu", "rtx-4090", "--json"]
try:
    run()
except SystemExit:
    pass
print("BENCH_LOADED" if "suanli.bench.feedback" in sys.modules else "BENCH_NOT_LOADED", file=sys.stderr)
"""


def _probe(home: Path) -> str:
    r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "SUANLI_HOME": str(home)})
    assert '"memory"' in r.stdout, r.stderr
    return r.stderr


def test_estimate_imports_bench_only_with_a_calibration_file(tmp_path: Path) -> None:
    assert "BENCH_NOT_LOADED" in _probe(tmp_path)
    (tmp_path / "calibration.yaml").write_text("factors: []\n", encoding="utf-8")
    assert "BENCH_LOADED" in _probe(tmp_path)
