"""Plan's relax hints when two serving limits bind together (README walk-through 2026-12-02, task G): `suanli plan
--model qwen2.5-72b --gpu rtx-4090 --gpus 4 --concurrent-users 10 --tpot 0.03` said "lower --requests-per-s to
0.789", a flag the request never gave, at a rate served only at a TPOT over the target, and "raise --tpot to 0.0389",
a batch-1 TPOT at which 4 cards hold 1 of the 10 users. Each figure a hint names is run here: the run must plan."""

from __future__ import annotations

import datetime as dt
from typing import Any

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import PlanResult, plan

TODAY = dt.date(2026, 12, 2)
USERS = dict(model="qwen2.5-72b", task="inference", devices=("rtx-4090",), gpus=4, concurrent_users=10, tpot_s=0.03)
RATE = dict(model="qwen2.5-72b", task="inference", devices=("rtx-4090",), gpus=4, requests_per_s=5.0, tpot_s=0.03)


def _plan(cat: Any, **kw: Any) -> PlanResult:
    return plan(cat, lookup.model(cat, str(kw["model"])), make_request(**kw), TODAY)


def _tip(r: PlanResult, msg_id: str) -> tuple[str, dict[str, Any], str]:
    n = next(k for k, x in enumerate(r.relax_i18n) if x["id"] == msg_id)
    return r.relax[n], r.relax_i18n[n]["params"], render(Message.from_json(r.relax_i18n[n]), "zh")


def test_users_with_two_limits_are_told_in_their_own_flags_and_each_figure_plans(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, **USERS)
    ids = [x["id"] for x in r.relax_i18n]
    assert not r.plans and ids == ["relax.together", "relax.tpot_users", "relax.users_none"], r.relax
    assert not any("--requests-per-s" in line for line in r.relax)
    # the TPOT that holds the 10 users on the 4 cards (not the batch-1 38.9 ms): raising --tpot to it plans
    cli, p, zh = _tip(r, "relax.tpot_users")
    assert p["users"] == 10 and p["value"] > 0.0389 and f"--tpot to {p['value']:g} s" in cli
    assert "10 个并发用户" in zh and "--tpot" in zh
    assert _plan(cat, **{**USERS, "tpot_s": p["value"]}).plans
    # the fewest-TPOT trade: fewer users together with that TPOT plans; at the user's 30 ms none is held
    cli, p, zh = _tip(r, "relax.users_none")
    assert 0 < p["slots"] < 10 and p["value"] > 0.03 and p["limit_ms"] == 30
    assert f"--concurrent-users to {p['slots']} and raise --tpot to {p['value']:g} s" in cli and "--gpus" in cli
    assert f"`--concurrent-users` 降到 {p['slots']}" in zh and "requests" not in zh
    assert _plan(cat, **{**USERS, "concurrent_users": p["slots"], "tpot_s": p["value"]}).plans
    assert not _plan(cat, **{**USERS, "concurrent_users": 1}).plans  # within 30 ms not even one user


def test_a_rate_no_card_count_serves_within_the_target_quotes_a_pair_that_plans(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, **RATE)
    ids = [x["id"] for x in r.relax_i18n]
    assert not r.plans and ids == ["relax.together", "relax.tpot_others", "relax.rate_none"], r.relax
    # no --tpot alone passes at 5 req/s on 4 cards: the TPOT line names no figure to raise it to
    cli, p, _ = _tip(r, "relax.tpot_others")
    assert "value" not in p and "raise" not in cli
    assert not _plan(cat, **{**RATE, "tpot_s": 1.0}).plans
    # the rate line quotes a rate with the TPOT it is served at (was the row's rate at a missed TPOT, alone)
    cli, p, zh = _tip(r, "relax.rate_none")
    assert 0 < p["rps"] < 5 and f"--requests-per-s to {p['rps']:,.3g} and raise --tpot to {p['value']:g} s" in cli
    assert "`--requests-per-s` 降到" in zh
    assert _plan(cat, **{**RATE, "requests_per_s": p["rps"], "tpot_s": p["value"]}).plans


def test_the_fewest_cards_that_miss_the_tpot_too_say_the_tpot_they_reach_and_the_pair_plans(cat) -> None:  # type: ignore[no-untyped-def]
    # was "raise --max-gpus to 28" alone (its 7 × 4-card replicas miss 30 ms) and "raise --tpot to 0.0389" (10
    # replicas, 40 cards): neither run planned. At --tpot 0.03 wider replicas meet it (relax.cards, task K:
    # test_relax_wider_cards_1202k.py); at 0.02 none an instance holds does, so the pair stays
    kw = {**USERS, "gpus": None, "max_gpus": 4, "tpot_s": 0.02}
    r = _plan(cat, **kw)
    ids = [x["id"] for x in r.relax_i18n]
    assert not r.plans and ids == ["relax.together", "relax.tpot_others", "relax.cards_with"], r.relax
    cli, p, zh = _tip(r, "relax.cards_with")
    assert p["gpus"] > 4 and p["value"] > 0.02 and p["limit_ms"] == 20
    assert f"--max-gpus to {p['gpus']} and --tpot to {p['value']:g} s" in cli
    assert f"`--max-gpus` 提高到 {p['gpus']}" in zh
    assert _plan(cat, **{**kw, "max_gpus": p["gpus"], "tpot_s": p["value"]}).plans
    assert not _plan(cat, **{**kw, "max_gpus": p["gpus"]}).plans  # the cards alone do not


def test_the_new_dies_wordings_count_dies() -> None:
    from suanli.i18n import messages

    for msg_id in ("relax.users_none_dies", "relax.rate_none_dies", "relax.cards_with_dies"):
        assert "{ranks} dies" in messages("en")[msg_id] and "{ranks} 个芯粒" in messages("zh")[msg_id]
