"""Buyer review 2026-12-02, task F.2: 910B pre-training past one node. The only 910B offer is an 8-card node with no
inter-node network, so (a) 16 cards was refused as "nothing fits in memory … use --task lora or qlora" with "no layout
of its framework runs on exactly 16 card(s)", and (b) a deadline miss said "fastest fit takes 175.5 h" without the
card count or why it cannot grow. Both now name the node and the missing inter-node network."""

from __future__ import annotations

import datetime as dt

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan

TODAY = dt.date(2026, 12, 2)
JOB = dict(model="qwen2.5-14b", task="pretrain", tokens=1e10, seq=4096, devices=("ascend-910b",), already_on=("cann",))


def _plan(**kw: object):  # type: ignore[no-untyped-def]
    cat = packaged_catalog()
    return plan(cat, lookup.model(cat, "qwen2.5-14b"), make_request(**{**JOB, **kw}), TODAY)


def _texts(items: list[dict]) -> list[str]:  # type: ignore[type-arg]
    return [render(Message.from_json(x)) for x in items]


def test_sixteen_cards_names_the_missing_inter_node_network() -> None:
    r = _plan(gpus=16)
    assert not r.plans
    assert [x["id"] for x in r.relax_i18n] == ["relax.no_span_gpus"]
    tip = _texts(r.relax_i18n)[0]
    assert "lora" not in tip, tip  # a pre-training job is not told to fine-tune instead
    assert "so a job takes at most 8 cards: set --gpus to 8 or fewer" in tip, tip
    why = next(w for w in r.why_not if w["device"] == "ascend-910b")
    assert [x["id"] for x in why["reasons_i18n"]] == ["why.no_span_gpus"]
    text = _texts(why["reasons_i18n"])[0]
    assert "more than one 8-card node" in text and "inter-node network" in text, text
    assert "no layout of its framework" not in text


def test_a_deadline_miss_names_the_node_it_cannot_grow_past() -> None:
    r = _plan(deadline_hours=168)
    assert not r.plans
    ids = [x["id"] for x in r.relax_i18n]
    assert ids == ["relax.deadline_setup", "relax.node_bound"], ids
    assert "8× Huawei Ascend 910B, one whole node" in _texts(r.relax_i18n)[1]
    why = next(w for w in r.why_not if w["device"] == "ascend-910b")
    assert [x["id"] for x in why["reasons_i18n"]] == ["why.over_deadline_setup", "why.node_bound"]
    node = _texts(why["reasons_i18n"])[1]
    assert "no offer used can span nodes" in node and "910B node or cluster rental" in node, node


def test_a_card_limit_within_one_node_says_nothing_of_nodes() -> None:
    """The card limit, not the offers, stops it at 8 cards: no word on spanning nodes (raising --max-gpus would say)."""
    r = _plan(deadline_hours=168, max_gpus=8)
    assert "relax.node_bound" not in [x["id"] for x in r.relax_i18n]
    why = next(w for w in r.why_not if w["device"] == "ascend-910b")
    assert "why.node_bound" not in [x["id"] for x in why["reasons_i18n"]]


def test_a_serving_card_count_past_one_node_is_not_refused_for_spanning() -> None:
    """Serving replicas never span nodes: 16 cards are two 8-card replicas, no inter-node network needed."""
    r = _plan(task="inference", tokens=None, requests_per_s=2.0, days=30, gpus=16, seq=None)
    assert [p.gpus for p in r.plans] == [16]
