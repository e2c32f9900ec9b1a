"""The concurrent-users slots hint (`relax.slots_gpus`) words what holds the slots down: the TPOT when a larger batch
fits but misses it ("serve at most N concurrent users within --tpot X ms"), else "hold at most N requests at once"
(memory, or the largest batch searched); en + zh (consistency fix 2026-12-01: it said "hold at most" for both)."""

from __future__ import annotations

import datetime as dt

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan

TODAY = dt.date(2026, 12, 1)


def _hint(cat, **kw):  # type: ignore[no-untyped-def]
    r = plan(cat, lookup.model(cat, kw["model"]), make_request(task="inference", precision="any", **kw), TODAY)
    assert not r.plans and [x["id"] for x in r.relax_i18n] == ["relax.slots_gpus"], r.relax_i18n
    return r.relax[0], Message.from_json(r.relax_i18n[0])


def test_tpot_bound_slots_say_within_the_tpot(cat) -> None:  # type: ignore[no-untyped-def]
    # 4 RTX 4090s, qwen2.5-72b, 10 users within 30 ms: a larger batch fits but its steady-state TPOT is over 30 ms
    cli, msg = _hint(cat, model="qwen2.5-72b", devices=("rtx-4090",), gpus=4, concurrent_users=10, tpot_s=0.03)
    slots = msg.params["slots"]
    assert f"4 cards can serve at most {slots} concurrent users within --tpot 30 ms" in cli, cli
    assert "requests at once" not in cli and f"--concurrent-users to {slots}" in cli
    zh = render(msg, "zh")
    assert f"在 --tpot 30 毫秒内最多服务 {slots} 个并发用户" in zh, zh


def test_batch_bound_slots_keep_requests_at_once(cat) -> None:  # type: ignore[no-untyped-def]
    # 1 H800 serving qwen2.5-0.5b within 1 s holds the largest batch searched, 256: the TPOT is not what binds
    cli, msg = _hint(cat, model="qwen2.5-0.5b", devices=("h800",), gpus=1, concurrent_users=300, tpot_s=1.0)
    assert "1 card can hold at most 256 requests at once" in cli and "within" not in cli, cli
    assert "最多同时容纳 256 个请求" in render(msg, "zh")
