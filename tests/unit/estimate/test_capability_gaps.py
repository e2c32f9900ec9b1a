"""Capability and set-up gaps a buyer hits (issues 11/12): torchtitan's DDP beside tensor parallelism, the plan
--framework help from frameworks.yaml, estimate's time to first serve, and a NeMo (Megatron Bridge) framework row.

- torchtitan replicates (DDP, ZeRO 0 over replicas) only as 1-D parallelism: parallelize_llama raises 'DDP has not
  supported > 1D parallelism' unless every rank is a replica (frameworks.yaml tp_zero_stages / pp_zero_stages,
  torchtitan-apply-fsdp). `estimate` and the planner grid apply the one rule (capability.zero_runs).
- NeMo runs SFT and PEFT LoRA on Megatron-Core with TP/PP (megatron-bridge-peft, nemo-2407-peft): a `nemo` row, to
  which the Megatron-Core efficiency rows apply as to `megatron` (EfficiencyFactor.framework may list ids)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog, EfficiencyFactor
from suanli.errors import InputError
from suanli.estimate.capability import tp_zero_runs, zero_framework, zero_runs
from suanli.estimate.efficiency import efficiency
from suanli.estimate.estimate import estimate
from suanli.estimate.memory import weights_bytes
from suanli.estimate.setup import job_setup, serve_setup_hours
from suanli.estimate.workload import make_workload
from suanli.plan.request import make_request
from suanli.plan.search import plan, plan_workload

ALL_PRICES = dict(region="any", offer_kinds=("listing", "index", "reference"))
VALIDATION = Path(__file__).resolve().parents[3] / "src" / "suanli" / "data" / "validation"


def _fw(cat: Catalog, fid: str) -> Any:
    return next(f for f in cat.frameworks if f.id == fid)


def _est(cat: Catalog, model: str, gpu: str, **kw: Any) -> Any:
    return estimate(cat, lookup.model(cat, model), lookup.accelerator(cat, gpu), make_workload(**kw))


# ---------------------------------------------------------------------------------------- torchtitan DDP beside TP


def test_torchtitan_data_says_ddp_runs_alone(cat: Catalog) -> None:
    tt, mg = _fw(cat, "torchtitan"), _fw(cat, "megatron")
    assert tt.tp_zero_stages == (3,) and tt.tp_zero_source == "torchtitan-apply-fsdp"
    assert mg.tp_zero_stages is None  # Megatron: the distributed optimizer and plain DP both run beside TP
    assert {"torchtitan-apply-fsdp", "torchtitan-parallel-dims"} <= set(cat.sources)
    tp, dp, zero = np.array([1, 2, 2, 2, 2]), np.array([4, 4, 1, 4, 4]), np.array([0, 0, 0, 3, 1])
    assert list(tp_zero_runs(tt, tp, dp, zero)) == [True, False, True, True, False]
    mg_zero = np.array([0, 0, 0, 1, 1])  # Megatron's own stages (the distributed optimizer is ZeRO 1)
    assert list(tp_zero_runs(mg, tp, dp, mg_zero)) == [True, True, True, True, True]
    # both rules at once: ZeRO 0 over replicas beside neither TP nor PP only
    assert bool(zero_runs(tt, 1, 1, 8, 0)) and not bool(zero_runs(tt, 2, 1, 4, 0)) and not bool(zero_runs(tt, 1, 2, 4, 0))
    assert bool(zero_runs(tt, 2, 2, 2, 3)) and bool(zero_runs(tt, 2, 2, 1, 0))


def test_estimate_refuses_torchtitan_tp_with_ddp_in_one_line(cat: Catalog) -> None:
    with pytest.raises(InputError) as ei:
        _est(cat, "llama-2-13b", "h100", task="full", gpus=8, tp=2, zero=0, framework="torchtitan")
    msg = str(ei.value)
    assert ei.value.field == "zero" and "\n" not in msg
    assert "--tp 2" in msg and "4 data-parallel replicas" in msg and "ZeRO 3" in msg and "torchtitan-apply-fsdp" in msg
    # what torchtitan runs: FSDP2 beside TP, or TP alone with no replicas
    _est(cat, "llama-2-13b", "h100", task="full", gpus=8, tp=2, zero=3, framework="torchtitan")
    _est(cat, "llama-2-13b", "h100", task="full", gpus=2, tp=2, zero=0, framework="torchtitan")
    _est(cat, "llama-2-13b", "h100", task="full", gpus=8, tp=1, zero=0, framework="torchtitan")  # DDP alone
    # Megatron runs plain data parallelism beside TP; unpinned, a framework that runs it is found
    _est(cat, "llama-2-13b", "h100", task="full", gpus=8, tp=2, zero=0, framework="megatron")
    fw, problem = zero_framework(cat.frameworks, "full", "cuda", 2, 1, 4, 0)
    assert problem is None and fw is not None and fw.id != "torchtitan"


def test_planner_never_proposes_torchtitan_tp_with_ddp(cat: Catalog) -> None:
    m = lookup.model(cat, "llama-2-13b")
    req = make_request(model="llama-2-13b", task="full", tokens=1e8, framework="torchtitan", **ALL_PRICES)
    r = plan(cat, m, req)
    assert r.plans
    for p in r.plans:
        dp = p.gpus // (p.tp * p.pp)
        assert not (dp > 1 and (p.tp > 1 or p.pp > 1) and (p.zero or 0) == 0), (p.tp, p.pp, p.gpus, p.zero)
    # pinned: --tp 2 --zero 0 on 8 cards under torchtitan is excluded naming the rule; on 2 cards (no replicas) it runs
    pinned = plan(cat, m, make_request(model="llama-2-13b", task="full", tokens=1e8, framework="torchtitan", tp=2,
                                       zero=0, gpus=8, **ALL_PRICES))
    assert not pinned.plans
    assert any("with --tp: ZeRO 3 only" in str(w.get("reason", w)) for w in pinned.why_not)
    alone = plan(cat, m, make_request(model="llama-2-13b", task="full", tokens=1e7, framework="torchtitan", tp=2,
                                      zero=0, gpus=2, recompute="full", **ALL_PRICES))
    assert all(p.tp == 2 and p.gpus == 2 for p in alone.plans)


# ---------------------------------------------------------------------------------------- plan --framework help


def test_plan_framework_help_lists_every_framework_row(cat: Catalog) -> None:
    from suanli.cli.plan_cmd import _framework_help

    text = _framework_help()
    for f in cat.frameworks:
        assert f.id in text, f.id
    assert "torchtitan" in text and "nemo" in text


# ---------------------------------------------------------------------------------------- time to first serve


def test_estimate_reports_time_to_first_serve(cat: Catalog) -> None:
    m = lookup.model(cat, "llama-2-7b")
    e = _est(cat, "llama-2-7b", "h100", task="inference", precision="bf16")
    want = serve_setup_hours(job_setup(cat), weights_bytes(m, "bf16"))
    assert e.first_serve_hours is not None
    assert e.first_serve_hours["total_h"] == pytest.approx(float(want["total_h"]))
    t = e.contract()["time"]
    assert t["first_serve_hours"] == pytest.approx(float(want["total_h"]))
    assert set(t["first_serve_breakdown_hours"]) == {"environment_h", "download_h", "load_h"}
    assert "hours" not in t  # no tokens: no generation time
    # with tokens to generate, the first serve is on top (as a serving plan with a horizon bills it)
    e2 = _est(cat, "llama-2-7b", "h100", task="inference", precision="bf16", tokens=1e6)
    t2 = e2.contract()["time"]
    assert t2["total_hours"] == pytest.approx(t2["hours"] + t2["first_serve_hours"])
    # a faster download shortens it by the formula's download term only
    e3 = _est(cat, "llama-2-7b", "h100", task="inference", precision="bf16", download_gbit_per_s=10.0)
    assert e3.first_serve_hours is not None
    assert e3.first_serve_hours["download_h"] == pytest.approx(e.first_serve_hours["download_h"] / 10)
    # training has no first serve
    assert _est(cat, "llama-2-7b", "h100", task="lora").first_serve_hours is None


def test_serving_plan_first_serve_equals_the_estimate(cat: Catalog) -> None:
    m = lookup.model(cat, "llama-2-7b")
    req = make_request(model="llama-2-7b", task="inference", requests_per_s=2, hours=100, **ALL_PRICES)
    r = plan(cat, m, req)
    assert r.plans
    for p in r.plans[:3]:
        e = estimate(cat, m, lookup.accelerator(cat, p.device), plan_workload(p, req))
        assert p.first_serve_hours is not None and e.first_serve_hours is not None
        assert e.first_serve_hours["total_h"] == pytest.approx(p.first_serve_hours, rel=1e-9)


def test_api_estimate_response_carries_first_serve(cat: Catalog) -> None:
    from suanli.views.estimates import EstimateJson

    e = _est(cat, "llama-2-7b", "h100", task="inference", precision="bf16")
    j = EstimateJson.model_validate(e.contract())
    assert j.time.first_serve_hours == pytest.approx(e.contract()["time"]["first_serve_hours"])
    assert j.time.first_serve_breakdown_hours is not None


# ---------------------------------------------------------------------------------------- NeMo / Megatron Bridge


def test_nemo_row_runs_lora_on_megatron_core_layouts(cat: Catalog) -> None:
    nemo, mg = _fw(cat, "nemo"), _fw(cat, "megatron")
    assert "lora" in nemo.tasks and "lora" not in mg.tasks
    assert nemo.tp and nemo.pp and nemo.vpp and nemo.fp8 and nemo.stacks == ("cuda",)
    assert nemo.zero_stages == (0, 1) and nemo.default_for == ()
    assert {"megatron-bridge-peft", "nemo-2407-peft", "megatron-bridge-mixed-precision"} <= set(cat.sources)
    # LoRA with a pinned tensor-parallel size: NeMo runs it where LLaMA-Factory cannot
    m = lookup.model(cat, "llama-2-70b")
    req = make_request(model="llama-2-70b", task="lora", tokens=1e7, tp=2, **ALL_PRICES)
    r = plan(cat, m, req)
    assert r.plans and {p.framework for p in r.plans} == {"nemo"}
    p = r.plans[0]
    e = estimate(cat, m, lookup.accelerator(cat, p.device), plan_workload(p, req))
    assert e.training is not None and e.training.train_tokens_per_s == pytest.approx(p.tokens_per_s, rel=1e-9)
    # unpinned LoRA keeps the default framework
    free = plan(cat, m, make_request(model="llama-2-70b", task="lora", tokens=1e7, **ALL_PRICES))
    assert "nemo" not in {p.framework for p in free.plans}


def test_megatron_core_rows_apply_to_nemo_and_megatron_only(cat: Catalog) -> None:
    h100 = lookup.accelerator(cat, "h100-sxm")
    for fw in ("megatron", "nemo"):
        assert efficiency(cat, h100, "train_mfu", "bf16", framework=fw).factor_id == "mfu-hopper-megatron"
        assert efficiency(cat, h100, "train_mfu", "fp8", framework=fw).factor_id == "mfu-hopper-megatron-fp8"
    for other in (None, "torchtitan", "llama-factory"):
        assert efficiency(cat, h100, "train_mfu", "bf16", framework=other).factor_id == "mfu-hopper"
    row = next(f for f in cat.efficiency if f.id == "mfu-hopper-megatron")
    assert row.framework_ids == ("megatron", "nemo") and row.value == 0.59  # the fitted value, unchanged
    # a single id still works as before
    one = EfficiencyFactor(id="x", metric="train_mfu", family="hopper", framework="nemo", value=0.5, source="assumed")
    assert one.framework_ids == ("nemo",)
    only = cat.model_copy(update={"efficiency": (*cat.efficiency, one)})
    assert efficiency(only, h100, "train_mfu", "bf16", framework="nemo").factor_id in ("x", "mfu-hopper-megatron")
    assert efficiency(only, h100, "train_mfu", "bf16", framework="megatron").factor_id == "mfu-hopper-megatron"


def test_nemo_finetuning_cases_name_the_framework_their_source_ran() -> None:
    cases = yaml.safe_load((VALIDATION / "published_cases_2026_11.yaml").read_text(encoding="utf-8"))["cases"]
    tuned = [c for c in cases if c["id"].startswith("c2611-nemo2407-") and ("-sft-" in c["id"] or "-lora-" in c["id"])]
    assert len(tuned) == 6 and all(c["framework"] == "nemo" and c["holdout"] for c in tuned)
    pre = [c for c in cases if c["id"].startswith("c2611-nemo2407-") and "-pretrain-" in c["id"]]
    assert pre and all(c["framework"] == "megatron" for c in pre)
