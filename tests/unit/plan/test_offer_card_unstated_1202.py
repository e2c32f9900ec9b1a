"""Buyer review 2026-12-02 #2: 云擎天下's 8 × A100 80G node does not say SXM or PCIe, its 8 × A800 node neither that nor
the memory size, and both were planned as the SXM4 NVLink part with no caveat, while the same layout on the PCIe
card misses the TPOT target. Such an offer (`Offer.unstated`) is planned on its `device`, and the plan says which
part that assumes and what the layout gives on each part it may be (`Offer.may_be`, re-estimated as a 910B offer
without its variant is), or that the catalog has none to estimate it on."""

from __future__ import annotations

import datetime as dt

import pytest
from pydantic import ValidationError

from suanli.catalog import lookup
from suanli.catalog.schema import Offer
from suanli.estimate.estimate import estimate
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan, plan_workload

TODAY = dt.date(2026, 12, 2)


def _buyer(cat, device: str, region: str = "cn"):  # type: ignore[no-untyped-def]
    # the buyer's request: qwen2.5-72b for 100 users within TPOT 50 ms and TTFT 2 s
    req = make_request(model="qwen2.5-72b", task="inference", concurrent_users=100, tpot_s=0.05, ttft_s=2.0,
                       devices=(device,), region=region)
    r = plan(cat, lookup.model(cat, "qwen2.5-72b"), req, TODAY)
    return r, r.plans[0]


def test_the_catalog_rows_say_what_their_listings_leave_out(cat) -> None:  # type: ignore[no-untyped-def]
    a100 = next(o for o in cat.offers if o.id == "omniyq-a100-80g-8card-month")
    a800 = next(o for o in cat.offers if o.id == "omniyq-a800-8card-month")
    assert (a100.device, a100.unstated, a100.may_be) == ("a100-80g", ("form_factor",), ("a100-80g-pcie",))
    assert (a800.device, a800.unstated, a800.may_be) == ("a800", ("form_factor", "memory_size"), ())
    assert lookup.accelerator(cat, "a100-80g").form_factor == "sxm"
    assert lookup.accelerator(cat, "a100-80g-pcie").form_factor == "pcie"


def test_the_a100_node_says_the_sxm_part_is_assumed_and_what_the_pcie_card_gives(cat) -> None:  # type: ignore[no-untyped-def]
    r, p = _buyer(cat, "a100-80g")
    assert p.offer == "omniyq-a100-80g-8card-month" and p.device == "a100-80g"
    j = next(x for x in p.warnings_i18n if x["id"] == "plan.warn.card_unstated")
    w = render(Message.from_json(j))
    assert f"offer {p.offer} does not say the card's form factor (SXM or PCIe)" in w
    assert "specs assume the NVIDIA A100 SXM4 80GB (80 GiB, 2.039 TB/s, NVLink 3.0 + NVSwitch)" in w
    # the PCIe figure is the estimator's on that card, same layout, judged on the TPOT the plan's row is judged on
    e = estimate(cat, lookup.model(cat, "qwen2.5-72b"), lookup.accelerator(cat, "a100-80g-pcie"),
                 plan_workload(p, r.request))
    assert e.memory.fits and e.inference is not None
    (outcome,) = j["params"]["outcomes"]
    assert outcome["id"] == "plan.variant.serve"
    assert outcome["params"]["tpot_ms"] == pytest.approx(e.inference.tpot_steady_s * 1000)
    assert p.tpot_s is not None and p.tpot_s < 0.05 < e.inference.tpot_steady_s  # SXM meets it, PCIe does not
    assert "NVIDIA A100 PCIe 80GB (80 GiB, 1.935 TB/s): fits" in w and "misses the TPOT target" in w
    assert "form factor (SXM or PCIe) not stated: NVIDIA A100 SXM4 80GB specs assumed" in p.reason
    zh = render(Message.from_json(j), "zh")
    assert "未写明卡的形态（SXM 或 PCIe）" in zh and "NVIDIA A100 PCIe 80GB" in zh and "达不到 TPOT 目标" in zh


def test_the_a800_node_says_the_catalog_has_no_other_part_to_estimate(cat) -> None:  # type: ignore[no-untyped-def]
    _, p = _buyer(cat, "a800")
    assert p.offer == "omniyq-a800-8card-month"
    j = next(x for x in p.warnings_i18n if x["id"] == "plan.warn.card_unstated_alone")
    w = render(Message.from_json(j))
    assert "does not say the card's form factor (SXM or PCIe) and memory size" in w
    assert "specs assume the NVIDIA A800 SXM4 80GB" in w and "ask the provider which card it rents" in w
    assert "形态（SXM 或 PCIe）和显存容量" in render(Message.from_json(j), "zh")


def test_an_offer_that_states_its_card_does_not_warn(cat) -> None:  # type: ignore[no-untyped-def]
    # the same device on offers without `unstated` (AWS's p4de, RunPod's SXM row …: region any)
    stated = tuple(o for o in cat.offers if o.id != "omniyq-a100-80g-8card-month")
    r, p = _buyer(cat.model_copy(update={"offers": stated}), "a100-80g", "any")
    assert p.device == "a100-80g" and p.offer != "omniyq-a100-80g-8card-month"
    assert not any(x["id"].startswith("plan.warn.card_unstated") for q in r.plans for x in q.warnings_i18n)


def test_may_be_needs_unstated_and_a_catalog_part(cat) -> None:  # type: ignore[no-untyped-def]
    row = next(o for o in cat.offers if o.id == "omniyq-a100-80g-8card-month").model_dump()
    with pytest.raises(ValidationError, match="may_be needs unstated"):
        Offer.model_validate({**row, "unstated": ()})
    with pytest.raises(ValidationError):
        Offer.model_validate({**row, "unstated": ("colour",)})
