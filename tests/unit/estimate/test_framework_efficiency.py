"""Training-framework efficiency rows (issue 12): a train_mfu row may name a framework (frameworks.yaml id); it applies
only to workloads run under that framework. mfu-hopper-megatron is fitted to NVIDIA's DGX Cloud Benchmarking BF16 rows
(NeMo 24.09, Megatron-Core) in src/suanli/data/validation/published_cases_fp8_train.yaml; its FP8 row is derived."""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any

import pytest
import yaml

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.estimate.efficiency import efficiency
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.plan.request import make_request
from suanli.plan.search import plan, plan_workload
from suanli.validate.report import _planner_case, _predict, case_workload_kwargs

VALIDATION = Path(__file__).resolve().parents[3] / "src" / "suanli" / "data" / "validation"
FIT_CASES = (
    "fp8t-dgxc2409-h100-llama3.1-8b-pretrain-bf16-8gpu-tp1-pp1-cp2",
    "fp8t-dgxc2409-h100-llama3.1-70b-pretrain-bf16-64gpu-tp4-pp4-cp2",
    "fp8t-dgxc2409-h100-llama3.1-405b-pretrain-bf16-576gpu-tp8-pp9-cp2",
)


def _cases(name: str) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in yaml.safe_load((VALIDATION / name).read_text(encoding="utf-8"))["cases"]}


def _row(cat: Catalog, fid: str) -> Any:
    return next(f for f in cat.efficiency if f.id == fid)


def test_selection_by_framework(cat: Catalog) -> None:
    h100, a100, b910 = (lookup.accelerator(cat, d) for d in ("h100-sxm", "a100-80g", "ascend-910b"))
    assert efficiency(cat, h100, "train_mfu", "bf16", framework="megatron").factor_id == "mfu-hopper-megatron"
    assert efficiency(cat, h100, "train_mfu", "fp16", framework="megatron").factor_id == "mfu-hopper-megatron"
    assert efficiency(cat, h100, "train_mfu", "fp8", framework="megatron").factor_id == "mfu-hopper-megatron-fp8"
    # no framework, or another one: today's rows
    for fw in (None, "torchtitan", "deepspeed"):
        assert efficiency(cat, h100, "train_mfu", "bf16", framework=fw).factor_id == "mfu-hopper"
        assert efficiency(cat, h100, "train_mfu", "fp8", framework=fw).factor_id == "mfu-hopper-fp8"
    assert efficiency(cat, h100, "train_mfu", "bf16").factor_id == "mfu-hopper"
    # other families have no megatron / mindspeed row: unchanged
    assert efficiency(cat, a100, "train_mfu", "bf16", framework="megatron").factor_id == "mfu-ampere"
    assert efficiency(cat, b910, "train_mfu", "bf16", framework="mindspeed").factor_id == "mfu-910b"


def test_a_framework_row_ranks_below_a_precision_match(cat: Catalog) -> None:
    """Without its FP8 row, Megatron FP8 on Hopper falls back to the precision-specific family row, not to the
    framework's BF16-fitted one (whose value on the FP8 peak would halve the speed)."""
    h100 = lookup.accelerator(cat, "h100-sxm")
    rows = tuple(f for f in cat.efficiency if f.id != "mfu-hopper-megatron-fp8")
    no_fp8 = cat.model_copy(update={"efficiency": rows})
    assert efficiency(no_fp8, h100, "train_mfu", "fp8", framework="megatron").factor_id == "mfu-hopper-fp8"
    # a measured override for the device still wins over the framework row
    over = _row(cat, "mfu-hopper").model_copy(update={"id": "calibrated", "device": "h100-sxm", "value": 0.5})
    assert efficiency(cat, h100, "train_mfu", "bf16", overrides=(over,), framework="megatron").factor_id == "calibrated"


def test_fp8_row_is_derived_from_the_bf16_fit(cat: Catalog) -> None:
    """mfu-hopper-megatron-fp8 = mfu-hopper-megatron x 1.34 / 2 (torchao's float8 ratio on a peak twice the BF16 one),
    the composition of mfu-hopper-fp8; not fitted to the FP8 rows."""
    bf16, fp8 = _row(cat, "mfu-hopper-megatron"), _row(cat, "mfu-hopper-megatron-fp8")
    assert fp8.value == pytest.approx(bf16.value * 1.34 / 2, abs=5e-4)
    assert _row(cat, "mfu-hopper-fp8").value == pytest.approx(_row(cat, "mfu-hopper").value * 1.34 / 2, abs=5e-4)
    for c in _cases("published_cases_fp8_train.yaml").values():
        assert c["framework"] == "megatron"
        assert c["fitted"] == (["mfu-hopper-megatron"] if c["id"] in FIT_CASES else ["development-set"]), c["id"]


def test_fit_is_the_grid_minimum_on_its_rows(cat: Catalog) -> None:
    """0.59 minimises the mean |log error| over the three in-sample BF16 rows (scripts/fit_engine_factors.py, step
    0.005), each within 7 % (-0.7, +6.5, +0.4 % since each group gets its ranks-per-node share of the NICs; within 5 %
    before); none of them is held out."""
    cases = _cases("published_cases_fp8_train.yaml")

    def loss(v: float) -> tuple[float, list[float]]:
        ov = (_row(cat, "mfu-hopper-megatron").model_copy(update={"value": v}),)
        errs = []
        for cid in FIT_CASES:
            c = cases[cid]
            assert not c.get("holdout")
            e = estimate(cat, lookup.model(cat, c["model"]), lookup.accelerator(cat, c["device"]),
                         make_workload(**case_workload_kwargs(c)), overrides=ov, strict_context=False)
            assert e.training is not None
            errs.append(e.training.train_tokens_per_s / c["measured"]["train_tokens_per_s"] - 1)
        return statistics.fmean(abs(math.log1p(x)) for x in errs), errs

    v = _row(cat, "mfu-hopper-megatron").value
    here, errs = loss(v)
    assert all(abs(x) < 0.07 for x in errs)
    assert here <= loss(v - 0.005)[0] and here <= loss(v + 0.005)[0]


def test_a_case_with_a_stated_layout_carries_its_framework(cat: Catalog) -> None:
    """A case's `framework` beside a stated layout goes into the workload (not the planner path) and selects the
    framework's row; without it the case is estimated as before."""
    c = _cases("published_cases_fp8_train.yaml")[FIT_CASES[0]]
    assert not _planner_case(c) and case_workload_kwargs(c)["framework"] == "megatron"
    bare = {k: v for k, v in c.items() if k != "framework"}
    assert "framework" not in case_workload_kwargs(bare)
    _, with_fw = _predict(cat, c, "default", VALIDATION)
    _, without = _predict(cat, bare, "default", VALIDATION)
    assert with_fw is not None and without is not None
    # an 8-card compute-bound run: the speed follows the two rows' ratio (0.59 / 0.465)
    ratio = _row(cat, "mfu-hopper-megatron").value / _row(cat, "mfu-hopper").value
    assert with_fw / without == pytest.approx(ratio, rel=0.02) and with_fw > without
    e = estimate(cat, lookup.model(cat, c["model"]), lookup.accelerator(cat, c["device"]),
                 make_workload(**case_workload_kwargs(c)), strict_context=False)
    assert e.training is not None and e.training.efficiencies[0].factor_id == "mfu-hopper-megatron"
    assert _planner_case({**bare, "layout": "unstated", "framework": "mindspeed"})


def test_no_framework_keeps_todays_estimate(cat: Catalog) -> None:
    m, h100 = lookup.model(cat, "llama-2-7b"), lookup.accelerator(cat, "h100-sxm")
    # ZeRO 0: the stage both run (torchtitan runs ZeRO 0 and 3, Megatron 0 and 1; estimate refuses the others)
    kw = dict(task="pretrain", precision="bf16", gpus=8, seq=4096, batch=1, grad_accum=16, zero=0)
    base = estimate(cat, m, h100, make_workload(**kw))
    tt = estimate(cat, m, h100, make_workload(**kw, framework="torchtitan"))
    meg = estimate(cat, m, h100, make_workload(**kw, framework="megatron"))
    assert base.training is not None and tt.training is not None and meg.training is not None
    assert base.training.efficiencies[0].factor_id == "mfu-hopper"
    assert tt.training.train_tokens_per_s == base.training.train_tokens_per_s
    assert meg.training.train_tokens_per_s > base.training.train_tokens_per_s


@pytest.mark.parametrize("framework", ["megatron", "deepspeed", "torchtitan"])
def test_planner_and_estimate_agree_per_framework(cat: Catalog, framework: str) -> None:
    """The planner searches each framework's layouts with that framework's train_mfu row, and `estimate` of the
    plan's workload (which names the framework) gives the same tokens/s."""
    m = lookup.model(cat, "llama-2-7b")
    req = make_request(model="llama-2-7b", task="pretrain", tokens=1e9, seq=4096, global_batch=128, top=3,
                       devices=("h100-sxm",), framework=framework, region="any",
                       offer_kinds=("listing", "index", "reference"))
    r = plan(cat, m, req)
    assert r.plans
    for p in r.plans:
        assert p.framework == framework
        e = estimate(cat, m, lookup.accelerator(cat, p.device), plan_workload(p, req))
        assert e.training is not None
        assert e.training.train_tokens_per_s == pytest.approx(p.tokens_per_s, rel=1e-9)
        want = {"megatron": "mfu-hopper-megatron"}.get(framework, "mfu-hopper")
        if p.precision == "fp8":
            want += "-fp8"
        assert e.training.efficiencies[0].factor_id == want
