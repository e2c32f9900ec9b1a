"""One library under both interfaces (issue 13, item 1): with a calibration file present, `suanli estimate
--json` and POST /api/estimate return the same numbers, and those differ from the uncalibrated ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from suanli.api import Settings, create_app

ARGS = {"model": "qwen2.5-7b", "gpu": "rtx-4090", "task": "inference", "batch": 4}


def test_cli_and_api_apply_the_same_calibration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from suanli.bench.feedback import save_calibration
    from suanli.catalog.schema import EfficiencyFactor

    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))
    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 's.db'}")))
    before = client.post("/api/estimate", json=ARGS).json()
    save_calibration([EfficiencyFactor(id="cal-rtx-4090-decode", metric="decode_bandwidth", device="rtx-4090",
                                       value=0.31, source="assumed", note="test calibration")])
    api = client.post("/api/estimate", json=ARGS).json()
    r = subprocess.run([sys.executable, "-m", "suanli.cli.main", "estimate", "--model", ARGS["model"], "--gpu",
                        ARGS["gpu"], "--task", "inference", "--batch", "4", "--json"], capture_output=True, text=True,
                       env={**os.environ, "SUANLI_HOME": str(tmp_path)}, timeout=120)
    assert r.returncode == 0, r.stderr
    cli = json.loads(r.stdout)
    assert api["speed"]["decode_tokens_per_s"] != before["speed"]["decode_tokens_per_s"]  # the file is applied
    assert api["speed"] == cli["speed"] and api["memory"] == cli["memory"]


def test_plan_sentences_in_the_request_language(tmp_path: Path) -> None:
    """Issue 13: the planner's reasons, why-not and assumptions come back in the language asked for."""
    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 's.db'}")))
    body = {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8}
    zh = client.post("/api/plan?lang=zh", json=body).json()
    en = client.post("/api/plan", json=body, headers={"Accept-Language": "en-US"}).json()
    assert zh["plans"] and "训练" in zh["plans"][0]["reason"] and "trains" in en["plans"][0]["reason"]
    assert zh["plans"][0]["reason_i18n"] == en["plans"][0]["reason_i18n"]
    assert any("框架" in a for a in zh["assumptions"])
