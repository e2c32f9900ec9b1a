"""Schema checks of the validation data: published.yaml and cpu_measured.yaml (issue 3, item 6).

Every case names its source, a model that resolves in the catalog or a config file that exists, a known
device, the flags `suanli estimate` takes, and the measured key its group calls for.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import accelerator, model
from suanli.catalog.schema import Source
from suanli.validate.report import _WORKLOAD_KEYS

ROOT = Path(__file__).resolve().parents[3]
VAL_DIR = ROOT / "src" / "suanli" / "data" / "validation"
FILES = ("published.yaml", "cpu_measured.yaml")

GROUP_KEYS: dict[str, set[str]] = {
    "inference-memory": {"memory_bytes"},
    "training-memory": {"memory_bytes"},
    "decode-speed": {"decode_tokens_per_s", "output_tokens_per_s"},
    "prefill-speed": {"prefill_tokens_per_s", "ttft_s"},
    "training-throughput": {"train_tokens_per_s", "mfu"},
}
MEASURED_KEYS = {k for keys in GROUP_KEYS.values() for k in keys} | {"gpu_hours"}
TASKS = {"inference", "full", "lora", "qlora", "pretrain"}
PRECISIONS = {"fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4"}
ENGINES = {"hf", "vllm", "trt-llm", "llama.cpp"}
REQUIRED = {"id", "group", "source", "where", "device", "gpus", "task", "precision", "measured", "note"}
INT_FLAGS = {"batch", "seq", "input", "output", "tp", "pp", "vpp", "cp", "zero", "lora_rank", "gpus", "ep"}
OPTIONAL = set(_WORKLOAD_KEYS) | {
    "model", "config", "tokens", "measured_breakdown", "reported", "fitted",
    # the source states no parallel layout: scored on the planner's fastest (suanli.validate.report.planner_layout);
    # framework: the one the source states (selects its efficiency rows; with layout unstated, the one searched)
    "layout", "framework", "global_batch",
    # memory cases: what the figure counts (suanli.estimate.memory.MEASURED_AS; test_measured_as.py)
    "measured_as",
}
# what a `layout: unstated` case may not state: the planner picks it
LAYOUT_DIMS = {"tp", "pp", "vpp", "cp", "zero", "recompute", "batch", "grad_accum", "tp_comm_overlap"}
BREAKDOWN_KEYS = {"weights", "weight_copies", "grads", "optimizer", "kv_cache", "logits", "activations"}
KEBAB = re.compile(r"^[a-z0-9]+(?:[-._][a-z0-9]+)*$")


def _load(name: str) -> dict[str, Any]:
    doc = yaml.safe_load((VAL_DIR / name).read_text(encoding="utf-8"))
    assert isinstance(doc, dict) and set(doc) == {"sources", "cases"}, name
    return doc


@pytest.fixture(scope="module", params=FILES)
def doc(request: pytest.FixtureRequest) -> dict[str, Any]:
    return _load(request.param)


def _cases(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return list(doc["cases"])


def test_sources_match_catalog_schema(doc: dict[str, Any]) -> None:
    ids = [Source.model_validate(s).id for s in doc["sources"]]
    assert len(ids) == len(set(ids))
    assert all(i.startswith("val-") for i in ids), ids
    catalog_ids = set(packaged_catalog().sources)
    assert not set(ids) & catalog_ids, "validation source ids must not collide with catalog source ids"


def test_ids_unique_across_both_files() -> None:
    ids = [c["id"] for f in FILES for c in _load(f)["cases"]]
    dup = {i for i in ids if ids.count(i) > 1}
    assert not dup, dup
    sids = [s["id"] for f in FILES for s in _load(f)["sources"]]
    assert len(sids) == len(set(sids))


def test_case_fields(doc: dict[str, Any]) -> None:
    sources = {s["id"] for s in doc["sources"]}
    for c in _cases(doc):
        cid = c.get("id", "?")
        assert REQUIRED <= set(c), (cid, REQUIRED - set(c))
        assert set(c) <= REQUIRED | OPTIONAL, (cid, set(c) - REQUIRED - OPTIONAL)
        assert KEBAB.match(cid), cid
        assert c["group"] in GROUP_KEYS, cid
        assert c["source"] in sources, cid
        assert ("model" in c) != ("config" in c), f"{cid}: exactly one of model/config"
        assert c["task"] in TASKS, cid
        assert c["precision"] in PRECISIONS, cid
        assert isinstance(c["where"], str) and c["where"].strip(), cid
        assert isinstance(c["note"], str) and c["note"].strip(), cid
        for f in INT_FLAGS & set(c):
            assert isinstance(c[f], int) and not isinstance(c[f], bool) and c[f] >= 0, (cid, f)
        assert c["gpus"] >= 1, cid
        if "engine" in c:
            assert c["engine"] in ENGINES, cid
        if "recompute" in c:
            assert c["recompute"] in {"none", "selective", "full"}, cid
        if "optimizer" in c:
            assert c["optimizer"] in {"adamw", "adamw8bit", "sgd", "adafactor"}, cid
        if "zero" in c:
            assert c["zero"] in {0, 1, 2, 3}, cid
        if "kv_dtype" in c:
            assert c["kv_dtype"] in PRECISIONS, cid
        if "flash_attention" in c:
            assert isinstance(c["flash_attention"], bool), cid
        if "layout" in c:
            assert c["layout"] == "unstated", cid
            assert c["group"] in {"training-memory", "training-throughput"}, cid
            assert not LAYOUT_DIMS & set(c), (cid, "a stated layout dimension in a layout: unstated case")
        if "global_batch" in c:
            assert c.get("layout") == "unstated", (cid, "global_batch chooses an unstated layout only")
        if "framework" in c:
            assert c["framework"] in {f.id for f in packaged_catalog().frameworks}, cid
        if c["task"] in {"lora", "qlora"}:
            assert c.get("lora_rank", 0) > 0, cid
        if c["task"] == "qlora":
            assert c["precision"] == "nf4", cid
        if c["group"] in {"training-memory", "training-throughput"}:
            assert c["task"] != "inference", cid
        else:
            assert c["task"] == "inference", cid


def test_measured_key_matches_group(doc: dict[str, Any]) -> None:
    for c in _cases(doc):
        m = c["measured"]
        assert isinstance(m, dict) and m, c["id"]
        assert set(m) <= MEASURED_KEYS, (c["id"], set(m) - MEASURED_KEYS)
        assert set(m) & GROUP_KEYS[c["group"]], (c["id"], c["group"], set(m))
        for k, v in m.items():
            assert isinstance(v, int | float) and not isinstance(v, bool) and v > 0, (c["id"], k)
        if "memory_bytes" in m:
            assert isinstance(m["memory_bytes"], int), c["id"]
        if "mfu" in m:
            assert 0 < m["mfu"] < 1, c["id"]


def test_breakdown_sums_to_peak(doc: dict[str, Any]) -> None:
    for c in _cases(doc):
        bd = c.get("measured_breakdown")
        if bd is None:
            continue
        assert set(bd) <= BREAKDOWN_KEYS, (c["id"], set(bd) - BREAKDOWN_KEYS)
        assert all(isinstance(v, int) and v >= 0 for v in bd.values()), c["id"]
        assert sum(bd.values()) == c["measured"]["memory_bytes"], c["id"]


def test_devices_known(doc: dict[str, Any]) -> None:
    cat = packaged_catalog()
    for c in _cases(doc):
        if c["device"] == "cpu":
            continue
        assert accelerator(cat, c["device"]).id == c["device"], f"{c['id']}: use the canonical id"


def test_models_resolve(doc: dict[str, Any]) -> None:
    cat = packaged_catalog()
    for c in _cases(doc):
        if "model" in c:
            model(cat, c["model"])  # raises NotFoundError naming the model


def test_config_files_exist_and_parse(doc: dict[str, Any]) -> None:
    for c in _cases(doc):
        if "config" not in c:
            continue
        path = ROOT / c["config"]
        assert path.is_file(), c["config"]
        cfg = json.loads(path.read_text(encoding="utf-8"))
        assert cfg.get("model_type") and cfg.get("vocab_size"), c["config"]


def test_group_coverage() -> None:
    pub = _load("published.yaml")["cases"]
    for g in GROUP_KEYS:
        assert sum(c["group"] == g for c in pub) >= 6, g
    assert len(pub) >= 40
    cpu = _load("cpu_measured.yaml")["cases"]
    assert all(c["device"] == "cpu" and "config" in c for c in cpu)
    assert {c["task"] for c in cpu} >= {"inference", "full"}
    assert {c["precision"] for c in cpu} >= {"fp32", "bf16"}


def test_cpu_cases_reproducible_command() -> None:
    cpu = _load("cpu_measured.yaml")["cases"]
    for c in cpu:
        assert c["where"].startswith(".venv/bin/python scripts/measure_cpu_memory.py --only "), c["id"]
        assert c["id"] == "cpu-" + c["where"].rsplit(" ", 1)[1], c["id"]
        assert (ROOT / "scripts" / "measure_cpu_memory.py").is_file()


def test_checker_rejects_a_bad_case() -> None:
    """The schema checks above can fail: a case with the wrong measured key for its group is caught."""
    bad = {"id": "x", "group": "decode-speed", "measured": {"memory_bytes": 1}}
    assert not set(bad["measured"]) & GROUP_KEYS[bad["group"]]
