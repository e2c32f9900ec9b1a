"""Buyer review F, finding 3: a serving replica that needs two nodes. DeepSeek-V3/R1 W8A8 is published on 2 Atlas 800
A2 nodes (16 × 910B 64 GB; vLLM-Ascend DeepSeek-R1 tutorial: tp 4 × data-parallel 4 with expert parallelism, tp
inside a node, the expert group across both), but the planner's "serving replicas never span nodes" removed it, and
`estimate --tp 16` gave the same step at --inter-node-gbit 25 and 1600 (inference never read the flag). Now: the
estimate charges the rented network and warns; plan lets an expert group span whole nodes only on offers whose nodes
join over a network (tp stays within a node); migrate cost lays out the same 16 cards."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.catalog.offers import can_rent
from suanli.catalog.schema import Catalog, Offer
from suanli.estimate import speed as S
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.plan.compare import migration_cost
from suanli.plan.request import make_request
from suanli.plan.search import plan, serving_layout

TODAY = dt.date(2026, 12, 1)
KINDS = ("listing", "index")


def _spanning(cat: Catalog, gbit: float = 200) -> Catalog:
    """The packaged catalog plus one 910B 8-card node offer whose nodes join over RoCE (test data: none is listed)."""
    base = next(o for o in cat.offers if o.id == "omniyq-910b-8card-month")
    raw = base.model_dump()
    raw.update(id="test-910b-roce", inter_node_network="roce",
               inter_node_gbit_per_s={"values": ({"value": gbit, "source": base.source},)})
    return cat.model_copy(update={"offers": (*cat.offers, Offer.model_validate(raw))})


def _ids(e) -> list[str]:  # type: ignore[no-untyped-def]
    return [n["id"] for n in e.notes_i18n if isinstance(n, dict)]


def _est(cat: Catalog, **kw):  # type: ignore[no-untyped-def]
    m, acc = lookup.model(cat, "deepseek-v3"), lookup.accelerator(cat, "910b")
    return estimate(cat, m, acc, make_workload(**{"task": "inference", "precision": "int8", "gpus": 16,
                                                  "engine": "vllm-ascend", **kw}))


def test_tp16_on_two_nodes_pays_the_rented_network(cat) -> None:  # type: ignore[no-untyped-def]
    slow, fast = _est(cat, tp=16, inter_node_gbit_per_s=25), _est(cat, tp=16, inter_node_gbit_per_s=1600)
    assert slow.inference is not None and fast.inference is not None
    assert slow.inference.tpot_s > fast.inference.tpot_s and slow.inference.ttft_s > 2 * fast.inference.ttft_s
    ids = _ids(slow)
    assert "est.note.replica_spans_nodes" in ids and "est.note.tp_spans_nodes" in ids
    # within one node the flag changes nothing and nothing is said
    one = _est(cat, tp=8, gpus=8, inter_node_gbit_per_s=25)
    assert one.inference is not None and not {"est.note.replica_spans_nodes", "est.note.tp_spans_nodes"} & set(_ids(one))
    assert one.inference.tpot_s == _est(cat, tp=8, gpus=8).inference.tpot_s  # type: ignore[union-attr]


def test_pipeline_across_nodes_pays_its_sends(cat) -> None:  # type: ignore[no-untyped-def]
    """pp 2 over two nodes: the stage-to-stage send of the hidden states crosses the network (speed.pipeline_send_s);
    a replica of pp 1 pays none, and the tp-only kernel is unchanged."""
    slow, fast = _est(cat, tp=8, pp=2, inter_node_gbit_per_s=25), _est(cat, tp=8, pp=2, inter_node_gbit_per_s=1600)
    assert slow.inference.ttft_s > fast.inference.ttft_s  # type: ignore[union-attr]
    assert _ids(slow).count("est.note.replica_spans_nodes") == 1
    assert "est.note.tp_spans_nodes" not in _ids(slow)
    m = lookup.model(cat, "deepseek-v3")
    w = make_workload(task="inference", precision="int8", gpus=16, tp=8, pp=2, engine="vllm-ascend")
    t, (r, _) = S.inference_speed_terms(m, w), S.inference_rates(cat, lookup.accelerator(cat, "910b"), w)
    f = np.float64
    assert float(S.pipeline_send_s(t, f(8), f(1), f(512), r)) == 0.0
    one = S.inference_step(t, f(8), f(1), f(4), r)
    assert one["step_s"] == S.inference_step(t, f(8), f(1), f(4), r, f(1))["step_s"]
    two = S.inference_step(t, f(8), f(1), f(4), r, f(2))
    assert two["step_s"] == pytest.approx(one["step_s"] + S.pipeline_send_s(t, f(8), f(2), f(4), r), rel=1e-12)


def _plan(c: Catalog):  # type: ignore[no-untyped-def]
    m = lookup.model(c, "deepseek-v3")
    return plan(c, m, make_request(model="deepseek-v3", task="inference", requests_per_s=1, precision="int8",
                                   devices=("ascend-910b",), offer_kinds=KINDS), TODAY)


def test_plan_spans_two_nodes_only_on_an_offer_that_spans(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat)  # the packaged 910B offers are whole nodes without a fabric: no replica over 8 cards
    assert not r.plans and r.why_not[0]["reason_i18n"]["id"] == "why.serve_replica"
    assert "spans nodes only on an offer whose nodes join" in r.why_not[0]["reason"]
    c = _spanning(cat)
    p = _plan(c).plans[0]
    per_node = lookup.accelerator(c, "ascend-910b").max_cards_per_node
    assert p.offer == "test-910b-roce" and p.tp * p.ep > per_node and p.tp <= per_node  # tp within a node
    assert "one expert group spans 2 nodes" in p.reason and "200 Gbit/s per node" in p.reason
    assert "DeepSeek-R1 W8A8 on 2 Atlas 800 A2" in p.reason


def test_card_offers_never_combine_into_a_replica(cat) -> None:  # type: ignore[no-untyped-def]
    """The one rentability rule: a replica of 16 cards needs an offer that spans nodes; replicas of one node each
    still rent from separate instances; single cards never combine."""
    c = _spanning(cat)
    roce = next(o for o in c.offers if o.id == "test-910b-roce")
    node = next(o for o in c.offers if o.id == "omniyq-910b-8card-month")
    card = next(o for o in c.offers if o.id == "seed000-910b-hour")
    assert bool(can_rent(roce, 8, 16, 16, True, 200.0))
    assert not bool(can_rent(roce, 8, 16, 16, True, 100.0))  # evaluated on another network
    assert not bool(can_rent(node, 8, 16, 16, True)) and bool(can_rent(node, 8, 16, 8, True))
    assert not bool(can_rent(card, 8, 16, 16, True)) and not bool(can_rent(card, 8, 2, 2, True))


def test_migrate_cost_lays_out_the_16_cards_plan_and_estimate_give(cat) -> None:  # type: ignore[no-untyped-def]
    c = _spanning(cat)
    m = lookup.model(c, "deepseek-v3")
    with pytest.raises(Exception, match="no usable offer rents 16"):  # no offer spans nodes: no 16-card replica
        migration_cost(cat, m, to_gpu="ascend-910b", from_gpu="h20-141g", task="inference", precision="int8",
                       gpus=16, kinds=KINDS, today=TODAY)
    out = migration_cost(c, m, to_gpu="ascend-910b", from_gpu="h20-141g", task="inference", precision="int8",
                         gpus=16, kinds=KINDS, today=TODAY)
    d = out["derived"]["ascend-910b"]
    wl = d["workload"]
    assert d["offer"] == "test-910b-roce" and wl["gpus"] == 16 and wl["tp"] * wl["ep"] == 16 and wl["tp"] <= 8
    lay, why = serving_layout(c, m, make_request(model="deepseek-v3", task="inference", gpus=16, precision="int8",
                                                 tpot_s=0.2, tokens=1e9), "ascend-910b")
    assert why is None and lay is not None and (lay.tp, lay.ep) == (wl["tp"], wl["ep"])
    e = _est(c, tp=lay.tp, ep=lay.ep, batch=lay.micro_batch, inter_node_gbit_per_s=200)
    assert e.memory.fits and "est.note.replica_spans_nodes" in _ids(e)
    assert e.memory.needed_bytes == pytest.approx(lay.memory_needed_bytes, rel=1e-9)  # the plan's memory
