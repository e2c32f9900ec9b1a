"""Concurrent users: plan and compare tell one story (task H 2026-12-01). A buyer serving Qwen2.5-32B to 50 users on
8 RTX 4090s (--tpot 0.05 --ttft 1, bf16) read from compare "does not serve 3.623 requests/s … serves at most 3.76
req/s" (by its own figures it served that rate: the slots were the limit, 2 replicas × batch 24 = 48 for 50 users)
and from plan "8 card(s) serve at most 32 concurrent users" while compare showed tp4 × 2 holding 48 within 50 ms.

One rule (`search.capacity_user_configs`): the quoted most users is the largest count plan accepts on those cards,
replicas × the largest batch its row check passes, over every tp; the sentence names the limit the next batch
misses with its numbers. Plan at the quoted count plans, at one more it does not (same tp and card count), and
compare's `max_users` is plan's number."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import plan, serving_users_capacity
from suanli.validate.bands import packaged_error_bands

TODAY = dt.date(2026, 12, 1)
BUYER = dict(model="qwen2.5-32b", task="inference", devices=("rtx-4090",), gpus=8, concurrent_users=50, tpot_s=0.05,
             ttft_s=1.0, precision="bf16")


def _plan(cat: Any, bands: Any = None, **kw: Any) -> Any:
    return plan(cat, lookup.model(cat, kw["model"]), make_request(region="any", offer_kinds=("listing", "index", "reference"), **kw), TODAY,
                bands)


def _slots_hint(r: Any) -> Message:
    hint = next(h for h in r.relax_i18n if h["id"] == "relax.slots_gpus")
    return Message.from_json(hint)


def test_the_buyers_case_quotes_48_users_and_the_tpot_that_binds(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, **BUYER)
    assert not r.plans
    hint = _slots_hint(r)
    assert hint.params["slots"] == 48, r.relax  # was 32: tp8 × 1 at batch 32, not the best tp
    layout = hint.params["layout"]
    assert (layout.params["tp"], layout.params["replicas"], layout.params["batch"]) == (4, 2, 24)
    assert layout.params["limit"].id == "users.limit.tpot" and layout.params["limit"].params["batch"] == 25
    text = " ".join(r.relax)
    assert "serve at most 48 concurrent users within --tpot 50 ms" in text and "--concurrent-users to 48" in text
    assert "tp4 × 2 replicas × batch 24 at bf16 = 48 slots" in text and "batch 25 per replica would run at TPOT 50.62 ms" in text
    zh = render(hint, "zh")
    assert "最多服务 48 个并发用户" in zh and "批大小 25 时 TPOT 为 50.62 毫秒" in zh, zh
    assert "slots" not in zh and "replica" not in zh
    # the why-not quotes the same number
    why = next(w for w in r.why_not if w["device"] == "rtx-4090")
    slots = [m for m in why["reasons_i18n"] if m["id"] == "why.slots_gpus"]
    assert slots and slots[0]["params"]["slots"] == 48 and "hold at most 48 of the 50 concurrent users" in why["reason"]


@pytest.mark.parametrize("kw", [
    BUYER,
    dict(BUYER, ttft_s=0.15),  # TTFT binds
    dict(model="qwen2.5-72b", task="inference", devices=("rtx-4090",), gpus=4, concurrent_users=10, tpot_s=0.03,
         precision="int4"),  # int4 only when asked
    dict(model="qwen2.5-0.5b", task="inference", devices=("h800",), gpus=1, concurrent_users=300, tpot_s=1.0),
    dict(model="qwen2.5-14b", task="inference", devices=("910b",), gpus=2, concurrent_users=2000, tpot_s=0.05),
])
def test_plan_takes_the_quoted_users_and_not_one_more(cat, kw) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, **kw)
    assert not r.plans, r.plans
    hint = _slots_hint(r)
    most, tp = int(hint.params["slots"]), int(hint.params["layout"].params["tp"])
    assert most >= 1 and most < kw["concurrent_users"]
    at = _plan(cat, **{**kw, "concurrent_users": most, "tp": tp})
    assert at.plans and at.plans[0].tp == tp and at.plans[0].gpus == kw["gpus"], at.relax
    assert not _plan(cat, **{**kw, "concurrent_users": most + 1, "tp": tp}).plans
    assert not _plan(cat, **{**kw, "concurrent_users": most + 1}).plans  # nor on any other tp
    # compare's number is plan's: its not-served sentence and the one-device quote
    m = lookup.model(cat, kw["model"])
    req = make_request(**{k: v for k, v in kw.items() if k != "devices"})
    assert serving_users_capacity(cat, m, req, kw["devices"][0])[0] == most
    rows = compare_devices(cat, m, [kw["devices"][0], "h20"], "inference", kw["gpus"], precision=kw.get("precision"),
                           tpot_s=kw["tpot_s"], ttft_s=kw.get("ttft_s"), concurrent_users=kw["concurrent_users"],
                           region="any", kinds=("listing", "index", "reference"), today=TODAY)
    row = rows[0]
    # compare runs one precision per device (its default where none is given); plan's quote at that precision
    prec = row["layout"]["precision"]
    same = serving_users_capacity(cat, m, req.model_copy(update={"precision": prec}), kw["devices"][0])[0]
    if kw.get("precision"):
        assert same == most
    assert row["max_users"] in (None, same)
    if same is not None:  # (qwen2.5-72b does not fit 4 RTX 4090s in compare's bf16: plan serves it in int8/int4)
        assert row["layout_note_i18n"]["id"] == "cmp.serving.not_served_users", row["layout_note"]
        assert row["layout_note_i18n"]["params"]["slots"] == same


def test_compare_names_the_slots_not_the_rate(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-32b")
    bands = packaged_error_bands()
    rows = compare_devices(cat, m, ["rtx-4090", "h100-sxm"], "inference", 8, precision="bf16", tpot_s=0.05,
                           ttft_s=1.0, concurrent_users=50, error_bands=bands, today=TODAY)
    r4090, h100 = rows
    note = r4090["layout_note_i18n"]
    assert note["id"] == "cmp.serving.not_served_users", r4090["layout_note"]
    assert r4090["max_users"] == 48 and note["params"]["slots"] == 48
    assert "3.76" not in r4090["layout_note"] and "does not serve 50 concurrent users" in r4090["layout_note"]
    assert "tp4 × 2 replicas × batch 24 at bf16 = 48 slots" in r4090["layout_note"]
    zh = render(Message.from_json(note), "zh")
    assert "承载不了 50 个并发用户" in zh and "最多容纳 48 个" in zh, zh
    # the same number plan quotes, with the bands too
    assert _slots_hint(_plan(cat, bands, **BUYER)).params["slots"] == 48
    # a row that serves them says the most it holds beside the most requests/s, and plan accepts exactly that
    most = h100["max_users"]
    assert most and most >= 50 and f"holds at most {most:,} concurrent users" in h100["capacity_note"]
    tp = h100["capacity_note_i18n"]["params"]["layout"]["params"]["tp"]
    kw = dict(BUYER, devices=("h100-sxm",), tp=tp)
    assert _plan(cat, **{**kw, "concurrent_users": most}).plans
    assert not _plan(cat, **{**kw, "concurrent_users": most + 1}).plans
