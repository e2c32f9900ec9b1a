"""Bad input is one line on stderr with exit status 2, never a traceback; the SkyPilot export is valid YAML."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

BAD = [
    (["gpu", "h10"], "Did you mean"),
    (["plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--budget", "-5"], "budget"),
    (["plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--objective", "cheap"], "objective"),
    (["estimate", "--model", "nosuchmodel", "--gpu", "h100"], "model"),
    (["estimate", "--model", "llama-2-7b", "--gpu", "h100", "--precision", "fp64"], "precision"),
    (["estimate", "--model", "llama-2-7b", "--gpu", "h100", "--gpus", "6", "--tp", "4"], "tp"),
    (["gpus", "--market", "mars"], "market"),
    (["model", "/nonexistent/config.json"], "does not exist"),
]


@pytest.mark.parametrize(("args", "needle"), BAD)
def test_bad_input_is_one_line(args: list[str], needle: str) -> None:
    r = subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert lines and lines[0].startswith("error:") and needle in r.stderr


def test_skypilot_export(tmp_path: Path) -> None:
    out = tmp_path / "task.yaml"
    r = subprocess.run(
        [sys.executable, "-m", "suanli.cli.main", "plan", "--model", "llama-2-70b", "--task", "full",
         "--tokens", "1e9", "--objective", "fastest", "--region", "any", "--offer-kinds", "all",
         "--skypilot", str(out), "--json"],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr
    task = yaml.safe_load(out.read_text(encoding="utf-8"))
    acc, _, count = task["resources"]["accelerators"].partition(":")
    assert acc and int(count) >= 1 and task["num_nodes"] >= 1
    assert task["envs"]["MODEL"] == "meta-llama/Llama-2-70b-hf"
    plan = json.loads(r.stdout)["plans"][0]  # the whole layout travels: framework, recomputation, accumulation
    env = task["envs"]
    assert env["FRAMEWORK"] == plan["framework"] and env["RECOMPUTE"] == (plan["recompute"] or "none")
    assert (env["TP"], env["PP"], env["DP"], env["MICRO_BATCH"]) == (plan["tp"], plan["pp"], plan["dp"], plan["micro_batch"])
    assert env["GRAD_ACCUM"] == (plan["grad_accum"] or 1) and env["SEQ"] == 2048


def test_plan_exits_1_when_nothing_qualifies() -> None:
    """Issue 10 item 7: no qualifying plan is exit 1 with what to relax on stderr; --json still prints the object."""
    args = [sys.executable, "-m", "suanli.cli.main", "plan", "--model", "qwen2.5-7b", "--tokens", "1e8", "--budget", "1"]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 1 and "raise --budget" in r.stdout and "Traceback" not in r.stderr
    assert r.stderr == "error: no plan satisfies the constraints; see what to relax above\n"  # one line (review 2)
    j = subprocess.run([*args, "--json"], capture_output=True, text=True)
    assert j.returncode == 1 and json.loads(j.stdout)["plans"] == [] and json.loads(j.stdout)["relax"]
