"""A speed of 0 tokens/s reached the one hours rule (`estimate.job_hours`) as a plain float after 75b0457 (the
estimate core off numpy): `tokens / 0.0` raised ZeroDivisionError where numpy's scalars gave inf. A valid input
makes it: a rented network of 5e-324 Gbit/s (`--inter-node-gbit`, within its bound `> 0`) or an imported offer's,
whose data-parallel step overflows to inf seconds. `suanli estimate --tokens`, `suanli compare` and POST /api/estimate
ended in a traceback / 500; the hours are now numpy's inf again (`xp.divide`): the CLI says 'inf hours', the API null
(its non-finite rule). Since task H (2026-12-02) such a network is refused in one line naming the field: the floor
is 0.001 Gbit/s (`catalog.schema.MIN_INTER_NODE_GBIT_PER_S`); `job_hours` keeps numpy's inf for a speed of 0."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from cli_run import run_cli
from suanli.api import Settings, create_app
from suanli.estimate.estimate import job_hours

JOB = ("--model", "llama-2-7b", "--gpu", "h100", "--gpus", "16", "--task", "lora", "--tokens", "1e6")


def test_no_speed_takes_inf_hours() -> None:
    assert job_hours(1e6, 0.0) == math.inf and math.isnan(job_hours(0.0, 0.0))
    assert job_hours(3600.0, 1.0) == 1.0


def test_a_network_past_float_s_range_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(("--lang", "en", "estimate", *JOB, "--inter-node-gbit", "5e-324"), monkeypatch, capsys,
                             tmp_path)
    assert code != 0 and "Traceback" not in err, (code, err)
    line = err.strip()
    assert "\n" not in line and line.startswith("error: --inter-node-gbit: must be a number of Gbit/s per node from "
                                                 "0.001"), line
    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path}/s.db")))
    r = client.post("/api/estimate", json={"model": "llama-2-7b", "gpu": "h100", "gpus": 16, "task": "lora",
                                           "tokens": 1e6, "inter_node_gbit_per_s": 5e-324})
    assert r.status_code == 422 and r.json()["field"] == "inter_node_gbit_per_s", r.text
    assert r.json()["error_i18n"]["id"] == "err.inter_node_gbit", r.text
