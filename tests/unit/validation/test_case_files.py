"""Schema checks of the held-out case files taken as whole published tables (issue 12 item 4):
published_cases_2026_11.yaml (TensorRT-LLM, NeMo, Qwen3 on the H20), published_cases_2026_12.yaml (vLLM, Qwen2 on the A100),
published_cases_2026_12b.yaml (transformers decode and peak memory of Llama-2-13B, fp16 / GPTQ / bitsandbytes, on the A100),
published_cases_memory.yaml (ms-swift LoRA, transformers AWQ), published_cases_memory_train.yaml (torchtune and PEFT
LoRA/QLoRA training memory), published_cases_domestic.yaml (MindSpeed-LLM and
FlagPerf on the 910B and the C500) and published_cases_ascend_infer.yaml (vLLM-Ascend on the 910B). Every case is
`holdout: true`, names a source of its file, a catalog model and a canonical device, the flags `suanli estimate` takes
and the measured key its group calls for; no source is reused from another case file; `suanli validate` runs them all.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from collections.abc import Callable
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
ENGINES = {"hf", "vllm", "sglang", "lmdeploy", "trt-llm", "llama.cpp", "vllm-ascend", "mindie"}


def _cover_2026_11(cases: list[dict[str, Any]]) -> None:
    groups = [c["group"] for c in cases]
    assert groups.count("decode-speed") + groups.count("prefill-speed") >= 25
    assert groups.count("prefill-speed") >= 10
    assert groups.count("training-throughput") >= 5


def _cover_domestic(cases: list[dict[str, Any]]) -> None:
    assert [c["group"] for c in cases].count("training-throughput") >= 25
    assert len({c["source"] for c in cases}) >= 2  # independent sources
    assert sum(c["device"].startswith("ascend-910b") for c in cases) >= 25
    assert all(not c["device"].startswith(("a1", "h1", "h2", "l", "rtx")) for c in cases)  # domestic devices only


def _cover_ascend_infer(cases: list[dict[str, Any]]) -> None:
    """Decode/prefill on the 910B, served by the engines Chinese teams run there (issue 12 item 1)."""
    assert cases
    assert all(c["group"] in {"decode-speed", "prefill-speed"} for c in cases)
    assert all(c["device"].startswith("ascend-910b") for c in cases)
    assert all(c.get("engine") in {"vllm-ascend", "mindie"} for c in cases)


def _cover_fp8_train(cases: list[dict[str, Any]]) -> None:
    """BF16 and FP8 of the same Megatron-Core / TE layout on Hopper, in pairs (issue 12 item 3)."""
    assert all(c["group"] == "training-throughput" and c["device"].startswith("h") for c in cases)
    key = [tuple(c.get(k) for k in ("model", "gpus", "tp", "pp", "cp", "vpp", "seq")) for c in cases]
    assert sorted(c["precision"] for c in cases) == sorted(["bf16", "fp8"] * (len(cases) // 2))
    assert all(key.count(k) == 2 for k in key)


def _cover_moe(cases: list[dict[str, Any]]) -> None:
    """MoE pre-training rows with expert parallelism, the in-sample set of the moe-routed-overhead-* factors."""
    assert len(cases) >= 3
    assert all(c["group"] == "training-throughput" and c.get("ep", 1) > 1 for c in cases)
    cat = packaged_catalog()
    assert all(model(cat, c["model"]).moe is not None for c in cases)


def _cover_2026_12(cases: list[dict[str, Any]]) -> None:
    """Decode/prefill rows of the engines teams in China serve with (issue 12 item 4), each naming its engine."""
    assert len(cases) >= 30
    assert all(c["group"] in {"decode-speed", "prefill-speed"} for c in cases)
    assert all(c.get("engine") in ENGINES - {"hf"} for c in cases)


def _cover_2026_12b(cases: list[dict[str, Any]]) -> None:
    """Decode speed and the same runs' peak memory (issue 12: more decode evidence): every row of the chosen tables gives
    one case of each group, on the engine and release the page states."""
    decode = {c["id"].removesuffix("-decode") for c in cases if c["group"] == "decode-speed"}
    memory = {c["id"].removesuffix("-memory") for c in cases if c["group"] == "inference-memory"}
    assert len(decode) >= 20 and decode == memory and len(cases) == 2 * len(decode)
    assert all(c.get("engine") == "hf" and c.get("engine_version") for c in cases)


def _cover_moe_decode(cases: list[dict[str, Any]]) -> None:
    """Decode of MoE models at small batch on one node (buyer review 2026-12-01): the set had none."""
    assert len(cases) >= 5 and any(c["batch"] == 1 for c in cases)
    assert all(c["group"] == "decode-speed" and c.get("engine") in ENGINES for c in cases)
    cat = packaged_catalog()
    assert all(model(cat, c["model"]).moe is not None for c in cases)


def _cover_memory(cases: list[dict[str, Any]]) -> None:
    """More held-out memory evidence (issue 12 item 4): inference and training memory, from at least two sources."""
    groups = [c["group"] for c in cases]
    assert groups.count("inference-memory") >= 5 and groups.count("training-memory") >= 5
    assert set(groups) == {"inference-memory", "training-memory"}
    assert len({c["source"] for c in cases}) >= 2


def _cover_memory_train(cases: list[dict[str, Any]]) -> None:
    """Held-out training memory from frameworks other than ms-swift (issue 12 item 4): LoRA and QLoRA, two frameworks,
    each figure saying what it counts."""
    assert {c["group"] for c in cases} == {"training-memory"} and {c["task"] for c in cases} == {"lora", "qlora"}
    assert len({c["source"] for c in cases}) >= 2 and len({c.get("framework") for c in cases}) >= 2
    assert all(c.get("measured_as") in {"allocated", "reserved", "device", "unknown"} for c in cases)


# file -> (id prefix, a task its cases never have, coverage check)
FILES: dict[str, tuple[str, str, Callable[[list[dict[str, Any]]], None]]] = {
    "published_cases_2026_11.yaml": ("c2611-", "full", _cover_2026_11),
    "published_cases_domestic.yaml": ("cdom-", "inference", _cover_domestic),
    "published_cases_ascend_infer.yaml": ("cai-", "full", _cover_ascend_infer),
    "published_cases_fp8_train.yaml": ("fp8t-", "inference", _cover_fp8_train),
    "published_cases_moe.yaml": ("moe-", "inference", _cover_moe),
    "published_cases_2026_12.yaml": ("c2612-", "full", _cover_2026_12),
    "published_cases_2026_12b.yaml": ("c2612b-", "full", _cover_2026_12b),
    "published_cases_moe_decode.yaml": ("cmd-", "full", _cover_moe_decode),
    "published_cases_memory.yaml": ("cmem-", "inference", _cover_memory),
    "published_cases_memory_train.yaml": ("cmt-", "inference", _cover_memory_train),
}
# one page whose tables are split over two held-out files, neither with an in-sample row or a fitted factor (so the
# selection rule's concern, a page seen in fitting, does not arise): Qwen2's speed page, vLLM speed rows in
# published_cases_2026_12.yaml, transformers memory rows in published_cases_memory_qwen2.yaml
SHARED_HELD_OUT_PAGES = {
    frozenset({"published_cases_2026_12.yaml", "published_cases_memory_qwen2.yaml"}):
        {"shadowboxx/Qwen2:docs/source/benchmark/speed_benchmark.rst"},
}
# files whose cases are in-sample (`fitted:` names the factors or development-set; never `holdout: true`)
IN_SAMPLE = {"published_cases_fp8_train.yaml", "published_cases_moe.yaml"}


def _sibling() -> ModuleType:
    """The schema constants of test_validation_data.py (pytest runs with --import-mode=importlib)."""
    path = Path(__file__).with_name("test_validation_data.py")
    spec = importlib.util.spec_from_file_location("_validation_schema_case_files", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_S = _sibling()


def _load(name: str) -> dict[str, Any]:
    d = yaml.safe_load((VAL_DIR / name).read_text(encoding="utf-8"))
    assert isinstance(d, dict) and set(d) == {"sources", "cases"}
    return d


@pytest.fixture(scope="module", params=sorted(FILES))
def file(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def doc(file: str) -> dict[str, Any]:
    return _load(file)


def case_problems(c: dict[str, Any], source_ids: set[str], prefix: str, in_sample: bool = False) -> list[str]:
    """Everything wrong with one case; empty when it is well formed."""
    p: list[str] = []
    keys = set(c)
    required = set(_S.REQUIRED) | {"fitted" if in_sample else "holdout", "reported", "model"}
    if not required <= keys:
        p.append(f"missing {sorted(required - keys)}")
    if not keys <= required | set(_S.OPTIONAL):
        p.append(f"unknown {sorted(keys - required - set(_S.OPTIONAL))}")
    if in_sample:
        if "holdout" in c or not c.get("fitted"):
            p.append("in-sample: fitted names its factors (or development-set), never holdout")
    elif c.get("holdout") is not True or "fitted" in c:
        p.append("holdout must be true and nothing fitted")
    if not _S.KEBAB.match(str(c.get("id", ""))) or not str(c.get("id", "")).startswith(prefix):
        p.append(f"id must be kebab-case and start with {prefix!r}")
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


def test_every_case_is_well_formed(file: str, doc: dict[str, Any]) -> None:
    sids = {s["id"] for s in doc["sources"]}
    bad = {c.get("id", "?"): case_problems(c, sids, FILES[file][0], file in IN_SAMPLE) for c in doc["cases"]}
    assert not {k: v for k, v in bad.items() if v}


def test_checker_catches_bad_cases(file: str, doc: dict[str, Any]) -> None:
    prefix, wrong_task, _ = FILES[file]
    sids = {s["id"] for s in doc["sources"]}
    good = dict(doc["cases"][0])
    ins = file in IN_SAMPLE
    assert case_problems(good, sids, prefix, ins) == []
    wrong_metric = {"decode_tokens_per_s": 1.0} if good["group"].endswith("memory") else {"memory_bytes": 1}
    for change in ({"holdout": ins}, {"fitted": [] if ins else ["x"]}, {"measured": wrong_metric}, {"source": "val-x"},
                   {"gpus": 3, "tp": 2}, {"id": "no-prefix"}, {"task": wrong_task}, {"reported": ""}, {"engine": "x"}):
        assert case_problems({**good, **change}, sids, prefix, ins), change


def test_sources_valid_prefixed_and_used(file: str, doc: dict[str, Any]) -> None:
    ids = [Source.model_validate(s).id for s in doc["sources"]]
    assert len(ids) == len(set(ids)) and all(i.startswith(FILES[file][0]) for i in ids)
    assert not set(ids) & set(packaged_catalog().sources)
    assert {c["source"] for c in doc["cases"]} == set(ids)
    for s in doc["sources"]:  # the selection rule: each note says which tables were taken whole
        assert "whole" in s["note"], s["id"]


def test_devices_and_models_resolve(doc: dict[str, Any]) -> None:
    cat = packaged_catalog()
    for c in doc["cases"]:
        assert accelerator(cat, c["device"]).id == c["device"], f"{c['id']}: use the canonical id"
        model(cat, c["model"])


def test_coverage(file: str, doc: dict[str, Any]) -> None:
    FILES[file][2](doc["cases"])


def test_sources_not_used_elsewhere(file: str, doc: dict[str, Any]) -> None:
    """A source already in the validation set (in-sample or held out) must not be reused (selection rule); the
    NVIDIA file's sources share publishers with in-sample ones and say so in their notes, so only its URLs are
    checked against the other held-out files."""
    urls = {s["url"] for s in doc["sources"]}
    for path in VAL_DIR.glob("*.yaml"):
        if path.name in {file, "error_bands.yaml"} or (file == "published_cases_2026_11.yaml" and path.name not in FILES):
            continue
        other = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        shared = SHARED_HELD_OUT_PAGES.get(frozenset({file, path.name}), set())
        assert not (urls & {s.get("url") for s in other.get("sources", [])}) - shared, path.name


def test_validator_runs_every_case(file: str, doc: dict[str, Any], tmp_path: Path) -> None:
    from suanli.validate.report import run_validation

    shutil.copy(VAL_DIR / file, tmp_path / file)
    results, skipped = run_validation(packaged_catalog(), tmp_path)
    assert not skipped, skipped
    assert {r.id for r in results} == {c["id"] for c in doc["cases"]}
    assert all(r.sample == ("in" if file in IN_SAMPLE else "out") and r.default is not None for r in results)


# published_cases_domestic.yaml: cases whose source states no layout --------------------------------------------

@pytest.fixture(scope="module")
def domestic() -> dict[str, Any]:
    return _load("published_cases_domestic.yaml")


def test_layout_unstated_exactly_where_no_script_was_found(domestic: dict[str, Any]) -> None:
    """The MindSpeed-LLM table states no parallel layout, batch or recomputation; each row's example pre-training script
    does. A row is `layout: unstated` (framework mindspeed, scored on the planner's fastest layout) exactly where no script
    was found, and its note says what was searched; every other row states tp, pp, zero, recompute, micro-batch and grad
    accumulation, and its note names the script (path under examples/, commit) and the encoding, with dp x micro x grad_accum
    a whole global batch. FlagPerf's READMEs state their layouts: no FlagPerf row is unstated."""
    script = re.compile(r"script (examples/(?:mcore|legacy)/\S+\.sh) \(.*?commit ([0-9a-f]{8})")
    for c in domestic["cases"]:
        if c["source"] != "cdom-mindspeed-llm-readme-2024":
            assert "layout" not in c and "framework" not in c, c["id"]
            continue
        found = script.search(c["note"])
        if c.get("layout") == "unstated":
            assert found is None and "searched" in c["note"], c["id"]
            assert c.get("framework") == "mindspeed" and not set(c) & set(_S.LAYOUT_DIMS), c["id"]
        else:
            assert found is not None, f"{c['id']}: a stated layout names its script and commit"
            assert "layout" not in c and c.get("framework") == "mindspeed", c["id"]  # the source's framework
            assert {"tp", "pp", "zero", "recompute", "batch", "grad_accum"} <= set(c), c["id"]
            dp = c["gpus"] // (c["tp"] * c["pp"] * c.get("cp", 1))
            assert dp * c["tp"] * c["pp"] * c.get("cp", 1) == c["gpus"], c["id"]
            assert f"grad_accum {c['grad_accum']} = {dp * c['batch'] * c['grad_accum']} / ({c['batch']} x {dp})" in c["note"], c["id"]
            assert f"tp {c['tp']}, pp {c['pp']}" in c["note"], c["id"]
            assert c.get("tp_comm_overlap", False) == ("tp_comm_overlap (--use-mc2)" in c["note"]), c["id"]


def test_unstated_layouts_are_the_planners_fastest(domestic: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The validator scores a `layout: unstated` case on `fastest_layout` (exactly its cards, its framework, prices
    aside) and prints it; a case no layout fits is skipped with the reason, never scored on a layout that cannot run."""
    from suanli.plan.search import fastest_layout
    from suanli.validate.report import planner_layout, run_validation

    cat = packaged_catalog()
    # every MindSpeed row now states its script's layout: an 8-card row with its layout taken away stands for an unstated one
    row = next(x for x in domestic["cases"] if x["source"] == "cdom-mindspeed-llm-readme-2024" and x["gpus"] == 8)
    c = {k: v for k, v in row.items() if k not in _S.LAYOUT_DIMS | {"vpp", "cp"}} | {"layout": "unstated", "framework": "mindspeed"}
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

