"""ZeRO / FSDP with pipeline parallelism where the framework runs it (issue 12, layouts as teams run them).

Which ZeRO stages run beside pipeline parallelism is framework data (frameworks.yaml pp_zero_stages, cited):
DeepSpeed's PipelineEngine asserts stage < 2, Megatron / MindSpeed shard optimizer states only, torchtitan runs
FSDP2 (ZeRO-3) with pipeline parallelism. `estimate` and the planner apply the one rule (capability.pp_zero_runs)."""

from __future__ import annotations

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.estimate.capability import pp_zero_framework, pp_zero_runs
from suanli.estimate.estimate import estimate
from suanli.estimate.memory import training_memory, training_memory_terms
from suanli.estimate.params import param_count
from suanli.estimate.workload import make_workload
from suanli.plan.request import make_request
from suanli.plan.search import plan, plan_workload

ALL_PRICES = dict(region="any", offer_kinds=("listing", "index", "reference"))


def _fw(cat, fid: str):  # type: ignore[no-untyped-def]
    return next(f for f in cat.frameworks if f.id == fid)


def _est(cat, model: str, gpu: str, **kw):  # type: ignore[no-untyped-def]
    return estimate(cat, lookup.model(cat, model), lookup.accelerator(cat, gpu), make_workload(**kw))


def test_framework_data_says_which_stages_run_with_pp(cat) -> None:
    ds, mg, tt = _fw(cat, "deepspeed"), _fw(cat, "megatron"), _fw(cat, "torchtitan")
    assert ds.pp_zero_stages == (0, 1) and ds.pp_zero_source == "deepspeed-pipe-engine"
    assert mg.pp_zero_stages == (0, 1)
    assert tt.pp_zero_stages == (3,) and tt.pp and tt.tp
    assert {"deepspeed-pipe-engine", "torchtitan-apply-fsdp", "pytorch-pipelining-fsdp"} <= set(cat.sources)
    # the rule over arrays (planner) and scalars (estimate) alike
    pp, dp, zero = np.array([1, 2, 2, 2, 2]), np.array([4, 4, 4, 1, 4]), np.array([3, 3, 1, 0, 0])
    assert list(pp_zero_runs(ds, pp, dp, zero)) == [True, False, True, True, True]
    assert list(pp_zero_runs(tt, pp, dp, zero)) == [True, True, False, True, False]  # no DDP beside PP


def test_deepspeed_refuses_zero3_with_pp_in_one_line(cat) -> None:
    with pytest.raises(InputError) as ei:
        _est(cat, "llama-2-70b", "h100", task="full", gpus=16, zero=3, pp=2, framework="deepspeed")
    msg = str(ei.value)
    assert ei.value.field == "zero" and "\n" not in msg
    assert "DeepSpeed" in msg and "ZeRO 0, 1" in msg and "deepspeed-pipe-engine" in msg and "--pp 2" in msg
    # Megatron: the distributed optimizer (ZeRO-1) is what runs beside its pipeline
    with pytest.raises(InputError) as ei:
        _est(cat, "llama-2-70b", "h100", task="full", gpus=16, zero=3, pp=2, framework="megatron")
    assert "Megatron" in str(ei.value) and "ZeRO 0, 1" in str(ei.value)
    _est(cat, "llama-2-70b", "h100", task="full", gpus=16, zero=1, pp=2, framework="deepspeed")


def test_no_framework_runs_it_on_ascend_names_each_with_its_stages(cat) -> None:
    fw, problem = pp_zero_framework(cat.frameworks, "full", "cann", 2, 4, 3)
    assert fw is None and problem is not None and "\n" not in problem
    assert "MindSpeed-LLM runs it with ZeRO 0, 1" in problem and "DeepSpeed runs it with ZeRO 0, 1" in problem
    fw, problem = pp_zero_framework(cat.frameworks, "full", "cuda", 2, 4, 3)
    assert problem is None and fw is not None and fw.id == "torchtitan"


def test_torchtitan_fsdp_with_pp_memory_by_hand(cat) -> None:
    """Llama-2-70B full bf16 AdamW, tp 2 × pp 4 × dp 2 = 16 cards, ZeRO-3 (FSDP2) as torchtitan runs it with
    pipeline parallelism: per card the stage's bf16 parameters stay gathered (2 B × Ψ / (tp·pp)), its gradients
    accumulate unsharded in fp32 (4 B × Ψ / (tp·pp)), and only the fp32 master + Adam states are sharded over dp
    (12 B × Ψ / (tp·pp·dp)) (pytorch-pipelining-fsdp, torchtitan-apply-fsdp)."""
    m = lookup.model(cat, "llama-2-70b")
    psi = param_count(m).total
    e = _est(cat, "llama-2-70b", "h100", task="full", gpus=16, tp=2, pp=4, zero=3, batch=1, grad_accum=8,
             recompute="full", framework="torchtitan")
    w = make_workload(task="full", gpus=16, tp=2, pp=4, zero=3, batch=1, grad_accum=8, recompute="full")
    t = training_memory_terms(m, w)
    got = training_memory(t, 2, 4, 2, 1, 3, 2, 1, 8)
    assert float(got["weights"]) == pytest.approx(2 * psi / 8)
    assert float(got["gradients"]) == pytest.approx(4 * psi / 8)
    assert float(got["optimizer"]) == pytest.approx(12 * psi / 16)
    # without pipeline parallelism FSDP shards all three (ZeRO §3.1: 16 B × Ψ / N_d per rank over tp × dp)
    flat = training_memory(t, 2, 1, 8, 1, 3, 2, 1, 8)
    assert float(flat["weights"]) == pytest.approx(2 * psi / 16)
    assert float(flat["optimizer"]) == pytest.approx(12 * psi / 16)
    # the estimate is the kernel's figure and says how the framework runs it
    assert any("torchtitan" in n and "unsharded" in n for n in e.notes)
    assert e.memory.breakdown_bytes["weights"] == pytest.approx(float(got["weights"]))


def test_planner_searches_fsdp_pp_only_where_the_framework_runs_it(cat) -> None:
    m = lookup.model(cat, "llama-2-70b")
    req = make_request(model="llama-2-70b", task="full", tokens=1e8, zero=3, pp=2, **ALL_PRICES)
    r = plan(cat, m, req)
    assert r.plans and {p.framework for p in r.plans} == {"torchtitan"}
    for p in r.plans[:2]:
        e = estimate(cat, m, lookup.accelerator(cat, p.device), plan_workload(p, req))
        assert e.memory.needed_bytes == pytest.approx(p.memory_needed_bytes, rel=1e-9, abs=1.0)
        assert e.training is not None and e.training.train_tokens_per_s == pytest.approx(p.tokens_per_s, rel=1e-9)
    # pinned to DeepSpeed: every device is excluded naming the pins and DeepSpeed's stages
    ds = plan(cat, m, make_request(model="llama-2-70b", task="full", tokens=1e8, zero=3, pp=2, framework="deepspeed",
                                   **ALL_PRICES))
    assert not ds.plans
    assert any("ZeRO 0, 1" in str(w.get("reason", w)) for w in ds.why_not)
    # unpinned DeepSpeed plans never pair pp > 1 with ZeRO 2/3
    free = plan(cat, m, make_request(model="llama-2-70b", task="full", tokens=1e8, framework="deepspeed", **ALL_PRICES))
    assert all(p.pp == 1 or (p.zero or 0) <= 1 for p in free.plans)
