"""Issue 12 (decode-speed, Ascend): vLLM-Ascend runs decode as a captured ACL graph by default from 0.9.0rc1 on the V1
engine (frameworks.yaml vllm-ascend-graph-mode: PRs #836 and #1083); earlier releases (v0.7.3, V0) dispatch every
operator from the host. The two per-step overheads are fitted to the maintainers' serving benchmark, vllm-ascend issue
#904 (efficiency.yaml step-overhead-davinci-vllm, step-overhead-davinci-vllm-eager; fit set eng-vllm-ascend-* of
published_engines.yaml, scripts/fit_engine_factors.py). A workload selects the eager one by its engine_version."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.estimate import speed
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.validate.report import load_cases


def _w(version: str | None, engine: str = "vllm-ascend"):  # type: ignore[no-untyped-def]
    return make_workload(task="inference", precision="bf16", batch=8, input=32, output=128, engine=engine,
                         engine_version=version)


def _row(cat, factor_id: str):  # type: ignore[no-untyped-def]
    return next(f for f in cat.efficiency if f.id == factor_id)


def test_vllm_ascend_gates_graph_mode_on_a_sourced_release(cat) -> None:  # type: ignore[no-untyped-def]
    row = next(e for e in cat.engines if e.id == "vllm-ascend")
    assert row.graph_mode_from == "0.9.0rc1" and row.graph_mode_source == "vllm-ascend-graph-mode"
    assert "vllm-ascend-graph-mode" in cat.sources and "vllm-ascend-issue-904" in cat.sources
    assert all(e.graph_mode_from is None for e in cat.engines if e.id != "vllm-ascend")  # MindIE: no such gate


@pytest.mark.parametrize("version,engine,expected", [
    ("0.7.3", "vllm-ascend", True), ("0.8.5rc1", "vllm-ascend", True), ("0.9.0rc1", "vllm-ascend", False),
    ("0.9.0rc1.dev0608", "vllm-ascend", False), ("0.11.0", "vllm-ascend", False), (None, "vllm-ascend", False),
    ("0.7.3", "mindie", False), ("0.4.2", "vllm", False)])
def test_which_runs_are_eager(cat, version, engine, expected) -> None:  # type: ignore[no-untyped-def]
    assert speed.runs_eager(cat, _w(version, engine)) is expected


def test_the_eager_release_pays_the_eager_overhead(cat) -> None:  # type: ignore[no-untyped-def]
    acc = lookup.accelerator(cat, "ascend-910b")
    m = lookup.model(cat, "Qwen/Qwen2.5-7B-Instruct")
    graph, eager = _row(cat, "step-overhead-davinci-vllm"), _row(cat, "step-overhead-davinci-vllm-eager")
    assert graph.source == eager.source == "vllm-ascend-issue-904" and eager.value > graph.value > 0
    cur, old = (estimate(cat, m, acc, _w(v)).inference for v in (None, "0.7.3"))
    assert cur is not None and old is not None
    used = {v: {e.factor_id for e in i.efficiencies} for v, i in (("cur", cur), ("old", old))}
    assert graph.id in used["cur"] and eager.id not in used["cur"]
    assert eager.id in used["old"] and graph.id not in used["old"]
    # the release changes the overhead only: the decode step differs by exactly the two rows' difference
    assert old.tpot_s - cur.tpot_s == pytest.approx(eager.value - graph.value, rel=1e-9)


def test_fit_sets_are_the_issue_904_rows_and_the_776_case_is_held_out() -> None:
    cases = {c["id"]: c for c in load_cases()}
    fit = {cid: c for cid, c in cases.items() if c.get("source") == "eng-vllm-ascend-issue-904"}
    assert sorted(f for c in fit.values() for f in c["fitted"]) == (
        ["step-overhead-davinci-vllm"] * 3 + ["step-overhead-davinci-vllm-eager"])
    assert all(not c.get("holdout") for c in fit.values())
    held = cases["cai-vllm-ascend-v073-910b-qwen2.5-7b-bf16-b8-in32-out128"]
    assert held["holdout"] is True and "fitted" not in held and held["engine_version"] == "0.7.3"
