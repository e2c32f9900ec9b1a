"""Code review finding 1: one model of the world. The calibration file `suanli estimate` applies is applied by
`plan`, `compare` and the API alike (views.estimates.calibrated), with estimate's precedence, and every answer that
used it says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog, EfficiencyFactor
from suanli.cli.main import app
from suanli.estimate.efficiency import efficiency
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.views.estimates import calibrated, calibration_sha256

FACTOR = EfficiencyFactor(id="c", metric="decode_bandwidth", device="h100-sxm", value=0.40, source="measured:t")
PLAN = ["plan", "--model", "qwen2.5-7b", "--task", "inference", "--tokens", "1e8", "--gpu", "h100", "--gpus", "1",
        "--region", "any", "--offer-kinds", "all", "--json"]
ESTIMATE = ["estimate", "--model", "qwen2.5-7b", "--gpu", "h100", "--batch", "256", "--engine", "vllm", "--precision",
            "fp8", "--json"]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from suanli.bench.feedback import save_calibration

    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))
    monkeypatch.setenv("SUANLI_TODAY", "2026-12-01")
    save_calibration([FACTOR])
    return tmp_path


def _json(*args: str) -> object:
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_plan_and_compare_give_what_estimate_gives(home: Path) -> None:
    est = _json(*ESTIMATE)["speed"]  # type: ignore[index]
    assert est["efficiency"][1]["source"] == "measured:t"  # the file is applied by estimate
    plan = _json(*PLAN)
    best = plan["plans"][0]  # type: ignore[index]
    assert (best["device"], best["micro_batch"], best["precision"], best["engine"]) == ("h100-sxm", 256, "fp8", "vllm")
    assert best["tokens_per_s"] == pytest.approx(est["output_tokens_per_s"], rel=1e-9)  # was 14,190 vs 10,912
    assert best["tpot_s"] == pytest.approx(est["tpot_s"], rel=1e-9)
    said = plan["assumptions_i18n"][-1]  # type: ignore[index]
    assert said["id"] == "plan.assume.calibrated" and "measured:t" in plan["assumptions"][-1]  # type: ignore[index]
    rows = _json("compare", "--model", "qwen2.5-7b", "--gpu", "h100", "--gpu", "h20", "--task", "inference",
                 "--batch", "256", "--precision", "fp8", "--region", "any", "--offer-kinds", "all", "--json")
    assert rows[0]["tokens_per_s"] == pytest.approx(est["output_tokens_per_s"], rel=1e-9)  # type: ignore[index]
    assert "measured:t" in rows[0]["calibration"] and rows[1]["calibration"] is None  # type: ignore[index]
    r = CliRunner().invoke(app, ["--lang", "zh", "compare", "--model", "qwen2.5-7b", "--gpu", "h100", "--gpu", "h20",
                                 "--task", "inference", "--batch", "256", "--precision", "fp8", "--region", "any",
                                 "--offer-kinds", "all"], env={"COLUMNS": "200"})
    assert r.exit_code == 0 and "效率按你的实测校准" in r.output, r.output


def test_calibrated_catalog_ranks_factors_as_estimate_overrides(cat: Catalog, tmp_path: Path) -> None:
    """The same factor wins as a catalog calibration and as estimate's overrides; a more specific catalog row
    still beats it; the catalog's own bandwidth share stays reachable (calibrated=False)."""
    from suanli.bench.feedback import save_calibration

    path = tmp_path / "calibration.yaml"
    generic = EfficiencyFactor(id="g", metric="matmul", device="h100-sxm", value=0.5, source="measured:g")
    save_calibration([FACTOR, generic], path)
    cal = calibrated(cat, path)
    assert cal.efficiency == cat.efficiency and cal.calibration == (FACTOR, generic)
    acc = lookup.accelerator(cat, "h100")
    for metric in ("decode_bandwidth", "matmul", "decode_step_overhead_s"):
        for prec, eng in (("fp8", "vllm"), ("bf16", "hf"), ("*", "*")):
            a = efficiency(cal, acc, metric, prec, eng)
            b = efficiency(cat, acc, metric, prec, eng, (FACTOR, generic))
            assert a == b
    assert efficiency(cal, acc, "decode_bandwidth", "fp8", "vllm", calibrated=False) == \
        efficiency(cat, acc, "decode_bandwidth", "fp8", "vllm")
    m = lookup.model(cat, "qwen2.5-7b")
    w = make_workload(task="inference", batch=256, engine="vllm", precision="fp8")
    assert estimate(cal, m, acc, w).contract() == estimate(cat, m, acc, w, overrides=(FACTOR, generic)).contract()
    assert calibrated(cat, tmp_path / "none.yaml") is cat and calibration_sha256(tmp_path / "none.yaml") is None


def test_api_plan_applies_it_and_its_cache_sees_a_new_file(home: Path) -> None:
    pytest.importorskip("fastapi", reason="the service extra (make test installs it)")
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app
    from suanli.bench.feedback import save_calibration

    client = TestClient(create_app(Settings(database_url=f"sqlite:///{home / 's.db'}")))
    body = {"model": "qwen2.5-7b", "task": "inference", "tokens": 1e8, "devices": ["h100"], "gpus": 1, "region": "any",
            "offer_kinds": ["listing", "index", "reference"]}
    est = _json(*ESTIMATE)["speed"]  # type: ignore[index]
    first = client.post("/api/plan", json=body).json()
    assert first["plans"][0]["tokens_per_s"] == pytest.approx(est["output_tokens_per_s"], rel=1e-9)
    assert first["assumptions_i18n"][-1]["id"] == "plan.assume.calibrated"
    save_calibration([FACTOR.model_copy(update={"value": 0.3})])  # a new calibration: not the cached answer
    second = client.post("/api/plan", json=body).json()
    assert second["plans"][0]["tokens_per_s"] < first["plans"][0]["tokens_per_s"]
    rows = client.post("/api/compare", json={"model": "qwen2.5-7b", "devices": ["h100", "h20"], "batch": 256,
                                             "precision": "fp8", "region": "any",
                                             "offer_kinds": ["listing", "index", "reference"]}).json()
    assert "measured:t" in rows[0]["calibration"] and rows[0]["calibration_i18n"]["id"] == "plan.assume.calibrated"
