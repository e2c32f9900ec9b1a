"""Offload follow-ups (buyer review after 40cba9d): why-not rows, relax hints and compare say when optimizer offload
or 8-bit AdamW would make a device fit; the plan table's layout shows the measure; `estimate --offload-optimizer`."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from suanli.catalog import lookup
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import plan

ANY = dict(region="any", offer_kinds=("listing", "index", "reference"))


def _why(r: Any) -> dict[str, dict[str, Any]]:
    return {w["device"]: w for w in r.why_not}


def test_pinned_framework_without_offload_names_the_one_that_fits(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "llama-3.1-70b")
    r = plan(cat, m, make_request(model=m.id, task="full", tokens=1e9, gpus=8, framework="megatron",
                                  devices=("a100-80g", "h800"), **ANY))
    assert not r.plans
    for dev in ("a100-80g", "h800"):
        w = _why(r)[dev]
        assert w["reason_i18n"]["id"] == "why.with_fix", w
        assert "ZeRO-Offload" in w["reason"] and "--framework deepspeed" in w["reason"]
    assert r.relax_i18n[0]["id"] == "relax.measure" and "--framework deepspeed" in r.relax[0]
    # what the hint names is a plan: drop the pin and the planner finds it
    ok = plan(cat, m, make_request(model=m.id, task="full", tokens=1e9, gpus=8, framework="deepspeed",
                                   devices=("a100-80g", "h800"), **ANY))
    assert ok.plans and all(p.offload_optimizer for p in ok.plans)


def test_stack_default_without_offload_names_deepspeed_on_cann(cat) -> None:  # type: ignore[no-untyped-def]
    """MindSpeed-LLM (CANN's full-training default) has no offload; DeepSpeed's CPU Adam builds for Ascend, but the
    catalog has no PCIe rate for the 910B, so the offload's time cannot be estimated: no hint names it (buyer review
    2026-12-01: following it gave 'fastest fit takes nan s'); tests/unit/plan/test_offload_host_ram.py."""
    m = lookup.model(cat, "llama-3.1-70b")
    r = plan(cat, m, make_request(model=m.id, task="full", tokens=1e9, gpus=8, devices=("ascend-910b",), **ANY))
    w = _why(r).get("ascend-910b")
    assert not r.plans, [p.offer for p in r.plans]  # nothing prices an offload on it: the why-not is what is tested
    assert lookup.accelerator(cat, "ascend-910b").specs.pcie_gen is None
    assert w is not None and "--framework deepspeed" not in w["reason"]


def test_leanest_configuration_already_offloading_says_so(cat) -> None:  # type: ignore[no-untyped-def]
    """405B full on 8 x 24 GB: even ZeRO-Offload does not fit; the why-not says the measure was tried."""
    m = lookup.model(cat, "llama-3.1-405b") if any(x.id == "llama-3.1-405b" for x in cat.models) \
        else lookup.model(cat, "llama-3.1-70b")
    r = plan(cat, m, make_request(model=m.id, task="full", tokens=1e9, gpus=8, devices=("rtx-4090",), **ANY))
    assert not r.plans
    w = _why(r)["rtx-4090"]
    assert "even with" in w["reason"] and w["reason_i18n"]["id"] == "why.even_with"


def test_compare_says_offload_would_fit(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "llama-3.1-70b")
    rows = compare_devices(cat, m, ["h800", "a100-80g"], "full", 8)
    for r in rows:
        assert r["fits"] is False
        assert r["layout_note_i18n"]["id"] == "why.plain_not_measure"
        assert "does not fit" in r["layout_note"] and "ZeRO-Offload" in r["layout_note"]


def test_plan_table_layout_shows_the_measure() -> None:
    from suanli.cli.plan_cmd import _layout
    from suanli.plan.search import Layout

    base: dict[str, Any] = dict(device="h800", framework="deepspeed", gpus=8, tp=1, pp=1, dp=8, zero=3,
                                recompute="full", precision="bf16", micro_batch=1, grad_accum=8, tokens_per_s=1.0,
                                memory_needed_bytes=1.0, memory_usable_bytes=2.0)

    class P(Layout):
        replicas: int | None = None

    assert _layout(P(**base, offload_optimizer=True)).endswith("+offload")
    assert _layout(P(**base, optimizer="adamw8bit")).endswith("adamw8bit")
    assert "offload" not in _layout(P(**base))


def test_estimate_offload_flag_reproduces_the_workload(cat) -> None:  # type: ignore[no-untyped-def]
    args = ["estimate", "--model", "llama-3.1-70b", "--gpu", "h800", "--task", "full", "--gpus", "8", "--zero", "3",
            "--recompute", "full", "--framework", "deepspeed", "--json"]
    run = lambda *extra: subprocess.run([sys.executable, "-m", "suanli.cli.main", *args, *extra],  # noqa: E731
                                        capture_output=True, text=True, env={"COLUMNS": "120", "PATH": ""})
    on, off = run("--offload-optimizer"), run()
    assert on.returncode == 0 and off.returncode == 0, on.stderr
    c_on, c_off = json.loads(on.stdout), json.loads(off.stdout)
    w = make_workload(task="full", gpus=8, zero=3, recompute="full", framework="deepspeed", offload_optimizer=True)
    e = estimate(cat, lookup.model(cat, "llama-3.1-70b"), lookup.accelerator(cat, "h800"), w)
    assert c_on["memory"]["per_gpu_bytes"] == pytest.approx(e.memory.per_gpu_bytes, rel=1e-12)
    assert c_on["memory"]["per_gpu_bytes"] < c_off["memory"]["per_gpu_bytes"]
    assert c_on["memory"]["fits"] is True and c_off["memory"]["fits"] is False
