"""Task L (buyer review 2026-12-01): a training plan states what its speed takes on trust — scaling on an offer that
publishes no inter-node bandwidth ("assumed (bandwidth unpublished)"), communication the kernel hides entirely (with
what the same kernel exposes without overlap), an implied MFU above the device's published end-to-end MFU — and the
known training-throughput error applies to its hours as it does to serving TPOT: hours and cost corrected by the
pooled signed error (an MoE model: its stack's MoE cases) beside the estimate, demoted where they break the deadline
or budget."""

from __future__ import annotations

import datetime as dt

import pytest

from suanli.catalog import lookup
from suanli.estimate.estimate import LITTLE_EVIDENCE_CASES, ErrorBand, moe_stack_band, pooled_bias
from suanli.estimate.precision import peak_flops_per_s
from suanli.estimate.speed import training_speed_terms
from suanli.plan.request import make_request
from suanli.plan.search import _extras, plan, plan_workload
from suanli.plan.train_evidence import SCALING_ASSUMED, comm_figures, inter_node_basis, published_mfu, training_bias
from suanli.validate.bands import packaged_error_bands
from suanli.validate.report import CaseResult, summarize

TODAY = dt.date(2026, 12, 1)


def _ids(p) -> list[str]:  # type: ignore[no-untyped-def]
    return [w["id"] for w in p.warnings_i18n]


def _warn(p, wid: str) -> dict:  # type: ignore[no-untyped-def]
    return next(w for w in p.warnings_i18n if w["id"] == wid)


def _a100_pretrain(cat, model: str, max_gpus: int):  # type: ignore[no-untyped-def]
    """A Megatron pre-training plan on A100s (seq 4096, 1024 sequences per step) with every price kind."""
    req = make_request(model=model, task="pretrain", seq=4096, global_batch=1024, max_gpus=max_gpus,
                       tokens=1e10, devices=("a100-80g",), framework="megatron",
                       offer_kinds=("listing", "index", "reference"))
    m = lookup.model(cat, model)
    return cat, m, req, plan(cat, m, req, TODAY, error_bands=packaged_error_bands())


@pytest.fixture(scope="module")
def a100_256(cat):  # type: ignore[no-untyped-def]
    return _a100_pretrain(cat, "llama-3.3-70b", 256)


def test_unpublished_inter_node_bandwidth_marks_the_scaling_assumed(a100_256) -> None:  # type: ignore[no-untyped-def]
    cat, _, _, r = a100_256
    p = r.plans[0]
    assert p.gpus == 256 and p.inter_node_gbit_per_s is None  # SMM's IB cluster publishes no bandwidth
    assert p.scaling_basis == SCALING_ASSUMED == "assumed (bandwidth unpublished)"
    assert p.inter_node_link == "link-inter-a100-80g" and p.inter_node_bus_gb_per_s == 192.0
    line = next(a for a in r.assumptions_i18n if a["id"] == "plan.assume.scaling_unpublished")
    assert line["params"]["rank"] == p.rank and line["params"]["link"] == "link-inter-a100-80g"
    assert any("assumed (bandwidth unpublished)" in a for a in r.assumptions)
    acc = lookup.accelerator(cat, "a100-80g")
    assert inter_node_basis(cat, acc, 8, None) is None  # one node: nothing crosses nodes
    assert inter_node_basis(cat, acc, 256, 1600.0) is None  # a published bandwidth caps the link data instead


@pytest.fixture(scope="module")
def a100_8b(cat):  # type: ignore[no-untyped-def]
    return _a100_pretrain(cat, "llama-3.1-8b", 64)


def test_fully_hidden_communication_is_said_with_the_kernels_no_overlap_figure(a100_8b) -> None:  # type: ignore[no-untyped-def]
    # (the 70B on 256 A100s no longer hides all of it: its tp8 data-parallel reduce reaches one rail of eight)
    cat, m, req, r = a100_8b
    p = r.plans[0]
    acc = lookup.accelerator(cat, p.device)
    figs = comm_figures(cat, m, acc, plan_workload(p, req))
    assert figs["tokens_per_s"] == pytest.approx(p.tokens_per_s, rel=1e-9)  # the very kernel the search ran
    assert figs["comm_exposed_s"] == 0.0 and figs["comm_s"] > 0
    w = _warn(p, "plan.warn.comm_hidden")["params"]
    assert w["comm"] == pytest.approx(figs["comm_s"]) and p.comm_hidden_s == pytest.approx(figs["comm_s"])
    assert w["step_no"] == pytest.approx(w["step"] + figs["comm_s"])
    assert w["mfu_no"] < w["mfu"] and w["tok_no"] < p.tokens_per_s
    # the implied MFU: tokens/s x model FLOPs per token / (cards x dense peak)
    flops = training_speed_terms(m, plan_workload(p, req), cat).model_flops_per_token
    peak, _ = peak_flops_per_s(acc, p.precision)
    assert p.mfu == pytest.approx(p.tokens_per_s * flops / (p.gpus * peak))


def test_implied_mfu_above_the_published_end_to_end_one_is_warned_not_capped(a100_256) -> None:  # type: ignore[no-untyped-def]
    cat, _, _, r = a100_256
    p = r.plans[0]
    pub = published_mfu(cat, lookup.accelerator(cat, "a100-80g"))
    assert pub is not None and pub.value == 0.542 and pub.source == "eff-korthikanti-2022"
    assert p.mfu is not None and p.mfu > pub.value
    w = _warn(p, "plan.warn.mfu_above_published")["params"]
    assert w["published"] == 0.542 and w["mfu"] == pytest.approx(p.mfu) and w["source"] == "eff-korthikanti-2022"
    assert published_mfu(cat, lookup.accelerator(cat, "rtx-4090")) is None  # none published: no warning


def _mixtral(cat, bands, **pins):  # type: ignore[no-untyped-def]
    req = make_request(model="mixtral-8x7b", task="lora", tokens=1e8, devices=("ascend-910b3", "a100-80g"),
                       offer_kinds=("listing", "index", "reference"), **pins)
    return plan(cat, lookup.model(cat, "mixtral-8x7b"), req, TODAY, error_bands=bands)


def test_moe_training_hours_carry_the_stacks_moe_bias(cat) -> None:  # type: ignore[no-untyped-def]
    bands = packaged_error_bands()
    moe = moe_stack_band(bands, "cann", "training-throughput")
    parent = pooled_bias(bands, "cann", "training-throughput")
    assert moe is not None and moe.cases == 1 and moe.median_signed_pct and moe.median_signed_pct > 100
    pb, is_moe = training_bias(bands, "cann", True)
    k = LITTLE_EVIDENCE_CASES
    assert is_moe and pb is not None and parent is not None
    assert pb.bias_pct == pytest.approx((moe.median_signed_pct + k * parent.bias_pct) / (1 + k))
    dense, was_moe = training_bias(bands, "cann", False)
    assert not was_moe and dense == parent
    r = _mixtral(cat, bands)
    p = next(x for x in r.plans if x.device == "ascend-910b3")
    assert p.training_bias_pct == pytest.approx(pb.bias_pct)
    assert p.hours_if_bias == pytest.approx(p.hours + p.compute_hours * pb.bias_pct / 100)
    w = _warn(p, "plan.warn.hours_if_bias")["params"]
    assert w["evidence"]["id"] == "plan.evidence.moe_pooled" and w["bias"] == pytest.approx(pb.bias_pct)
    # CUDA's one MoE case is slower than estimated (-37 %): shrunk toward CUDA's own figure, no longer hours
    cuda = next(x for x in r.plans if x.device == "a100-80g")
    assert cuda.hours_if_bias is None and "plan.warn.hours_if_bias" not in _ids(cuda)


def test_corrected_hours_past_the_deadline_demote_the_plan(cat) -> None:  # type: ignore[no-untyped-def]
    bands = packaged_error_bands()
    base = _mixtral(cat, bands)
    assert [p.device for p in base.plans][:1] == ["ascend-910b3"]  # cheapest as estimated
    p = base.plans[0]
    calendar = p.hours + sum(p.migration_weeks) / 2 * 168
    slack = (p.hours_if_bias - p.hours) / 2  # the estimate meets it, the corrected hours do not
    r = _mixtral(cat, bands, deadline_hours=calendar + slack)
    q = next(x for x in r.plans if x.device == "ascend-910b3")
    assert q.hours == pytest.approx(p.hours)
    assert any(x["id"] == "plan.reason.deadline_bias" for x in _extras(q.reason_i18n))
    assert r.plans[0].device == "a100-80g" and q.rank > 1  # ranked after the plan that passes


def _case(i: int, stack: str, measured: float, default: float) -> CaseResult:
    return CaseResult(id=f"t{i}", group="training-throughput", source="s", metric="train_tokens_per_s",
                      measured=measured, default=default, seed=None, default_error=(default - measured) / measured,
                      seed_error=None, holdout=True, sample="out", stack=stack)


def test_corrected_cost_over_the_budget_demotes_the_plan(cat) -> None:  # type: ignore[no-untyped-def]
    # CUDA's training throughput estimated 50 % faster than measured on 5 held-out cases
    bands: dict[str, ErrorBand] = summarize([_case(i, "cuda", 100.0, 150.0) for i in range(5)])
    m = lookup.model(cat, "qwen2.5-7b")
    common = dict(model="qwen2.5-7b", task="lora", tokens=3e8, region="any", billing="hour",
                  offer_kinds=("listing", "index", "reference"))
    base = plan(cat, m, make_request(**common), TODAY, error_bands=bands)
    p = base.plans[0]
    assert p.training_bias_pct == pytest.approx(50.0) and p.cost_if_bias_cny and p.cost_if_bias_cny > p.cost_cny
    budget = (p.total_cost_cny + p.cost_if_bias_cny) / 2
    r = plan(cat, m, make_request(**common, budget_cny=budget), TODAY, error_bands=bands)
    q = next(x for x in r.plans if x.device == p.device and x.offer == p.offer)
    assert any(x["id"] == "plan.reason.budget_bias" for x in _extras(q.reason_i18n))


def test_hidden_communication_below_one_percent_of_the_step_is_not_a_warning(cat) -> None:  # type: ignore[no-untyped-def]
    """Buyer review 1 (2026-12-02): 7B LoRA on the 910B hid 0.004 s of a 2.6 s step and warned "a 2.6 s step instead
    of 2.6 s"; the figures stay on the plan, the sentence only where exposing it adds 1 % or more."""
    req = make_request(model="qwen2.5-7b", task="lora", tokens=1e8, domestic_only=True, top=10)
    result = plan(cat, lookup.model(cat, "qwen2.5-7b"), req, TODAY, error_bands=packaged_error_bands())
    quiet = 0
    for p in result.plans:
        warned = "plan.warn.comm_hidden" in _ids(p)
        if p.comm_hidden_s is None:
            assert not warned
            continue
        step = p.step_no_overlap_s - p.comm_hidden_s  # nothing exposed: the step with it hidden
        assert warned == (p.step_no_overlap_s >= 1.01 * step)
        quiet += not warned
    assert quiet > 0  # the buyer's row: communication hidden, too little to speak of
