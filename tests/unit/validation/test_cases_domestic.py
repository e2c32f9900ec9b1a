"""Schema checks of published_cases_domestic.yaml (issue 12 item 4): more out-of-sample speed cases from whole
published tables. Every case is `holdout: true`, names a source of this file, a catalog model and a canonical
device, the flags `suanli estimate` takes and the measured key its group calls for; `suanli validate` runs them all.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import accelerator, model
from suanli.catalog.schema import Source

ROOT = Path(__file__).resolve().parents[3]
VAL_DIR = ROOT / "src" / "suanli" / "data" / "validation"
FILE = "published_cases_domestic.yaml"
PREFIX = "cdom-"
ENGINES = {"hf", "vllm", "sglang", "lmdeploy", "trt-llm", "llama.cpp", "vllm-ascend", "mindie"}


def _sibling() -> ModuleType:
    """The schema constants of test_validation_data.py (pytest runs with --import-mode=importlib)."""
    path = Path(__file__).with_name("test_validation_data.py")
    spec = importlib.util.spec_from_file_location("_validation_schema_cdom", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_S = _sibling()


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    d = yaml.safe_load((VAL_DIR / FILE).read_text(encoding="utf-8"))
    assert isinstance(d, dict) and set(d) == {"sources", "cases"}
    return d


def case_problems(c: dict[str, Any], source_ids: set[str]) -> list[str]:
    """Everything wrong with one case; empty when it is well formed."""
    p: list[str] = []
    keys = set(c)
    required = set(_S.REQUIRED) | {"holdout", "reported", "model"}
    if not required <= keys:
        p.append(f"missing {sorted(required - keys)}")
    if not keys <= required | set(_S.OPTIONAL):
        p.append(f"unknown {sorted(keys - required - set(_S.OPTIONAL))}")
    if c.get("holdout") is not True or "fitted" in c:
        p.append("holdout must be true and nothing fitted")
    if not _S.KEBAB.match(str(c.get("id", ""))) or not str(c.get("id", "")).startswith(PREFIX):
        p.append(f"id must be kebab-case and start with {PREFIX!r}")
    if c.get("source") not in source_ids:
        p.append(f"source {c.get('source')!r} not in this file's sources")
    group = c.get("group")
    if group not in _S.GROUP_KEYS:
        p.append(f"group {group!r} unknown")
    if c.get("task") not in _S.TASKS or c.get("precision") not in _S.PRECISIONS:
        p.append("task/precision not a suanli value")
    if "engine" in c and c["engine"] not in ENGINES:
        p.append(f"engine {c['engine']!r} unknown")
    if "kv_dtype" in c and c["kv_dtype"] not in _S.PRECISIONS:
        p.append("kv_dtype unknown")
    for f in set(_S.INT_FLAGS) & keys:
        v = c[f]
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            p.append(f"{f} must be a non-negative int")
    gpus = c.get("gpus", 0)
    if not isinstance(gpus, int) or gpus < 1 or gpus % (c.get("tp", 1) * c.get("pp", 1)) != 0:
        p.append("gpus must be >= 1 and a multiple of tp x pp")
    training = group in {"training-memory", "training-throughput"}
    if training == (c.get("task") == "inference"):
        p.append("group and task disagree (training vs inference)")
    if c.get("task") in {"lora", "qlora"} and c.get("lora_rank", 0) <= 0:
        p.append("lora needs lora_rank")
    m = c.get("measured")
    if not isinstance(m, dict) or len(m) != 1:
        p.append("measured must hold exactly one metric")
    else:
        if group in _S.GROUP_KEYS and not set(m) <= _S.GROUP_KEYS[group]:
            p.append(f"measured key {sorted(m)} not one of {sorted(_S.GROUP_KEYS[group])}")
        if not all(isinstance(v, int | float) and not isinstance(v, bool) and v > 0 for v in m.values()):
            p.append("measured must be a positive number")
    for f in ("where", "note", "reported"):
        if not isinstance(c.get(f), str) or not c[f].strip():
            p.append(f"{f} must be a non-empty string")
    return p


def test_every_case_is_well_formed(doc: dict[str, Any]) -> None:
    sids = {s["id"] for s in doc["sources"]}
    bad = {c.get("id", "?"): case_problems(c, sids) for c in doc["cases"]}
    assert not {k: v for k, v in bad.items() if v}


def test_checker_catches_bad_cases(doc: dict[str, Any]) -> None:
    sids = {s["id"] for s in doc["sources"]}
    good = dict(doc["cases"][0])
    assert case_problems(good, sids) == []
    for change in ({"holdout": False}, {"fitted": ["x"]}, {"measured": {"memory_bytes": 1}}, {"source": "val-x"},
                   {"gpus": 3, "tp": 2}, {"id": "no-prefix"}, {"task": "inference"}, {"reported": ""}):
        assert case_problems({**good, **change}, sids), change


def test_sources_valid_prefixed_and_used(doc: dict[str, Any]) -> None:
    ids = [Source.model_validate(s).id for s in doc["sources"]]
    assert len(ids) == len(set(ids)) and all(i.startswith(PREFIX) for i in ids)
    assert not set(ids) & set(packaged_catalog().sources)
    assert {c["source"] for c in doc["cases"]} == set(ids)
    for s in doc["sources"]:  # the selection rule: each note says which tables were taken whole
        assert "whole" in s["note"], s["id"]


def test_devices_and_models_resolve(doc: dict[str, Any]) -> None:
    cat = packaged_catalog()
    for c in doc["cases"]:
        assert accelerator(cat, c["device"]).id == c["device"], f"{c['id']}: use the canonical id"
        model(cat, c["model"])


def test_coverage(doc: dict[str, Any]) -> None:
    groups = [c["group"] for c in doc["cases"]]
    assert groups.count("training-throughput") >= 25
    assert len({c["source"] for c in doc["cases"]}) >= 2  # independent sources
    assert sum(c["device"].startswith("ascend-910b") for c in doc["cases"]) >= 25
    assert all(not c["device"].startswith(("a1", "h1", "h2", "l", "rtx")) for c in doc["cases"])  # domestic devices only


def test_sources_not_used_elsewhere(doc: dict[str, Any]) -> None:
    """A source already in the validation set (in-sample or held out) must not be reused (selection rule)."""
    urls = {s["url"] for s in doc["sources"]}
    for path in VAL_DIR.glob("*.yaml"):
        if path.name in {FILE, "error_bands.yaml"}:
            continue
        other = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        assert not urls & {s.get("url") for s in other.get("sources", [])}, path.name


def test_layout_unstated_exactly_where_the_source_states_none(doc: dict[str, Any]) -> None:
    """The MindSpeed-LLM table states no parallel layout, batch or recomputation: every row is `layout: unstated`
    in MindSpeed-LLM (scored on the planner's fastest layout); FlagPerf's READMEs state theirs: none is."""
    for c in doc["cases"]:
        if c["source"] == "cdom-mindspeed-llm-readme-2024":
            assert c.get("layout") == "unstated" and c.get("framework") == "mindspeed", c["id"]
            assert not set(c) & set(_S.LAYOUT_DIMS), c["id"]
        else:
            assert "layout" not in c and "framework" not in c, c["id"]


def test_unstated_layouts_are_the_planners_fastest(doc: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The validator scores a `layout: unstated` case on `fastest_layout` (exactly its cards, its framework, prices
    aside) and prints it; a case no layout fits is skipped with the reason, never scored on a layout that cannot run."""
    from suanli.plan.search import fastest_layout
    from suanli.validate.report import planner_layout, run_validation

    cat = packaged_catalog()
    c = next(x for x in doc["cases"] if x.get("layout") == "unstated" and x["gpus"] == 8)
    layout, req, why = planner_layout(cat, c)
    assert layout is not None and why == ""
    assert layout.gpus == c["gpus"] == layout.tp * layout.pp * layout.dp and layout.framework == "mindspeed"
    assert layout.memory_needed_bytes <= layout.memory_usable_bytes
    assert req.objective == "fastest" and req.gpus == c["gpus"] and req.seq == c["seq"] and req.global_batch == 64
    assert fastest_layout(cat, model(cat, c["model"]), req, c["device"])[0] == layout
    d = Path(__file__).parent  # a directory of one case that fits on no layout of 1 card: skipped with the reason
    tiny = {**c, "id": "cdom-x-70b-1-card", "model": "meta-llama/Llama-2-70b-hf", "gpus": 1}
    import suanli.validate.report as report

    monkeypatch.setattr(report, "load_cases", lambda directory=d: [tiny, c])
    results, skipped = run_validation(cat, d)
    assert [r.id for r in results] == [c["id"]] and results[0].layout and results[0].layout.startswith("planner tp")
    assert "planner default" in results[0].layout
    assert len(skipped) == 1 and skipped[0].startswith("cdom-x-70b-1-card: layout unstated: no layout fits 1×")
    assert "GiB" in skipped[0]


def test_validator_runs_every_case(doc: dict[str, Any], tmp_path: Path) -> None:
    from suanli.validate.report import run_validation

    shutil.copy(VAL_DIR / FILE, tmp_path / FILE)
    results, skipped = run_validation(packaged_catalog(), tmp_path)
    assert not skipped, skipped
    assert {r.id for r in results} == {c["id"] for c in doc["cases"]}
    assert all(r.sample == "out" and r.default is not None for r in results)
