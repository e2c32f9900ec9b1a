"""Planner invariants, and the vectorized grid agreeing with the scalar estimators case by case."""

from __future__ import annotations

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.estimate.memory import estimate_memory
from suanli.estimate.speed import training_speed
from suanli.estimate.workload import make_workload
from suanli.plan.request import make_request
from suanli.plan.search import MICRO_BATCHES, RECOMPUTE, _devices, _train_grid, plan


def _req(**kw):  # type: ignore[no-untyped-def]
    base = dict(model="qwen2.5-7b", task="lora", tokens=1e8)
    base.update(kw)
    return make_request(**base)


def test_acceptance_lora_plan_returns_ranked_costed_plans(cat) -> None:
    r = plan(cat, lookup.model(cat, "qwen2.5-7b"), _req())
    assert r.plans and [p.rank for p in r.plans] == list(range(1, len(r.plans) + 1))
    assert all(p.cost_cny > 0 and p.hours > 0 and p.reason for p in r.plans)
    totals = [p.total_cost_cny for p in r.plans]
    assert totals == sorted(totals)


def test_every_plan_fits(cat) -> None:
    for task in ("lora", "full", "qlora"):
        r = plan(cat, lookup.model(cat, "llama-2-7b"), _req(model="llama-2-7b", task=task))
        for p in r.plans:
            assert p.memory_per_gpu_bytes <= p.memory_capacity_bytes


def test_domestic_only_never_returns_nvidia(cat) -> None:
    r = plan(cat, lookup.model(cat, "qwen2.5-7b"), _req(domestic_only=True))
    assert r.plans
    for p in r.plans:
        assert lookup.accelerator(cat, p.device).domestic


@pytest.mark.parametrize("budget", [20.0, 50.0, 200.0, 5000.0])
def test_larger_budget_never_makes_the_best_plan_worse(cat, budget: float) -> None:
    m = lookup.model(cat, "qwen2.5-7b")
    small = plan(cat, m, _req(budget_cny=budget, objective="fastest-within-budget"))
    large = plan(cat, m, _req(budget_cny=budget * 4, objective="fastest-within-budget"))
    if small.plans:
        assert large.plans and large.plans[0].hours <= small.plans[0].hours


def test_no_plan_says_what_to_relax(cat) -> None:
    r = plan(cat, lookup.model(cat, "qwen2.5-7b"), _req(budget_cny=0.5))
    assert not r.plans and any("budget" in t for t in r.relax)
    r2 = plan(cat, lookup.model(cat, "llama-3.1-405b"), _req(model="llama-3.1-405b", task="full", max_gpus=8))
    assert not r2.plans and r2.relax


def test_bad_request_is_one_line() -> None:
    with pytest.raises(InputError, match="objective"):
        _req(objective="cheap")
    with pytest.raises(InputError, match="budget"):
        _req(budget_cny=-5)
    with pytest.raises(InputError, match="tokens"):
        make_request(model="x", task="full")


@pytest.mark.parametrize("task", ["full", "lora", "qlora"])
def test_vector_grid_matches_scalar_estimators(cat, task: str) -> None:
    m = lookup.model(cat, "qwen2.5-7b")
    req = _req(task=task, tokens=1e9, global_batch=64)
    precision = "nf4" if task == "qlora" else "bf16"
    devs = _devices(cat, m, req, "bf16")
    g = _train_grid(cat, m, req, devs, precision)
    idx = np.nonzero(g["valid"])[0]
    rng = np.random.default_rng(0)
    for i in rng.choice(idx, size=40, replace=False):
        d = devs[int(g["dev"][i])]
        w = make_workload(
            task=task, precision=precision, seq=req.seq, gpus=int(g["gpus"][i]), tp=int(g["tp"][i]),
            pp=int(g["pp"][i]), zero=int(g["zero"][i]), recompute=RECOMPUTE[int(g["rec"][i])],
            batch=int(g["b"][i]), grad_accum=int(g["ga"][i]),
        )
        stack = lookup.stack(cat, d.acc.stack)
        mem = estimate_memory(m, w, d.acc, stack)
        assert g["mem"][i] == pytest.approx(mem.per_gpu_bytes, rel=1e-9)
        sp = training_speed(cat, m, d.acc, w)
        assert g["tok_s"][i] == pytest.approx(sp.train_tokens_per_s, rel=1e-6)
    assert int(g["b"].max()) == MICRO_BATCHES[-1]


def test_inference_plan_meets_latency_targets(cat) -> None:
    r = plan(cat, lookup.model(cat, "qwen2.5-7b"),
             make_request(model="qwen2.5-7b", task="inference", requests_per_s=2, tpot_s=0.05))
    assert r.plans
    for p in r.plans:
        assert p.replicas and p.replicas >= 1
