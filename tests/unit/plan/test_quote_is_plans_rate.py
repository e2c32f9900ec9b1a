"""The capacity quote is plan's own rate (task D 2026-12-01): "serve at most X req/s" on G cards of D is the largest
rate `plan` (same model, device, count, precision, targets) returns that configuration for, and where plan attaches a
thin-margin warning below X, the quote says from which rate ("above Y req/s the TPOT margin is under …"). The quote
had taken plan's evidence step on the largest batch (a thin TPOT or memory margin set it aside), so it said 7 req/s
for qwen2.5-7b on one RTX 4090 while plan served 7.7 on the same card, batch and tp. One predicate
(`search._serve_checks`) is plan's row check and the capacity search's; one rule (`search.margin_warned`) is plan's
warning and the quote's comfortable rate."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import plan, round_down_rate, serving_capacity
from suanli.validate.bands import packaged_error_bands

OUTPUT = 256
# (model, device, cards, precision, --tpot, --ttft): several presets, devices, precisions and binding margins (TPOT;
# memory at a loose TPOT on the 4090)
CASES = [("qwen3-32b", "h800", 8, "bf16", 0.05, None), ("qwen3-32b", "h800", 8, "bf16", 0.05, 1.0),
         ("qwen3-32b", "ascend-910b", 8, "bf16", 0.05, None), ("qwen2.5-7b", "rtx-4090", 1, "bf16", 0.05, None),
         ("qwen2.5-7b", "rtx-4090", 1, "bf16", 0.2, None), ("qwen2.5-7b", "rtx-4090", 2, "fp8", 0.05, None),
         ("qwen2.5-14b", "h800", 1, "int8", 0.03, None)]
THIN_IDS = {"decode-speed": "plan.warn.within_error", "prefill-speed": "plan.warn.within_error",
            "inference-memory": "plan.warn.memory_within_error"}
METRIC = {"decode-speed": "TPOT", "prefill-speed": "TTFT"}


def _plan(cat, m, acc, gpus, precision, tpot, ttft, rate, tp):  # type: ignore[no-untyped-def]
    req = make_request(model=m.id, task="inference", gpus=gpus, tp=tp, requests_per_s=rate, tpot_s=tpot, ttft_s=ttft,
                       precision=precision, devices=(acc.id,), region="any",
                       offer_kinds=("listing", "index", "reference"), input=512, output=OUTPUT)
    return plan(cat, m, req, error_bands=packaged_error_bands())


def _thin(p, group):  # type: ignore[no-untyped-def]
    """Plan `p`'s thin-margin warnings of `group` (`_margins`: the margin under the stack's known error)."""
    out = []
    for w in p.warnings_i18n:
        if isinstance(w, dict) and str(w.get("id", "")).startswith(THIN_IDS[group]):
            if group in METRIC and w["params"].get("metric") != METRIC[group]:
                continue
            out.append(w)
    return out


@pytest.mark.parametrize(("model", "device", "gpus", "precision", "tpot", "ttft"), CASES)
def test_quote_is_the_largest_rate_plan_serves_and_says_where_it_warns(cat, model, device, gpus, precision, tpot,
                                                                         ttft) -> None:  # type: ignore[no-untyped-def]
    m, acc = lookup.model(cat, model), lookup.accelerator(cat, device)
    req = make_request(model=m.id, task="inference", gpus=gpus, tpot_s=tpot, ttft_s=ttft, tokens=1e9, input=512,
                       output=OUTPUT, precision=precision)
    lay, why = serving_capacity(cat, m, req, acc.id, packaged_error_bands())
    assert lay is not None and lay.max_requests_per_s, why
    most = round_down_rate(lay.max_requests_per_s)
    # plan at the quoted rate: that configuration (tp, precision) is feasible and planned
    at = _plan(cat, m, acc, gpus, precision, tpot, ttft, most, lay.tp)
    assert at.plans, at.why_not
    assert (at.plans[0].tp, at.plans[0].precision) == (lay.tp, lay.precision)
    assert at.plans[0].micro_batch <= lay.micro_batch
    # 2 % above it: not on that tp, nor on any other (the quote is the best over every tp)
    for tp in (lay.tp, None):
        above = _plan(cat, m, acc, gpus, precision, tpot, ttft, most * 1.02, tp)
        assert not above.plans, (tp, [(p.tp, p.micro_batch) for p in above.plans])
    # its why-not quotes the same rate and the same clause
    over = _plan(cat, m, acc, gpus, precision, tpot, ttft, 3 * most, None)
    w = next(x["reason_i18n"] for x in over.why_not if x["device"] == acc.id)
    assert w["id"] == "why.rate_gpus" and w["params"]["rps"] == pytest.approx(most, rel=1e-12)
    thin = lay.rate_thin_i18n
    assert (w["params"]["thin"] or None) == thin
    if thin is None:  # no thin margin up to the quote: plan warns of none there
        assert lay.comfortable_requests_per_s == pytest.approx(lay.max_requests_per_s, rel=1e-12)
        for group in THIN_IDS:
            assert not _thin(at.plans[0], group)
        return
    # the warning threshold is where plan starts warning: none of that margin at Y, one just above it
    group = str(thin["params"]["group"]["id"]).removeprefix("band.")
    if thin["id"] == "rate.thin_always":
        assert _thin(at.plans[0], group)
        return
    easy = float(thin["params"]["rps"])
    assert easy == round_down_rate(lay.comfortable_requests_per_s or 0.0) and 0 < easy < most
    calm = _plan(cat, m, acc, gpus, precision, tpot, ttft, easy, lay.tp)
    assert calm.plans and calm.plans[0].tp == lay.tp
    assert not any(_thin(calm.plans[0], g) for g in THIN_IDS), calm.plans[0].warnings
    warned = _plan(cat, m, acc, gpus, precision, tpot, ttft, min(easy * 1.02, most), lay.tp)
    assert warned.plans and warned.plans[0].tp == lay.tp
    hit = _thin(warned.plans[0], group)
    assert hit and all(float(h["params"]["margin"]) < float(thin["params"]["limit"]) + 1e-9 for h in hit), \
        warned.plans[0].warnings


def test_compare_row_quotes_plans_rate_in_json_and_words(cat) -> None:  # type: ignore[no-untyped-def]
    """compare --tpot: each row's max_requests_per_s is plan's quote for its cards and tp, comfortable_requests_per_s
    the rate above which plan warns, and capacity_note says both (en)."""
    m = lookup.model(cat, "qwen3-32b")
    bands = packaged_error_bands()
    row = compare_devices(cat, m, ["h800", "910b"], "inference", 8, tpot_s=0.05, error_bands=bands)[0]
    req = make_request(model=m.id, task="inference", gpus=8, tpot_s=0.05, tokens=1e9, input=512, output=OUTPUT,
                       precision="bf16")
    lay, _ = serving_capacity(cat, m, req, "h800", bands)
    assert lay is not None and lay.max_requests_per_s and lay.comfortable_requests_per_s
    assert row["layout"]["tp"] == lay.tp
    assert row["max_requests_per_s"] == round_down_rate(lay.max_requests_per_s)
    assert row["comfortable_requests_per_s"] == round_down_rate(lay.comfortable_requests_per_s)
    note = row["capacity_note"]
    assert f"serves at most {row['max_requests_per_s']:,.3g} req/s" in note
    assert f"above {row['comfortable_requests_per_s']:,.3g} req/s the TPOT margin is under" in note
    # a rate beyond it: the not-served note carries the same clause
    over = compare_devices(cat, m, ["h800", "910b"], "inference", 8, tpot_s=0.05, requests_per_s=100.0,
                           error_bands=bands)[0]
    assert over["layout_note_i18n"]["params"]["why"]["params"]["thin"] == lay.rate_thin_i18n
    assert over["capacity_note"] is None
