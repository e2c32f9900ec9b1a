"""The planner tries what teams do to fit a full fine-tune on too few cards (buyer review: 70B full on 8x 80 GB):
DeepSpeed ZeRO-Offload and bitsandbytes' 8-bit AdamW, only where plain AdamW does not fit the same cards, with the
offload's CPU Adam step and PCIe copy charged by the one training kernel that estimate uses."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.estimate.estimate import estimate
from suanli.plan.request import make_request
from suanli.plan.search import plan, plan_workload

ALL = dict(region="any", offer_kinds=("listing", "index", "reference"))


def test_70b_full_fits_8x_80gb_with_optimizer_offload(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "llama-3.1-70b")
    r = plan(cat, m, make_request(model="llama-3.1-70b", task="full", tokens=1e9, budget_cny=200000,
                                  devices=("h800", "a100-80g")))
    assert r.plans, r.why_not
    p = r.plans[0]
    assert p.gpus == 8 and p.offload_optimizer and p.optimizer == "adamw" and p.zero in (1, 2, 3)
    assert p.framework in ("deepspeed", "llama-factory")
    assert "ZeRO-Offload" in p.reason and "does not fit" in p.reason
    # estimate reproduces it through the same kernels, offload term included
    e = estimate(cat, m, lookup.accelerator(cat, p.device), plan_workload(p, r.request))
    assert e.training is not None and e.memory.fits
    assert e.training.train_tokens_per_s == pytest.approx(p.tokens_per_s, rel=1e-9)
    assert e.memory.needed_bytes == pytest.approx(p.memory_needed_bytes, rel=1e-9, abs=1.0)


def test_offload_is_charged_its_cpu_adam_and_pcie_time(cat) -> None:  # type: ignore[no-untyped-def]
    """Hand arithmetic: 8x H800 (PCIe 5.0 x16, 63 GB/s), ZeRO-3 dp 8: each rank's shard is P/8; the node's CPU steps
    all 8 shards at 2.57e-10 s per parameter (ZeRO-Offload Table 2), and each rank copies 2 bytes x P/8 back."""
    from suanli.estimate.params import param_count
    from suanli.estimate.workload import make_workload

    m = lookup.model(cat, "llama-3.1-70b")
    acc = lookup.accelerator(cat, "h800")
    kw = dict(task="full", gpus=8, zero=3, recompute="full", framework="deepspeed", tokens=1e9)
    on = estimate(cat, m, acc, make_workload(offload_optimizer=True, **kw)).training
    off = estimate(cat, m, acc, make_workload(**kw)).training
    assert on is not None and off is not None
    p = param_count(m).total
    expected = p / 8 * 8 * 2.57e-10 + 2.0 * p / 8 / 63.0e9
    assert on.step_time_s - off.step_time_s == pytest.approx(expected, rel=1e-9)


def test_plain_adamw_is_kept_where_it_fits(cat) -> None:  # type: ignore[no-untyped-def]
    """A 7B full fine-tune fits plainly on 8x 80 GB: no offload or 8-bit plan on those cards."""
    m = lookup.model(cat, "llama-2-7b")
    r = plan(cat, m, make_request(model="llama-2-7b", task="full", tokens=1e8, devices=("a100-80g",), gpus=8, **ALL))
    assert r.plans
    assert all(not p.offload_optimizer and p.optimizer == "adamw" for p in r.plans)


def test_8bit_adam_only_on_cuda_and_unsharded(cat) -> None:  # type: ignore[no-untyped-def]
    """bitsandbytes' 8-bit AdamW: CUDA only, ZeRO 0; a 7B full fine-tune on one 80 GB card needs it (or offload)."""
    m = lookup.model(cat, "llama-2-7b")
    r = plan(cat, m, make_request(model="llama-2-7b", task="full", tokens=1e7, gpus=1, framework="peft",
                                  devices=("a100-80g", "ascend-910b"), **ALL))
    for p in r.plans:
        assert p.optimizer == "adamw8bit" and p.zero == 0 and p.device == "a100-80g"
        assert "8-bit AdamW" in p.reason
    assert all(p.device != "ascend-910b" for p in r.plans)


def test_lora_plans_never_use_the_measures(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    r = plan(cat, m, make_request(model="qwen2.5-7b", task="lora", tokens=1e8, **ALL))
    assert r.plans and all(not p.offload_optimizer and p.optimizer == "adamw" for p in r.plans)
