"""The exported SkyServe YAML deploys what was planned (buyer review 2026-12-01, fourth session): a pre-quantized
int4/int8 checkpoint is served with no --quantization (the engine reads the method from the checkpoint, so a GPTQ
release is not refused as AWQ), fp8 quantized on load keeps it; each engine gets the plan's batch as its maximum
concurrent sequences and the request's input + output as its context length; a device no SkyPilot cloud lists says
so (Kubernetes label), not 'SkyPilot will rent from its own clouds'; the quantization warning points at no command
that refuses the precision."""

from __future__ import annotations

import datetime as dt
import shlex
from typing import Any

import pytest
import yaml

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.i18n import Message, render
from suanli.plan.export import skypilot_notes, skypilot_yaml
from suanli.plan.request import make_request
from suanli.plan.search import PlanResult, plan

TODAY = dt.date(2026, 12, 1)
# the flag each engine takes for the batch and the context length (engine docs, see export._serve_run)
BATCH_FLAG = {"vllm": "--max-num-seqs", "sglang": "--max-running-requests", "lmdeploy": "--max-batch-size"}
CONTEXT_FLAG = {"vllm": "--max-model-len", "sglang": "--context-length", "lmdeploy": "--session-len"}


@pytest.fixture(scope="module")
def buyer(cat: Catalog) -> PlanResult:
    """The buyer's command: qwen3-30b-a3b at 50 req/s, 1024 in / 300 out, on the H800 it chose (an int4 plan)."""
    req = make_request(model="qwen3-30b-a3b", task="inference", requests_per_s=50, input=1024, output=300, ttft_s=1,
                       tpot_s=0.04, days=30, devices=("h800",), precision="any")  # int4 only when asked
    return plan(cat, lookup.model(cat, "qwen3-30b-a3b"), req, TODAY)


def _flags(task: dict[str, Any]) -> dict[str, str]:
    """The run command's --flag value pairs, with the YAML's envs substituted ($MICRO_BATCH → 231)."""
    words = shlex.split(task["run"].strip())
    env = {f"${k}": str(v) for k, v in task["envs"].items() if v is not None}
    out: dict[str, str] = {}
    for w, nxt in zip(words, [*words[1:], ""]):
        if w.startswith("--"):
            out[w] = env.get(nxt, nxt) if not nxt.startswith("--") else ""
    return out


@pytest.mark.parametrize("engine", ["vllm", "sglang", "lmdeploy"])
@pytest.mark.parametrize("precision", ["bf16", "fp8", "int8", "int4"])
def test_run_command_per_engine_and_precision(cat: Catalog, buyer: PlanResult, engine: str, precision: str) -> None:
    p = buyer.plans[0].model_copy(update={"engine": engine, "precision": precision, "pp": 1})
    task = yaml.safe_load(skypilot_yaml(p, buyer, cat))
    flags = _flags(task)
    # the batch the plan was judged at, per replica, and the context it sized the KV cache for
    assert flags[BATCH_FLAG[engine]] == str(p.micro_batch) == str(task["envs"]["MICRO_BATCH"])
    assert flags[CONTEXT_FLAG[engine]] == str(buyer.request.input + buyer.request.output) == "1324"
    # a pre-quantized checkpoint's method is read from it: never named (awq would refuse Qwen's GPTQ-Int4 release)
    assert "--model-format" not in flags
    if precision == "fp8" and engine != "lmdeploy":
        assert flags["--quantization"] == "fp8"  # quantized on load from the bf16 checkpoint
    else:
        assert "--quantization" not in flags
    # int4: Qwen's GPTQ-Int4 upload (every engine here loads GPTQ); int8: none published, the user names one
    if precision in ("int4", "int8"):
        assert task["envs"]["MODEL"] == ("Qwen/Qwen3-30B-A3B-GPTQ-Int4" if precision == "int4" else None)
        assert task["envs"]["BASE_MODEL"] == buyer.model_id


def test_buyer_int4_export(cat: Catalog, buyer: PlanResult) -> None:
    p = buyer.plans[0]
    assert p.precision == "int4" and p.engine == "vllm" and p.device == "h800"  # what the review reproduced
    text = skypilot_yaml(p, buyer, cat)
    task = yaml.safe_load(text)
    assert "--quantization" not in task["run"] and "quantization_config" in text
    assert task["envs"]["MODEL"] == "Qwen/Qwen3-30B-A3B-GPTQ-Int4" and "must be filled in" not in text
    assert _flags(task)["--max-num-seqs"] == str(p.micro_batch)


def test_device_without_skypilot_name_says_kubernetes(cat: Catalog, buyer: PlanResult) -> None:
    """H800 is exported as `h800`: no SkyPilot cloud rents it at any price, so 'its own clouds at their prices' is
    wrong; the note says to map it to the user's Kubernetes GPU label."""
    p = buyer.plans[0]
    assert yaml.safe_load(skypilot_yaml(p, buyer, cat))["resources"]["accelerators"] == f"h800:{p.tp * p.pp}"
    notes = skypilot_notes(p, cat)
    assert [n.id for n in notes] == ["export.skypilot.k8s_label"]
    en, zh = render(notes[0], "en"), render(notes[0], "zh")
    assert "no SkyPilot cloud lists" in en and "Kubernetes" in en and "h800" in en
    assert "Kubernetes" in zh and "h800" in zh and "SkyPilot" in zh
    # a device SkyPilot names on an AutoDL offer keeps the other-cloud note
    h100 = p.model_copy(update={"device": "h100-sxm"})
    assert [n.id for n in skypilot_notes(h100, cat)] == ["export.skypilot.other_cloud"]


def test_quantization_warning_names_what_can_back_it(buyer: PlanResult) -> None:
    """`suanli bench run` refuses int4/int8/fp8: the warning says suanli does not measure quantized accuracy and
    the user evaluates the quantized checkpoint on their own eval set."""
    ws = [w for w in buyer.plans[0].warnings_i18n if w.get("id") == "plan.warn.quantization"]
    assert ws
    for lang in ("en", "zh"):
        text = render(Message.from_json(ws[0]), lang)  # type: ignore[arg-type]
        assert "bench run" not in text and "int4" in text and "bf16" in text
    assert "own eval set" in render(Message.from_json(ws[0]), "en")
    assert "评测集" in render(Message.from_json(ws[0]), "zh")
