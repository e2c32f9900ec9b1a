"""Serving search and hints from the buyer's regression check of be6fb2e (2026-12-01), one test each.

3. Concurrent users, replicas × batch ≥ users: the batch ceil(users / r) is searched beside the powers of two, so
   50 DeepSeek-R1 users on 910B take 3 × tp8 at batch 17 (24 cards, ¥45,000 rent), not 4 × tp8 at b16 (32 cards);
   4 × tp8 at batch 13 (32 cards) since vLLM-Ascend's per-step overhead was fitted (2026-12-02).
7. A TPOT the card limit bound says "within --max-gpus 64" (relax and why-not) with what more cards reach, and the
   replicas it quotes are those the raised TPOT gets (the rate from users follows the TPOT).
9. The reasoning-model warning is a warning of the whole result (top-level `warnings`, not an assumption), only when
   output was not given (an explicit 256 is the user's)."""

from __future__ import annotations

import numpy as np

from suanli.catalog import lookup
from suanli.plan.request import make_request
from suanli.plan.search import F_TPOT, MAX_USER_BATCHES, SERVE_BATCHES, _relaxed_replicas, _extras, _serve_batches, plan


def _plan(cat, **kw):  # type: ignore[no-untyped-def]
    return plan(cat, lookup.model(cat, str(kw["model"])), make_request(**kw))



# ------------------------------------------------------------------------------ 3. batch ceil(users / r)
def test_three_replicas_at_batch_17_hold_fifty_users(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, model="deepseek-r1", concurrent_users=50, tpot_s=0.0333, domestic_only=True, precision="any")
    best = r.plans[0]
    # the batch each replica runs is ceil(users / replicas): 4 × tp8 × b13 on 32 cards since vLLM-Ascend's per-step
    # overhead was fitted (2026-12-02; 3 × b17 on 24 cards before), its steady-state TPOT (the users' prompts prefilled
    # between the decode steps) within 33.3 ms; 2 × b25 while the rate was Little's law over one request's TTFT + TPOT
    # (it left every other prompt's prefill out), 4 × b16 before that
    assert (best.device, best.gpus, best.replicas, best.tp, best.micro_batch) == ("ascend-910b", 32, 4, 8, 13), best
    assert best.micro_batch == -(-50 // best.replicas) and best.micro_batch & (best.micro_batch - 1)  # not a power of 2


def test_user_batches_bounded() -> None:
    users = make_request(model="m", concurrent_users=50, tpot_s=0.05)
    b = _serve_batches(users, [1, 2, 4, 8])
    assert {17.0, 25.0, 50.0} <= set(b) and set(SERVE_BATCHES) <= set(b) and b.max() <= max(SERVE_BATCHES)
    big = make_request(model="m", concurrent_users=1_000_000, tpot_s=0.05, max_gpus=4096)
    assert len(_serve_batches(big, [1, 2, 4, 8])) <= len(SERVE_BATCHES) + MAX_USER_BATCHES
    pinned = make_request(model="m", concurrent_users=50, tpot_s=0.05, gpus=24)  # r = 24 / tp only
    assert set(_serve_batches(pinned, [1, 2, 4, 8])) - set(SERVE_BATCHES) == {3.0, 5.0, 9.0, 17.0}  # r 24, 12, 6, 3
    rate = make_request(model="m", requests_per_s=5, task="inference")
    assert list(_serve_batches(rate, [1])) == list(SERVE_BATCHES)


# ------------------------------------------------------------------------------ 7. TPOT hints name the card limit
def test_tpot_hint_within_max_gpus_and_its_replicas(cat) -> None:  # type: ignore[no-untyped-def]
    # TPOT 40 ms with a 1 s TTFT: the latencies are the batch each replica runs, and its steady-state TPOT counts the
    # users' prompts prefilled between the decode steps; 44.1 ms is the best within 64 cards (at 28 ms the cards
    # themselves bind: 232 needed)
    kw = dict(model="qwen2.5-72b", concurrent_users=200, tpot_s=0.04, ttft_s=1.0, devices=("rtx-4090",),
              precision="any")  # int4 only when asked
    r = _plan(cat, **kw)
    assert not r.plans
    tip = next(m for m in r.relax_i18n if m["id"] == "relax.tpot_cards")
    text = r.relax[r.relax_i18n.index(tip)]
    assert "within --max-gpus 64" in text and "the best reachable is" in text
    why = next(w for w in r.why_not if w["device"] == "rtx-4090")
    tpot = next(m for m in _extras(why["reason_i18n"]) if m.get("id") == "why.tpot_cards")
    assert "within 64 cards" in why["reason"]
    more = tpot["params"]["gpus"]
    assert more > 64 and _plan(cat, **{**kw, "max_gpus": more}).plans  # the cards it names reach the target
    # following the hint gives the replicas it quotes
    p = tip["params"]
    ok = _plan(cat, **{**kw, "tpot_s": p["value"]})
    assert ok.plans and ok.plans[0].replicas == p["replicas"] and ok.plans[0].tp == p["tp"]


def test_relaxed_tpot_quotes_the_replicas_of_the_lower_rate() -> None:
    req = make_request(model="m", concurrent_users=200, tpot_s=0.0333)
    # batch 16 at 37.7 ms: 15 replicas carry the 33.3 ms target's rate, the 37.7 ms target's lower rate 13
    step = 0.0377
    per_replica = 16 / step  # tokens/s of one replica at batch 16
    need = np.ceil(req.requests_per_s * 256 / per_replica)
    grid = {"replicas": np.array([need]), "tok_s": np.array([need * per_replica]), "b": np.array([16.0])}
    relaxed = _relaxed_replicas(F_TPOT, grid, 0, req, step)
    assert need == 15 and relaxed == 13 and relaxed == max(np.ceil(200 / (256 * step) * 256 / per_replica), np.ceil(200 / 16))


# ------------------------------------------------------------------------------ 9. reasoning-model warning
def test_reasoning_warning_is_a_result_warning_only_when_output_not_given(cat) -> None:  # type: ignore[no-untyped-def]
    kw = dict(model="deepseek-r1", concurrent_users=50, tpot_s=0.0333)
    r = _plan(cat, **kw)
    assert [w["id"] for w in r.warnings_i18n] == ["plan.warn.reasoning_output"]
    assert "32,768" in r.warnings[0] and "--output" in r.warnings[0]
    assert not any(a["id"] == "plan.warn.reasoning_output" for a in r.assumptions_i18n)
    assert _plan(cat, **kw, output=256).warnings == []  # given explicitly, even at the default
    assert _plan(cat, **{**kw, "model": "qwen2.5-7b"}).warnings == []
