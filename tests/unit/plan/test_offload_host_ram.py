"""Optimizer offload plans that would actually run (buyer review 2026-12-01): the host RAM an offloaded optimizer
needs per node (DeepSpeed's estimator) in estimate and plan, and no NaN where the offload time has no rate (a device
without a PCIe generation, e.g. the Ascend 910B)."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.estimate.estimate import estimate
from suanli.estimate.memory import offload_host_bytes_per_node
from suanli.estimate.params import param_count
from suanli.estimate.workload import make_workload
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import fastest_layout_why, plan
from suanli.units import GiB

ANY = dict(region="any", offer_kinds=("listing", "index", "reference"))


def test_host_bytes_follow_deepspeeds_estimator() -> None:
    """deepspeed/runtime/zero/stage3.py estimate_zero3_model_states_mem_needs (offload_optimizer cpu, zero_init):
    P x 16 / nodes x 1.5; stage_1_and_2.py estimate_zero2_model_states_mem_needs (cpu_offload):
    P x max(4 x gpus, 16) x 1.5."""
    p = 1e9
    assert offload_host_bytes_per_node(p, 8, 8, 3) == pytest.approx(p * 16 * 1.5)
    assert offload_host_bytes_per_node(p, 16, 8, 3) == pytest.approx(p * 16 / 2 * 1.5)
    assert offload_host_bytes_per_node(p, 2, 8, 2) == pytest.approx(p * 16 * 1.5)
    assert offload_host_bytes_per_node(p, 8, 8, 2) == pytest.approx(p * 32 * 1.5)
    arr = offload_host_bytes_per_node(p, np.array([8.0, 16.0]), np.array([8.0, 8.0]), np.array([3, 3]))
    assert arr.tolist() == pytest.approx([p * 24, p * 12])


def test_offload_plan_warns_host_ram(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "llama-3.1-70b")
    r = plan(cat, m, make_request(model=m.id, task="full", tokens=1e9, budget_cny=200000, **ANY))
    off = [p for p in r.plans if p.offload_optimizer]
    assert off, "the 70B full fine-tune under ¥200,000 is planned with offload"
    for p in off:
        nodes = math.ceil(p.gpus / lookup.accelerator(cat, p.device).max_cards_per_node)
        want = param_count(m).total * (16 / nodes if p.zero == 3 else max(4 * p.gpus, 16)) * 1.5
        assert p.offload_host_bytes_per_node == pytest.approx(want)
        w = [x for x in p.warnings_i18n if x["id"] == "plan.warn.offload_host_ram"]
        assert len(w) == 1 and w[0]["params"]["gib"] == pytest.approx(want / GiB)
        text = [x for x in p.warnings if "host RAM per node" in x][0]
        assert f"{want / GiB:,.0f} GiB" in text and "confirm with the platform" in text
        zh = render(Message.from_json(w[0]), "zh") if hasattr(Message, "from_json") else None
        assert zh is None or "主机内存" in zh
    assert all(p.offload_host_bytes_per_node is None for p in r.plans if not p.offload_optimizer)


def test_estimate_shows_host_ram(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "llama-3.1-70b")
    w = make_workload(task="full", gpus=8, zero=3, offload_optimizer=True, framework="deepspeed")
    e = estimate(cat, m, lookup.accelerator(cat, "a100-80g"), w)
    c = e.contract()
    want = param_count(m).total * 16 * 1.5
    assert c["memory"]["host_offload_bytes_per_node"] == pytest.approx(want)
    assert any("host RAM per node" in n and f"{want / GiB:,.0f}" in n for n in e.memory.notes)
    plain = estimate(cat, m, lookup.accelerator(cat, "a100-80g"), make_workload(task="full", gpus=8, zero=3))
    assert "host_offload_bytes_per_node" not in plain.contract()["memory"]


def test_estimate_910b_offload_says_why_no_speed(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "llama-3.1-70b")
    acc = lookup.accelerator(cat, "ascend-910b")
    assert acc.specs.pcie_gen is None  # the premise: no host-link rate in the catalog
    w = make_workload(task="full", gpus=8, zero=3, offload_optimizer=True, framework="deepspeed", tokens=1e9)
    e = estimate(cat, m, acc, w)
    lines = [n for n in e.notes if "offload time not estimated" in n]
    assert lines == [f"offload time not estimated: no host-link (PCIe) rate for {acc.name}"]
    assert e.hours is None  # no NaN hours
    assert "nan" not in json.dumps(e.notes + e.memory.notes).lower()


def _strings(r: Any) -> list[str]:
    out = [p.reason for p in r.plans] + [w for p in r.plans for w in p.warnings]
    return out + [w["reason"] for w in r.why_not] + list(r.relax)


def _strings_zh(r: Any) -> list[str]:
    msgs = [p.reason_i18n for p in r.plans] + [w for p in r.plans for w in p.warnings_i18n]
    msgs += [w["reason_i18n"] for w in r.why_not] + list(r.relax_i18n)
    return [render(Message.from_json(x), "zh") for x in msgs] if hasattr(Message, "from_json") else []


@pytest.mark.parametrize("framework", [None, "deepspeed"])
def test_no_nan_and_no_hint_without_speed(cat, framework: str | None) -> None:  # type: ignore[no-untyped-def]
    """The buyer's case: the 910B fits 8 cards only with DeepSpeed's offload, whose time has no PCIe rate: no hint
    names it, and following it says why, never 'nan'."""
    m = lookup.model(cat, "llama-3.1-70b")
    r = plan(cat, m, make_request(model=m.id, task="full", tokens=1e9, budget_cny=10000, deadline_hours=100,
                                  framework=framework))
    for s in _strings(r) + _strings_zh(r):
        assert "nan" not in s.lower(), s
    assert not any("--framework deepspeed" in s for s in r.relax)
    why = {w["device"]: w for w in r.why_not}
    if framework == "deepspeed":
        w = why["ascend-910b"]
        ids = [w["reason_i18n"]["id"]] + [q["id"] for q in w["reason_i18n"]["params"].get("parts", [])]
        assert "why.measure_no_speed" in ids, w  # beside the plain layout's node reason (why.all) where it has one
        assert "no host-link (PCIe) rate" in w["reason"]
    else:
        assert "--framework deepspeed" not in why["ascend-910b"]["reason"]


def test_fastest_layout_910b_offload_says_why(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "llama-3.1-70b")
    lay, why = fastest_layout_why(cat, m, make_request(model=m.id, task="full", tokens=1e9, gpus=8, framework="deepspeed"),
                                  "ascend-910b")
    assert lay is None and why is not None and "nan" not in render(why).lower()
