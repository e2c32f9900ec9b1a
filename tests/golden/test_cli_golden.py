"""Golden JSON for CLI outputs. Regenerate after an intended change with SUANLI_UPDATE_GOLDEN=1."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from suanli.cli.main import app

HERE = Path(__file__).resolve().parent / "data"
CASES = {
    "gpu-h100": ["gpu", "h100-sxm", "--json"],
    "gpu-910b": ["gpu", "910b", "--json"],
    "model-qwen2.5-7b": ["model", "qwen2.5-7b", "--json"],
    "model-deepseek-v3": ["model", "deepseek-v3", "--json"],
    "estimate-seed-7b": ["estimate", "--model", "llama-2-7b", "--task", "inference", "--gpu", "rtx-4090", "--method", "seed", "--json"],
    "estimate-default-7b": ["estimate", "--model", "llama-2-7b", "--task", "inference", "--gpu", "rtx-4090", "--json"],
    "estimate-full-8xh100": ["estimate", "--model", "llama-2-7b", "--task", "full", "--gpu", "h100", "--gpus", "8", "--zero", "3", "--recompute", "selective", "--tokens", "1e9", "--json"],
    "plan-lora-7b": ["plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--json"],
}
VOLATILE = {"search_seconds", "error_band"}


def _scrub(obj):  # type: ignore[no-untyped-def]
    if isinstance(obj, dict):
        return {k: _scrub(v) for k, v in obj.items() if k not in VOLATILE}
    if isinstance(obj, list):
        return [_scrub(v) for v in obj]
    if isinstance(obj, float):
        return float(f"{obj:.6g}")
    return obj


@pytest.fixture(autouse=True)
def _fixed_date(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUANLI_TODAY", "2026-11-30")  # price-freshness warnings name ages: fix the date


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str) -> None:
    r = CliRunner().invoke(app, CASES[name])
    assert r.exit_code == 0, r.output
    got = _scrub(json.loads(r.stdout))
    path = HERE / f"{name}.json"
    if os.environ.get("SUANLI_UPDATE_GOLDEN") or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(got, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
        if not os.environ.get("SUANLI_UPDATE_GOLDEN"):
            pytest.fail(f"golden file {path.name} was missing and has been written; rerun")
    assert got == json.loads(path.read_text(encoding="utf-8"))
