"""`suanli estimate` as a buyer reads it: the JSON carries what the fit compares (memory.usable_bytes, needed_bytes)
and the table shows the usable row that explains 'does not fit' below the device memory."""

from __future__ import annotations

import json
import subprocess
import sys

from suanli.views.estimates import EstimateJson


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True,
                          env={"COLUMNS": "120", "PATH": ""})


def test_json_has_usable_and_needed() -> None:
    r = _run("estimate", "--model", "qwen2.5-32b", "--task", "qlora", "--gpu", "910b", "--json")
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout)
    m = c["memory"]
    assert m["capacity_bytes"] > m["usable_bytes"] > 0
    assert m["needed_bytes"] == m["per_gpu_bytes"]  # no engine pool in training
    assert m["fits"] is (m["needed_bytes"] <= m["usable_bytes"])
    assert EstimateJson.model_validate(c).memory.usable_bytes == m["usable_bytes"]


def test_table_shows_usable_row() -> None:
    r = _run("estimate", "--model", "qwen2.5-32b", "--task", "qlora", "--gpu", "910b")
    assert r.returncode == 0, r.stderr
    rows = {ln.split()[0]: ln for ln in r.stdout.splitlines() if ln.strip()}
    assert "usable" in rows and "device" in rows and "does not fit" in r.stdout
    # serving with vLLM's pre-allocated pool: needed (without the unused pool) is shown beside usable
    r = _run("estimate", "--model", "qwen2.5-7b", "--gpu", "h100")
    assert "needed" in r.stdout and "usable" in r.stdout


def test_errors_name_the_flag_in_one_line() -> None:
    for args, first in (
        (["plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--budget", "-1"], "error: --budget: "),
        (["plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "abc"], "error: --tokens: "),
        (["estimate", "--model", "qwen2.5-7b", "--gpu", "h100", "--gpus", "x"], "error: --gpus: "),
        (["estimate", "--model", "qwen2.5-72b", "--gpu", "910b", "--kv-dtype", "fp8"], "error: --kv-dtype: "),
        (["estimate", "--model", "qwen2.5-7b", "--gpu", "h100", "--download-gbit", "-1"], "error: --download-gbit: "),
        (["estimate", "--model", "qwen2.5-7b", "--task", "full", "--gpu", "h100", "--inter-node-gbit", "0"],
         "error: --inter-node-gbit: "),
    ):
        r = _run(*args)
        lines = [x for x in r.stderr.splitlines() if x.strip()]
        assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith(first), r.stderr
        assert "budget-cny" not in r.stderr and "Usage" not in r.stderr
