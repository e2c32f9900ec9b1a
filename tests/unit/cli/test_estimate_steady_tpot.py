"""`suanli estimate` (table, --json) and POST /api/estimate show the serving TPOT plans and compare use: the decode
step plus the batch's prefill spread over its output (`speed.steady_tpot_s`, Sarathi-Serve arXiv 2403.02310), beside
the plain decode step (buyer regression 2026-12-01: plan's rtx-4090 b50 fp8 row said TPOT 28.81 ms, estimate only
tpot_s 0.0188)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from suanli.cli.main import app

PLAN = ["plan", "--model", "qwen2.5-7b", "--task", "inference", "--concurrent-users", "50", "--tpot", "0.05",
        "--ttft", "1", "--input", "1000", "--output", "300", "--top", "5", "--json"]


def _json(*args: str) -> dict:  # type: ignore[type-arg]
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def _estimate(p: dict, *extra: str) -> dict:  # type: ignore[type-arg]
    return _json("estimate", "--model", "qwen2.5-7b", "--gpu", p["device"], "--gpus", str(p["tp"]), "--tp",
                 str(p["tp"]), "--batch", str(p["micro_batch"]), "--input", "1000", "--output", "300",
                 "--precision", p["precision"], "--json", *extra)


def test_plan_rows_tpot_is_estimates_tpot_steady_s_at_the_run_batch() -> None:
    plans = _json(*PLAN)["plans"]
    assert plans and plans[0]["device"] == "rtx-4090" and plans[0]["micro_batch"] == 50
    for p in plans:
        s = _estimate(p)["speed"]
        assert p["tpot_s"] == pytest.approx(s["tpot_steady_s"], rel=1e-9), p["device"]
        assert s["tpot_steady_s"] > s["tpot_s"]  # the prompts' prefill on top of the decode step
    # the buyer's row (b50 fp8 on the RTX 4090): decode step 18.8 ms, 28.81 ms with the prompts' prefill
    s = _estimate({**plans[0], "precision": "fp8"})["speed"]
    assert s["tpot_s"] == pytest.approx(0.0188, abs=5e-5) and s["tpot_steady_s"] == pytest.approx(0.02881, abs=5e-5)


def test_estimate_table_prints_it() -> None:
    r = CliRunner().invoke(app, ["estimate", "--model", "qwen2.5-7b", "--gpu", "rtx-4090", "--batch", "50", "--input",
                                 "1000", "--output", "300", "--precision", "fp8"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "tpot_steady_s" in r.output and "0.0288" in r.output
