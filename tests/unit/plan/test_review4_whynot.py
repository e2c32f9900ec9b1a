"""Buyer review 4 (2026-12-01): when a latency target fails, why-not and relax name the latency one rentable
instance reaches, not memory or rental; nothing-fits tips never suggest regions or kinds already included; an
NVLink bridge (2 cards) warns beyond 2 cards; serving assumptions and batch-job summaries are worded by the request."""

from __future__ import annotations

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan

# L20 rents in 1-card instances here: tp 8 meets a 6 ms TPOT for Llama-3.1-8B but no instance holds 8 cards
TIGHT = dict(model="llama-3.1-8b", task="inference", requests_per_s=5, input=1000, output=300, tpot_s=0.006,
             devices=["l20"], offer_kinds=["listing", "index", "reference"], precision="any")  # int4 only when asked


def _nested(v):  # type: ignore[no-untyped-def]
    """Every message nested in a reason (its 'with' parts)."""
    if isinstance(v, dict):
        return ([v] if "id" in v else []) + [x for y in v.values() for x in _nested(y)]
    return [x for y in v for x in _nested(y)] if isinstance(v, list) else []


def _plan(cat, **kw):  # type: ignore[no-untyped-def]
    return plan(cat, lookup.model(cat, str(kw["model"])), make_request(**kw))


def test_a_failed_tpot_names_what_one_instance_reaches_and_raising_tpot_gives_a_plan(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, **TIGHT)
    assert not r.plans
    why = {w["device"]: w["reason_i18n"] for w in r.why_not}["l20"]
    assert why["id"] == "why.tpot_instance", why  # TPOT, not "a replica fits from tp 8" (memory/rental)
    p = why["params"]
    assert p["largest"] == 1 and p["tp"] > 1 and p["tp_ms"] <= 6.0 < p["ms"] and p["limit_ms"] == 6.0
    assert [x["id"] for x in r.relax_i18n] == ["relax.tpot"], r.relax  # raise --tpot, not "nothing fits"
    assert r.relax_i18n[0]["params"]["tp"] == 1  # what one rentable instance reaches
    assert "international" not in " ".join(r.relax) and "index" not in " ".join(r.relax)
    ok = _plan(cat, **{**TIGHT, "tpot_s": r.relax_i18n[0]["params"]["value"]})
    assert ok.plans and ok.plans[0].device == "l20"


def test_the_review_command_no_longer_blames_memory(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, **{**TIGHT, "model": "qwen2.5-7b"})
    assert not r.plans
    assert {w["device"]: w["reason_i18n"]["id"] for w in r.why_not}["l20"] in ("why.tpot", "why.tpot_instance")
    assert [x["id"] for x in r.relax_i18n] == ["relax.tpot"]


def test_nothing_fits_never_suggests_what_is_already_included(cat) -> None:  # type: ignore[no-untyped-def]
    kw = dict(model="deepseek-v3", task="inference", requests_per_s=5, devices=["l20"])
    every = _plan(cat, **kw, region="any", offer_kinds=["listing", "index", "reference"])
    # no L20 instance holds a DeepSeek-V3 replica: more cards cannot help (buyer review 7, `relax.serve_too_big`)
    assert not every.plans and every.relax_i18n[0]["id"] == "relax.serve_too_big"
    assert every.relax_i18n[0]["params"]["wider"] == ""
    for lg in ("en", "zh"):
        text = render(Message.from_json(every.relax_i18n[0]), lg)
        assert "international" not in text and "index" not in text and "境外" not in text and "指数" not in text
    # cn listings: other regions and kinds are suggested only where an offer has an instance that holds a replica;
    # no L20 offer anywhere does (buyer review 7)
    narrow = _plan(cat, **kw)
    text = narrow.relax[0]
    assert "cannot help" in text and "--region any" not in text and "--offer-kinds all" not in text


def test_an_nvlink_bridge_warns_beyond_two_cards(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, model="qwen2.5-32b", task="inference", tokens=1e8, devices=["rtx-3090"], tp=8)
    assert r.plans
    ids = [w["id"] for w in r.plans[0].warnings_i18n]
    assert "plan.warn.nvlink_bridge" in ids, ids
    two = _plan(cat, model="qwen2.5-7b", task="inference", tokens=1e8, devices=["rtx-3090"], tp=2)
    assert two.plans and "plan.warn.nvlink_bridge" not in [w["id"] for w in two.plans[0].warnings_i18n]


def test_serving_period_wording_follows_the_request(cat) -> None:  # type: ignore[no-untyped-def]
    kw = dict(model="qwen2.5-7b", task="inference", requests_per_s=2, devices=["l20"])
    default = [a["id"] for a in _plan(cat, **kw).assumptions_i18n]
    given = [a["id"] for a in _plan(cat, **kw, hours=100).assumptions_i18n]
    assert "plan.assume.period" in default and "plan.assume.first_serve" in default
    assert "plan.assume.period_given" in given and "plan.assume.first_serve" not in given
    zh = render(Message("plan.assume.first_serve", env=10, gbit=1, load=0.46, field="hours"), "zh")
    assert "未给定服务时长" not in zh and "默认" in zh


def test_a_batch_job_summary_says_tokens_and_hours_without_latency(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, model="qwen2.5-7b", task="inference", tokens=1e8, devices=["l20"])
    assert r.plans
    assert any(x["id"] == "plan.reason.serve_tokens" for x in _nested(r.plans[0].reason_i18n))
    zh = render(Message.from_json(r.plans[0].reason_i18n), "zh")
    assert "处理 1 亿个 token，用时" in zh and "首字延迟" not in zh.split("；")[0]
