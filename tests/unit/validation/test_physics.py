"""No validation case may measure faster than physics allows under its own encoding (validate.physics): the
estimator's bytes and FLOPs at 100 % of the catalog's peak memory bandwidth and dense compute, no overhead. A case that
beats that bound was encoded wrong (commit 4e3fe3d: two TensorRT-LLM L40S rows with a 16-bit KV cache whose decode
bytes alone take longer than the measured run), or the catalog's peak is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_run import run_cli

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.catalog.ranks import rank_view
from suanli.estimate.diffusion import diffusion_speed
from suanli.estimate.speed import inference_speed, training_speed
from suanli.validate.physics import SPEED_GROUPS, PhysicsCheck, beats_physics, physics_checks, roof_values
from suanli.validate.report import (
    _MEASURED_KEY,
    TIME_METRICS,
    VALIDATION_DIR,
    _model_for,
    _planner_case,
    case_workload,
    load_cases,
    planner_layout,
    speed_values,
)

# Cases allowed to beat their bound: only where the source states something the encoding cannot express (a case
# id -> why, citing the source's words). None today: every speed case runs within its bound.
ALLOWED: dict[str, str] = {}

# the 2026-11 TensorRT-LLM v0.9.0 L40S FP8 table, batch 120, 128 in / 2048 out (published_cases_2026_11.yaml)
L40S_ROW = "c2611-trtllm090-l40s-mistral-7b-fp8-b120-tp1-in128-out2048"


@pytest.fixture(scope="module")
def checked() -> tuple[list[PhysicsCheck], list[str]]:
    return physics_checks(packaged_catalog(), load_cases())


def test_no_case_beats_physics(checked: tuple[list[PhysicsCheck], list[str]]) -> None:
    checks, _ = checked
    beats = [f"{c.id} ({c.file}): {c.metric} measured {c.measured:.4g}, bound {c.bound:.4g} ({100 * c.margin:+.1f} %)"
             for c in beats_physics(checks) if c.id not in ALLOWED]
    assert beats == [], "faster than physics under its encoding (see validate.physics):\n" + "\n".join(beats)
    stale = sorted(set(ALLOWED) - {c.id for c in beats_physics(checks)})
    assert stale == [], f"allowed but within the bound now: drop them from ALLOWED: {stale}"


def test_every_speed_case_and_metric_is_checked(checked: tuple[list[PhysicsCheck], list[str]]) -> None:
    checks, skipped = checked
    assert skipped == []
    stated = {(c["id"], k) for c in load_cases() if c["group"] in SPEED_GROUPS
              for k in _MEASURED_KEY[c["group"]] if k in c["measured"]}
    assert stated and {(c.id, c.metric) for c in checks} == stated


def test_the_bound_is_never_slower_than_the_estimate() -> None:
    """The roof only removes costs: on every speed case the bound is at least the estimator's own speed (a rate no
    lower, a time no higher), through the same kernels."""
    cat = packaged_catalog()
    slower: list[str] = []
    for case in load_cases():
        if case["group"] not in SPEED_GROUPS:
            continue
        planned = None
        if _planner_case(case):
            layout, req, _ = planner_layout(cat, case)
            assert layout is not None
            planned = (layout, req)
        m = _model_for(cat, case, VALIDATION_DIR)
        w = case_workload(case, "default", planned)
        acc = rank_view(lookup.accelerator(cat, case["device"]))
        if m.kind == "diffusion":
            est = speed_values(case, w, None, None, diffusion_speed(cat, m, acc, w))
        elif w.training:
            est = speed_values(case, w, None, training_speed(cat, m, acc, w), None)
        else:
            est = speed_values(case, w, inference_speed(cat, m, acc, w), None, None)
        roof = roof_values(cat, case, planned=planned)
        for k, v in est.items():
            if k in TIME_METRICS and roof[k] > v * (1 + 1e-9):
                slower.append(f"{case['id']} {k}: roof {roof[k]:.4g} s > estimate {v:.4g} s")
            if k not in TIME_METRICS and roof[k] < v * (1 - 1e-9):
                slower.append(f"{case['id']} {k}: roof {roof[k]:.4g} < estimate {v:.4g}")
    assert slower == []


def _l40s_row(**update: Any) -> dict[str, Any]:
    case = next(c for c in load_cases() if c["id"] == L40S_ROW)
    return {k: v for k, v in {**case, **update}.items() if v is not None}


def test_a_16bit_kv_cache_on_the_l40s_row_beats_physics() -> None:
    """Commit 4e3fe3d's finding, reproduced: with a 16-bit KV cache the row's 2,047 decode steps read 51.9 TB, 60.1 s
    at the L40S's 864 GB/s, against a 56.0 s run (120 x 2,048 tokens at 4,387 tok/s); with its FP8 cache it fits."""
    cat = packaged_catalog()
    fp16 = _l40s_row(kv_dtype=None)
    assert "kv_dtype" not in fp16 and _l40s_row()["kv_dtype"] == "fp8"
    (c,), _ = physics_checks(cat, [fp16])
    run_s_at_bound = 120 * 2048 / c.bound
    assert c.beats and 60.1 <= run_s_at_bound < 61.0 and 0.07 < c.margin < 0.09
    (ok,), _ = physics_checks(cat, [_l40s_row()])
    assert not ok.beats and ok.measured == c.measured


def test_validate_physics_lists_the_cases_that_beat_it(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`suanli validate --physics`: the rows beyond their bound with the margin, in each language; else one line
    naming the closest case."""
    monkeypatch.setattr("suanli.validate.report.load_cases", lambda: [_l40s_row(kv_dtype=None)])
    code, out, _ = run_cli(["validate", "--physics"], monkeypatch, capsys, tmp_path)
    assert code == 0 and "Cases faster than physics" in out and L40S_ROW in out and "+7.8" in out
    code, out, _ = run_cli(["--lang", "zh", "validate", "--physics"], monkeypatch, capsys, tmp_path)
    assert code == 0 and "快于物理上限的案例" in out and "超出 %" in out and "+7.8" in out
    monkeypatch.setattr("suanli.validate.report.load_cases", lambda: [_l40s_row()])
    code, out, _ = run_cli(["validate", "--physics"], monkeypatch, capsys, tmp_path)
    assert code == 0 and "none beats it" in out and L40S_ROW in out and "Cases faster" not in out
    code, _, err = run_cli(["validate", "--physics", "--group", "inference-memory"], monkeypatch, capsys, tmp_path)
    assert code == 2 and "'inference-memory' has no measured speed to bound" in err and "decode-speed" in err
