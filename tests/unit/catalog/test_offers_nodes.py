"""Issue 11, nodes and clusters: node offers with their published inter-node fabric, the planner's multi-node plans
built only from them, and every seed device either planned or explained with the figure that is missing."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.catalog.offers import (
    can_span_nodes,
    multi_node_gap,
    network_label,
    scope_label,
    unpriced_reason,
    usable_offers,
)
from suanli.catalog.schema import Offer
from suanli.estimate.scaling import link_for
from suanli.plan.request import make_request
from suanli.plan.search import plan

SEED_DEVICES = ("rtx-4090", "a100-80g", "h100-sxm", "h20", "ascend-910b", "hygon-k100", "mlu590", "metax-c500")
AWS_NODES = {"aws-p5-48xlarge-hour": 3200, "aws-p4de-24xlarge-hour": 400, "aws-p4d-24xlarge-hour": 400}


def _offer(**kw):  # type: ignore[no-untyped-def]
    base = dict(id="x", provider="p", device="h100-sxm", cards=8, billing_unit="hour",
                price_cny={"value": 100.0, "source": "s"}, date="2026-11", source="s", scope="node")
    base.update(kw)
    return Offer.model_validate(base)


def test_efa_is_an_inter_node_network_that_spans_nodes() -> None:
    o = _offer(inter_node_network="efa", inter_node_gbit_per_s={"value": 3200, "source": "s"})
    assert can_span_nodes(o)
    assert network_label(o) == "EFA 3,200 Gbit/s per node"
    assert scope_label(o) == "8-card nodes (EFA 3,200 Gbit/s per node)"
    assert can_span_nodes(_offer(scope="cluster", inter_node_network="efa"))
    assert not can_span_nodes(_offer())  # a node without a fabric holds one node's cards


@pytest.mark.parametrize("bad", ["ethernet", "EFA", "nvlink"])
def test_unknown_network_names_the_allowed_values(bad: str) -> None:
    with pytest.raises(ValueError, match="efa"):
        _offer(inter_node_network=bad)


def test_aws_node_offers_carry_their_published_efa_bandwidth(cat) -> None:  # type: ignore[no-untyped-def]
    offers = {o.id: o for o in cat.offers}
    sources = cat.sources
    for oid, gbit in AWS_NODES.items():
        o = offers[oid]
        assert (o.scope, o.inter_node_network, o.cards) == ("node", "efa", 8)
        assert o.inter_node_gbit_per_s is not None and o.inter_node_gbit_per_s.value == gbit
        src = sources[o.inter_node_gbit_per_s.values[0].source]
        assert src.url and "docs.aws.amazon.com" in src.url and src.kind == "vendor-doc"
        assert can_span_nodes(o)
    assert "aws-ofi-nccl" in sources  # why EFA carries NCCL collectives


def test_an_inter_node_link_applies_to_every_device_with_a_spanning_offer(cat) -> None:  # type: ignore[no-untyped-def]
    for o in cat.offers:
        if can_span_nodes(o):
            link = link_for(cat, lookup.accelerator(cat, o.device), "inter-node")
            assert link.bus_gb_per_s.value > 0
    # the p5's 3200 Gbit/s per node (400 Gbit/s per GPU) is the 8x400G row the H100 uses
    assert link_for(cat, lookup.accelerator(cat, "h100-sxm"), "inter-node").id == "link-inter-ib-ndr-8x400"


def test_acceptance_70b_full_fine_tune_on_32_plus_cards_names_the_node_offer_and_network(cat) -> None:  # type: ignore[no-untyped-def]
    req = make_request(model="llama-3.1-70b", task="full", tokens=1e9, region="any", objective="fastest")
    r = plan(cat, lookup.model(cat, "llama-3.1-70b"), req)
    big = [p for p in r.plans if p.gpus >= 32]
    assert big, [(p.device, p.gpus) for p in r.plans]
    offers = {o.id: o for o in cat.offers}
    for p in big:
        o = offers[p.offer]
        assert can_span_nodes(o)
        assert any(p.offer in w and network_label(o) in w for w in p.warnings), p.warnings


def test_single_card_listings_never_make_a_multi_node_plan(cat) -> None:  # type: ignore[no-untyped-def]
    offers = {o.id: o for o in cat.offers}
    for region in ("cn", "any"):
        req = make_request(model="llama-3.1-70b", task="full", tokens=1e9, region=region, objective="fastest",
                           offer_kinds=("listing", "index", "reference"), top=20)
        r = plan(cat, lookup.model(cat, "llama-3.1-70b"), req)
        for p in r.plans:
            if p.gpus > lookup.accelerator(cat, p.device).max_cards_per_node:
                assert can_span_nodes(offers[p.offer]), p.offer


def test_in_cn_the_why_not_says_no_offer_spans_nodes_and_that_none_is_public(cat) -> None:  # type: ignore[no-untyped-def]
    kinds = ("listing", "index", "reference")
    req = make_request(model="llama-3.1-70b", task="full", tokens=1e9, offer_kinds=kinds)
    r = plan(cat, lookup.model(cat, "llama-3.1-70b"), req)
    why = {w["device"]: w["reason"] for w in r.why_not}
    # Megatron (no optimizer offload, unlike DeepSpeed): 8 H100s cannot hold a 70B full fine-tune, a second node is needed
    meg = plan(cat, lookup.model(cat, "llama-3.1-70b"),
               make_request(model="llama-3.1-70b", task="full", tokens=1e9, offer_kinds=kinds, framework="megatron"))
    why["h100-sxm"] = {w["device"]: w["reason"] for w in meg.why_not}["h100-sxm"]
    for dev in ("h100-sxm", "ascend-910b"):
        assert "no offer used can span nodes" in why[dev] and "no public" in why[dev], why[dev]
    assert "AWS p5.48xlarge" in why["h100-sxm"]  # where to go instead (--region any)
    # the only Chinese fabrics with a price are SMM index quotes (offers-3.yaml): A100 80GB on InfiniBand, H200 on
    # IB/RoCE; every multi-node plan uses one of them, never a listing
    offers = {o.id: o for o in cat.offers}
    multi = [p for p in meg.plans if p.gpus > 8]
    assert multi and all(can_span_nodes(offers[p.offer]) and offers[p.offer].kind == "index" for p in multi)
    assert {offers[p.offer].device for p in multi} <= {"a100-80g", "h200"}


def test_with_listings_only_no_chinese_offer_spans_nodes(cat) -> None:  # type: ignore[no-untyped-def]
    req = make_request(model="llama-3.1-70b", task="full", tokens=1e9, framework="megatron")
    r = plan(cat, lookup.model(cat, "llama-3.1-70b"), req)
    assert all(p.gpus <= lookup.accelerator(cat, p.device).max_cards_per_node for p in r.plans)
    why = {w["device"]: w["reason"] for w in r.why_not}
    assert "no offer used can span nodes" in why["a100-80g"] and "InfiniBand" in why["a100-80g"], why["a100-80g"]


def test_multi_node_gap_is_none_when_an_offer_spans_nodes(cat) -> None:  # type: ignore[no-untyped-def]
    assert multi_node_gap(cat, "h100-sxm", usable_offers(cat, "any")) is None
    assert "no public" in (multi_node_gap(cat, "h100-sxm", usable_offers(cat, "cn")) or "")
    assert "inter-node network" in (multi_node_gap(cat, "metax-c500", ()) or "")
    # multi-node notes never replace a device's price note
    assert "multi-node" not in (unpriced_reason(cat, "h100-sxm") or "") and "listing" in (unpriced_reason(cat, "h100-sxm") or "")


FIGURES = ("rental price", "memory size", "memory bandwidth", "peak", "listing", "price")


@pytest.mark.parametrize("device", SEED_DEVICES)
def test_acceptance_each_seed_device_is_planned_or_its_missing_figure_named(cat, device: str) -> None:  # type: ignore[no-untyped-def]
    """A default or --domestic-only plan (listings, then every price kind) either uses the device, or its why-not
    line names the missing figure and says it is not public."""
    m = lookup.model(cat, "qwen2.5-7b")
    reasons = []
    for extra in ({}, {"offer_kinds": ("listing", "index", "reference")}, {"domestic_only": True},
                  {"domestic_only": True, "offer_kinds": ("listing", "index", "reference")}):
        r = plan(cat, m, make_request(model="qwen2.5-7b", task="lora", tokens=1e8, top=50, **extra))
        if device in {p.device for p in r.plans}:
            return
        reasons += [w["reason"] for w in r.why_not if w["device"] == device]
    explained = [x for x in reasons if ("no public" in x or "no published" in x or "not a dated product page" in x)
                 and any(f in x for f in FIGURES)]
    assert explained, reasons


def test_a_device_missing_specs_and_price_names_every_missing_figure(cat) -> None:  # type: ignore[no-untyped-def]
    r = plan(cat, lookup.model(cat, "qwen2.5-7b"), make_request(model="qwen2.5-7b", task="lora", tokens=1e8))
    why = {w["device"]: w["reason"] for w in r.why_not}
    k100 = lookup.accelerator(cat, "hygon-k100")
    assert k100.specs.memory_gib is None and k100.specs.memory_bandwidth_gb_per_s is None
    for part in ("no published memory size", "no published memory bandwidth", "no public Hygon K100 rental price"):
        assert part in why["hygon-k100"]
