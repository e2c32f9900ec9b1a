"""Schema checks of the held-out validation data: published_holdout.yaml (issue 3, item 6b).

The held-out cases are published measurements that no efficiency factor was fitted to. Each names a source
that no other validation file or the efficiency table uses, a model that resolves in the catalog, a canonical
accelerator id, the flags `suanli estimate` takes, the measured key its group calls for, and `holdout: true`.
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
CATALOG_DIR = ROOT / "src" / "suanli" / "data" / "catalog"
HOLDOUT = "published_holdout.yaml"


def _sibling() -> ModuleType:
    """The schema constants of test_validation_data.py (pytest runs with --import-mode=importlib)."""
    path = Path(__file__).with_name("test_validation_data.py")
    spec = importlib.util.spec_from_file_location("_validation_schema", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_S = _sibling()
GROUP_KEYS: dict[str, set[str]] = {g: set(k) for g, k in _S.GROUP_KEYS.items()}
MEASURED_KEYS: set[str] = set(_S.MEASURED_KEYS)
REQUIRED: set[str] = set(_S.REQUIRED) | {"holdout"}
OPTIONAL: set[str] = set(_S.OPTIONAL)
INT_FLAGS: set[str] = set(_S.INT_FLAGS)
TASKS: set[str] = set(_S.TASKS)
PRECISIONS: set[str] = set(_S.PRECISIONS)
ENGINES: set[str] = set(_S.ENGINES)
KEBAB = _S.KEBAB


def _load(path: Path) -> dict[str, Any]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(doc, dict), path.name
    return doc


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    d = _load(VAL_DIR / HOLDOUT)
    assert set(d) == {"sources", "cases"}
    return d


def case_problems(c: dict[str, Any], source_ids: set[str]) -> list[str]:
    """Everything wrong with one held-out case; empty when it is well formed."""
    p: list[str] = []
    keys = set(c)
    if not REQUIRED <= keys:
        p.append(f"missing {sorted(REQUIRED - keys)}")
    if not keys <= REQUIRED | OPTIONAL:
        p.append(f"unknown {sorted(keys - REQUIRED - OPTIONAL)}")
    if c.get("holdout") is not True:
        p.append("holdout must be true")
    if not KEBAB.match(str(c.get("id", ""))) or not str(c.get("id", "")).startswith("hold-"):
        p.append("id must be kebab-case and start with 'hold-'")
    if c.get("source") not in source_ids:
        p.append(f"source {c.get('source')!r} not in this file's sources")
    if "model" not in c or "config" in c:
        p.append("held-out cases name a catalog model (no config files)")
    group = c.get("group")
    if group not in GROUP_KEYS:
        p.append(f"group {group!r} unknown")
    if c.get("task") not in TASKS or c.get("precision") not in PRECISIONS:
        p.append("task/precision not a suanli value")
    if "engine" in c and c["engine"] not in ENGINES:
        p.append(f"engine {c['engine']!r} unknown")
    if "kv_dtype" in c and c["kv_dtype"] not in PRECISIONS:
        p.append("kv_dtype unknown")
    for f in INT_FLAGS & keys:
        v = c[f]
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            p.append(f"{f} must be a non-negative int")
    gpus = c.get("gpus", 0)
    if isinstance(gpus, int) and gpus >= 1:
        if gpus % (c.get("tp", 1) * c.get("pp", 1)) != 0:
            p.append("gpus must be a multiple of tp x pp")
    else:
        p.append("gpus must be >= 1")
    if group in {"training-memory", "training-throughput"}:
        if c.get("task") == "inference":
            p.append("training group with an inference task")
    elif c.get("task") != "inference":
        p.append("inference group with a training task")
    if c.get("task") in {"lora", "qlora"} and c.get("lora_rank", 0) <= 0:
        p.append("lora needs lora_rank")
    m = c.get("measured")
    if not isinstance(m, dict) or not m:
        p.append("measured must be a non-empty mapping")
    else:
        if not set(m) <= MEASURED_KEYS:
            p.append(f"measured keys {sorted(set(m) - MEASURED_KEYS)} unknown")
        if group in GROUP_KEYS and not set(m) & GROUP_KEYS[group]:
            p.append(f"measured has none of {sorted(GROUP_KEYS[group])} for {group}")
        for k, v in m.items():
            if not isinstance(v, int | float) or isinstance(v, bool) or v <= 0:
                p.append(f"measured.{k} must be a positive number")
        if "mfu" in m and not 0 < m["mfu"] < 1:
            p.append("mfu must be in (0, 1)")
    for f in ("where", "note", "reported"):
        if not isinstance(c.get(f), str) or not c[f].strip():
            p.append(f"{f} must be a non-empty string")
    return p


def test_every_case_is_well_formed(doc: dict[str, Any]) -> None:
    sids = {s["id"] for s in doc["sources"]}
    bad = {c.get("id", "?"): case_problems(c, sids) for c in doc["cases"]}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, bad


def test_checker_catches_bad_cases(doc: dict[str, Any]) -> None:
    """case_problems can fail: each corruption of a good case is reported."""
    sids = {s["id"] for s in doc["sources"]}
    good = dict(doc["cases"][0])
    assert case_problems(good, sids) == []
    corruptions: list[dict[str, Any]] = [
        {"holdout": False},
        {"measured": {"memory_bytes": 1}},  # wrong key for a speed group
        {"source": "val-qwen25-speed"},  # a source not in this file
        {"gpus": 3, "tp": 2},
        {"id": "qwen1-no-prefix"},
    ]
    for change in corruptions:
        assert case_problems({**good, **change}, sids), change
    no_flag = {k: v for k, v in good.items() if k != "holdout"}
    assert case_problems(no_flag, sids)


def test_sources_valid_and_prefixed(doc: dict[str, Any]) -> None:
    ids = [Source.model_validate(s).id for s in doc["sources"]]
    assert len(ids) == len(set(ids))
    assert all(i.startswith("hold-") for i in ids), ids
    assert not set(ids) & set(packaged_catalog().sources), "collides with a catalog source id"
    used = {c["source"] for c in doc["cases"]}
    assert used == set(ids), f"unused sources {set(ids) - used}"


def _other_sources() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted(VAL_DIR.glob("*.yaml")):
        if path.name in (HOLDOUT, "error_bands.yaml"):
            continue
        out += _load(path).get("sources", []) or []
    out += _load(CATALOG_DIR / "efficiency.yaml").get("sources", []) or []
    return out


def test_sources_not_used_elsewhere(doc: dict[str, Any]) -> None:
    """Held out means: no other validation file and no efficiency factor cites the same document."""
    others = _other_sources()
    other_ids = {s["id"] for s in others}
    other_urls = {str(s.get("url", "")).rstrip("/").lower() for s in others if s.get("url")}
    for s in doc["sources"]:
        assert s["id"] not in other_ids, s["id"]
        assert str(s["url"]).rstrip("/").lower() not in other_urls, s["url"]


def test_ids_unique_across_validation_files(doc: dict[str, Any]) -> None:
    ids = [c["id"] for path in sorted(VAL_DIR.glob("*.yaml")) for c in (_load(path).get("cases") or [])]
    dup = {i for i in ids if ids.count(i) > 1}
    assert not dup, dup


def test_devices_canonical(doc: dict[str, Any]) -> None:
    cat = packaged_catalog()
    for c in doc["cases"]:
        assert accelerator(cat, c["device"]).id == c["device"], f"{c['id']}: use the canonical id"


def test_models_resolve(doc: dict[str, Any]) -> None:
    cat = packaged_catalog()
    for c in doc["cases"]:
        model(cat, c["model"])  # raises NotFoundError naming the model


def test_coverage(doc: dict[str, Any]) -> None:
    cases = doc["cases"]
    assert len(cases) >= 20
    groups = {c["group"] for c in cases}
    assert {"decode-speed", "prefill-speed", "training-throughput"} <= groups
    assert len({c["device"] for c in cases}) >= 5
    assert len({c["source"] for c in cases}) >= 5


def test_validator_runs_every_holdout_case(doc: dict[str, Any], tmp_path: Path) -> None:
    """`suanli validate` loads the file, predicts every case (none skipped) and reports holdout bands."""
    from suanli.validate.report import run_validation, summarize

    shutil.copy(VAL_DIR / HOLDOUT, tmp_path / HOLDOUT)
    results, skipped = run_validation(packaged_catalog(), tmp_path)
    assert not skipped, skipped
    assert {r.id for r in results} == {c["id"] for c in doc["cases"]}
    assert all(r.holdout and r.default is not None for r in results)
    bands = summarize(results)
    for g in {c["group"] for c in doc["cases"]}:
        assert bands[f"holdout:{g}"].cases == sum(c["group"] == g for c in doc["cases"])
