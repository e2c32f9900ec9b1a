"""A plan says where to rent it (provider, price per card-unit, kind, date, second-hand) through the offer
formatter rent-vs-buy shares, and how sure its speed is: 'likely missed' where the stack's known bias exceeds the
headroom, demoted after the passing plans on its stack's bias (5+ cases), shrunk toward all stacks' under 5
(buyer review 2026-12-01)."""

from __future__ import annotations

import datetime as dt

from suanli.catalog import lookup
from suanli.catalog.offers import price_decimals, rent_message
from suanli.estimate.estimate import LITTLE_EVIDENCE_CASES, ErrorBand
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import DEMOTION_COST_FACTOR, plan
from suanli.validate.report import CaseResult, summarize

TODAY = dt.date(2026, 12, 1)
BUYER_TPOT_S = 0.042


def test_rent_message_names_provider_price_per_card_unit_kind_date_and_second_hand(cat) -> None:  # type: ignore[no-untyped-def]
    o = next(x for x in cat.offers if x.id == "autodl-h800-hour-2026-08")
    assert render(rent_message(o)) == f"AutoDL, ¥8.88 per card-hour (listing, {o.date}, quoted via a third party)"
    zh = render(rent_message(o), "zh")
    assert "每卡每小时 ¥8.88" in zh and "挂牌" in zh and "转引" in zh
    first_hand = next(x for x in cat.offers if not x.second_hand and x.cards > 1)
    text = render(rent_message(first_hand))
    per_card = first_hand.price_cny.value / first_hand.cards  # a month's price in whole yuan (buyer review 2026-12-02)
    decimals = price_decimals(first_hand.billing_unit)
    assert "quoted via" not in text and f"¥{per_card:,.{decimals}f} per card-" in text


def test_every_plan_reason_says_where_to_rent_in_both_languages(cat) -> None:  # type: ignore[no-untyped-def]
    req = make_request(model="qwen2.5-72b", task="inference", concurrent_users=50, tpot_s=0.0333, ttft_s=1.0,
                       precision="any")  # int4 only when asked
    r = plan(cat, lookup.model(cat, "qwen2.5-72b"), req, TODAY)
    assert r.plans
    offers = {o.id: o for o in cat.offers}
    for p in r.plans:
        o = offers[p.offer]
        assert f"rent: {render(rent_message(o))}" in p.reason
        assert f"租用：{render(rent_message(o), 'zh')}" in render(Message.from_json(p.reason_i18n), "zh")
    h800 = next(p for p in r.plans if p.offer == "autodl-h800-hour-2026-08")
    assert "rent: AutoDL, ¥8.88 per card-hour (listing, 2026-08-13, quoted via a third party)" in h800.reason


def _case(i: int, stack: str, measured: float, default: float) -> CaseResult:
    return CaseResult(id=f"c{i}", group="decode-speed", source="s", metric="output_tokens_per_s", measured=measured,
                      default=default, seed=None, default_error=(default - measured) / measured, seed_error=None,
                      holdout=True, sample="out", stack=stack)


def _bands(cann_cases: int) -> dict[str, ErrorBand]:
    """CANN decode estimates +117 % too fast on `cann_cases` cases; CUDA's within a few per cent."""
    rs = [_case(i, "cann", 100.0, 217.4) for i in range(cann_cases)]
    rs += [_case(100 + i, "cuda", 100.0, 100.0 + d) for i, d in enumerate((-3, -1, 0, 1, 3))]
    return summarize(rs)


def _buyer(cat, bands: dict[str, ErrorBand], **pins):  # type: ignore[no-untyped-def]
    # TPOT target 42 ms: 33.3 until vLLM-Ascend's per-step overhead was fitted (2026-12-02), after which these
    # scenarios left the 910B without a plan; 42 keeps it in the regime these tests were written for (the ms and %
    # figures in their docstrings are those of the 33.3 ms run)
    req = make_request(model="qwen2.5-72b", task="inference", concurrent_users=50, tpot_s=BUYER_TPOT_S, ttft_s=1.0,
                       **{"precision": "any", **pins})  # int4 only when asked
    return plan(cat, lookup.model(cat, "qwen2.5-72b"), req, TODAY, error_bands=bands)


def test_one_case_is_pooled_toward_all_stacks_and_the_910b_plans_a_layout_that_passes(cat) -> None:  # type: ignore[no-untyped-def]
    """Buyer review defect 8: one case at +117 % neither decides alone nor is ignored: shrunk toward all stacks'
    ((1 × 117 + 5 × all) / 6, about +20 % here) it exceeds the ~14 % TPOT headroom of the 910B's cheapest layout
    (8 cards, one bf16 replica); buyer regression 1: the same ¥17,500 rents a layout (2 × tp4 int8) whose headroom
    the pooled bias does not exceed, so the 910B keeps its rank with that one (before: demoted to last)."""
    # top=10: since the rate is served at each row's own TTFT and TPOT, cheaper devices rank above the 910B's ¥17,500
    plain = _buyer(cat, {}, top=10).plans
    r = _buyer(cat, _bands(1), top=10)
    assert [p.device for p in r.plans] == [p.device for p in plain]
    p = next(p for p in r.plans if p.device == "ascend-910b")
    q = next(p for p in plain if p.device == "ascend-910b")
    # equal cost (¥17,500, 1 × tp8): without bands int8 (30.5 ms, steady-state TPOT), with them the faster int4
    # (26.8 ms), whose margin the pooled bias does not exceed
    assert p.total_cost_cny == q.total_cost_cny and p.tpot_s is not None and p.tpot_s <= (q.tpot_s or 0)
    assert "likely missed" not in p.reason and "ranked after" not in p.reason
    # the warning's |error| is pooled as the bias is (buyer regression 6), not the one case's 117 %: on the bf16
    # layout on 16 cards (2 × tp8 b25, ~5 % headroom; 1 × tp8 b50 in bf16 is over 33.3 ms since the steady-state
    # TPOT counts the users' prompts prefilled between the decode steps)
    p = next(p for p in _buyer(cat, _bands(1), precision="bf16", gpus=16).plans if p.device == "ascend-910b")
    w = next(x for x, j in zip(p.warnings, p.warnings_i18n) if j["id"] == "plan.warn.within_error_pooled")
    assert "1 out-of-sample case at |error| 117 %, shrunk toward all stacks'" in w
    assert "合并" in render(Message.from_json(next(j for j in p.warnings_i18n
                                                  if j["id"] == "plan.warn.within_error_pooled")), "zh")


def test_a_margin_beyond_the_pooled_error_gets_no_warning(cat) -> None:  # type: ignore[no-untyped-def]
    """Buyer regression 6: one case at +30 % (|error| 30 %) pooled with 20 CUDA cases near 0 gives ~6 %; the 910B's
    ~14 % TPOT headroom exceeds it: no warning, no word in the ranking (before: 'within the error … 30 %')."""
    rs = [_case(0, "cann", 100.0, 130.0)]
    rs += [_case(100 + i, "cuda", 100.0, 100.0 + d) for i, d in enumerate((-3, -1, 0, 1, 3) * 4)]
    plain = [p.device for p in _buyer(cat, {}, top=10).plans]
    r = _buyer(cat, summarize(rs), top=10)
    assert [p.device for p in r.plans] == plain
    p = next(p for p in r.plans if p.device == "ascend-910b")
    assert not any(j["id"].startswith("plan.warn.within_error") for j in p.warnings_i18n)
    assert "likely missed" not in p.reason and "within the known" not in p.reason


def test_a_stack_without_cases_is_judged_on_all_stacks_bias(cat) -> None:  # type: ignore[no-untyped-def]
    rs = [_case(100 + i, "cuda", 100.0, 100.0 + d) for i, d in enumerate((15, 20, 25, 30, 35))]
    r = _buyer(cat, summarize(rs))  # every stack's bias is +25 % (CUDA's own on 5 cases): one rule for all
    # each device plans a layout whose TPOT headroom the +25 % does not exceed where one costs at most 2x
    p = next(p for p in r.plans if p.device == "ascend-910b")
    assert p.tpot_s is not None and 100 * (BUYER_TPOT_S / p.tpot_s - 1) > 25
    # a layout the bias makes likely to miss ranks after those that pass up to twice its cost (since the rate is served at each row's own
    # latencies the A800's cheapest is 3 × b17 at 33.0 ms, 1 % headroom, and it falls in the top plans)
    for m_ in (q for q in r.plans if "likely missed" in q.reason):  # after the passing ones up to 2× its cost
        assert all(q.total_cost_cny > DEMOTION_COST_FACTOR * m_.total_cost_cny for q in r.plans
                   if q.rank > m_.rank and "likely missed" not in q.reason)
        assert "ascend-910b" != m_.device


def test_five_cases_rank_it_after_the_plans_that_pass_up_to_twice_its_cost(cat) -> None:  # type: ignore[no-untyped-def]
    """8 cards pinned: no 910B layout passes CANN's +117 % on 5 cases. Buyer regression 2: it ranks after the plans
    that pass costing at most DEMOTION_COST_FACTOR (2, assumed) times its ¥17,500, before dearer ones, and names the
    cheapest plan that passes."""
    plain = _buyer(cat, {}, gpus=8, top=10).plans
    r = _buyer(cat, _bands(LITTLE_EVIDENCE_CASES), gpus=8, top=10)
    assert sorted(p.device for p in r.plans) == sorted(p.device for p in plain)
    assert [p.rank for p in r.plans] == list(range(1, len(r.plans) + 1))
    p = next(p for p in r.plans if p.device == "ascend-910b")
    assert f"({LITTLE_EVIDENCE_CASES} cases" in p.reason and "likely missed" in p.reason
    before = [q for q in r.plans if q.rank < p.rank]
    after = [q for q in r.plans if q.rank > p.rank]
    assert before and all(q.total_cost_cny <= DEMOTION_COST_FACTOR * p.total_cost_cny for q in before)
    assert after and all(q.total_cost_cny > DEMOTION_COST_FACTOR * p.total_cost_cny for q in after)
    cheapest = min(before + after, key=lambda q: q.total_cost_cny)
    assert f"cheapest plan that passes: #{cheapest.rank} (¥{cheapest.total_cost_cny:,.0f})" in p.reason
    assert "ranked after the plans that pass costing at most 2× its cost (assumed), before dearer ones" in p.reason
    zh = render(Message.from_json(p.reason_i18n), "zh")
    assert "最便宜的达标方案" in zh and "2 倍（假设值）" in zh


def test_a_bias_within_the_headroom_still_says_may_be_missed(cat) -> None:  # type: ignore[no-untyped-def]
    r = _buyer(cat, _bands(LITTLE_EVIDENCE_CASES))
    cuda = [p for p in r.plans if "within the known decode-speed error" in p.reason]
    assert all("may be missed" in p.reason and "likely missed" not in p.reason for p in cuda)
