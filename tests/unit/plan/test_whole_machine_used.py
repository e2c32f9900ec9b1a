"""Plans that pay for a whole machine use it (buyer review 2026-12-03): the memory-saving measures are searched on a
card count whose plain layout fits only within the known memory error (`_keep_fallbacks_of`), at an equal bill the
layout that passes the evidence checks or falls least short of them ranks first (`_rank_order`), and "raise max_gpus
to N" says where N cards still fail them (`_cards_evidence`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.plan.request import make_request
from suanli.plan.search import OPT_OFFLOAD, OPT_PLAIN, _keep_fallbacks_of, _passes_evidence, _rank_order, plan
from suanli.validate.bands import packaged_error_bands

from band_pins import CANN_DECODE_BAND_20261202


@pytest.fixture(scope="module")
def bands() -> Any:
    """The packaged bands with CANN's one decode case at its +117 % of 2026-12-01 (band_pins; +2.4 % since vLLM-Ascend's
    per-step overhead was fitted, 2026-12-02): the 910B rows here test the evidence rules, which need a known error."""
    b = packaged_error_bands()
    return {**b, "stack:cann:decode-speed": b["stack:cann:decode-speed"].model_copy(update=CANN_DECODE_BAND_20261202)}


def test_offload_is_searched_where_the_plain_layout_is_likely_short(cat, bands) -> None:  # type: ignore[no-untyped-def]
    # before: 4× H800 with offload, 60.3 h, ¥69,000 with 4 of the 8 paid cards idle; plain AdamW on 8 fits only within
    # the training-memory error (likely short), so offload was never tried on 8 cards
    m = lookup.model(cat, "qwen3-32b")
    req = dict(model=m.id, task="full", tokens=1e9, devices=("h800",))
    p = plan(cat, m, make_request(**req), error_bands=bands).plans[0]
    four = plan(cat, m, make_request(**req, gpus=4), error_bands=bands).plans[0]
    assert p.gpus == 8 and p.offload_optimizer and p.total_cost_cny == pytest.approx(four.total_cost_cny)
    assert p.hours < 0.7 * four.hours
    assert not any(w.get("id") == "plan.warn.idle_cards" for w in p.warnings_i18n)
    # the reason names the plain layout that fits only within the error, not "does not fit"
    assert "fits only within the known training-memory error" in p.reason and "does not fit" not in p.reason
    # without the bands (no known error) the rule is as before: a plain layout fits on 8, no measure there
    plain = plan(cat, m, make_request(**req)).plans[0]
    assert not (plain.gpus == 8 and plain.offload_optimizer)


def test_keep_fallbacks_counts_a_likely_short_plain_layout_as_not_fitting(cat, bands) -> None:  # type: ignore[no-untyped-def]
    from suanli.plan.search import _devices
    from suanli.catalog.offers import usable_offers
    m = lookup.model(cat, "qwen3-32b")
    req = make_request(model=m.id, task="full", tokens=1e9, devices=("h800",))
    devs = _devices(cat, m, req, usable_offers(cat, req.region, req.offer_kinds))
    usable = 67.7 * 2**30
    part = {"dev": np.zeros(3, dtype=int), "gpus": np.array([8.0, 8.0, 8.0]),
            "opt": np.array([OPT_PLAIN, OPT_OFFLOAD, OPT_OFFLOAD]), "fits": np.ones(3, dtype=bool),
            "mem": np.array([66.8, 21.0, 30.0]) * 2**30, "usable": np.full(3, usable)}
    assert _keep_fallbacks_of([part])[0]["opt"].tolist() == [OPT_PLAIN]  # no bands: the plain one fits
    assert _keep_fallbacks_of([part], bands, req, devs)[0]["opt"].tolist() == [OPT_PLAIN, OPT_OFFLOAD, OPT_OFFLOAD]
    roomy = dict(part, mem=np.array([30.0, 21.0, 30.0]) * 2**30)  # plain with room: the measures dropped
    assert _keep_fallbacks_of([roomy], bands, req, devs)[0]["opt"].tolist() == [OPT_PLAIN]


def test_equal_bill_ranks_the_evidence_before_fewer_cards() -> None:
    n = 3
    grid = {"gpus": np.array([52.0, 56.0, 60.0]), "prec": np.zeros(n), "tpot": np.array([0.048, 0.045, 0.043]),
            "ttft": np.zeros(n)}
    cost, hours, k = np.full(n, 105_000.0), np.full(n, 730.0), np.arange(n)
    assert _rank_order("cheapest", cost, cost, hours, hours, grid, k).tolist() == [0, 1, 2]  # clean: fewer cards
    fails, short = np.array([True, True, False]), np.array([29.0, 23.0, 5.0])
    assert _rank_order("cheapest", cost, cost, hours, hours, grid, k, False, (fails, short)).tolist() == [2, 1, 0]
    fails = np.ones(n, dtype=bool)
    assert _rank_order("cheapest", cost, cost, hours, hours, grid, k, False, (fails, short)).tolist() == [2, 1, 0]
    # a lower bill still comes first whatever its margins
    cheaper = np.array([100_000.0, 105_000.0, 105_000.0])
    assert _rank_order("cheapest", cheaper, cheaper, hours, hours, grid, k, False, (fails, short))[0] == 0


def test_paid_idle_cards_serve_a_replica_where_that_buys_margin(cat, bands) -> None:  # type: ignore[no-untyped-def]
    # before: 13 × tp4 on 52 of the 56 paid 910Bs, TPOT 48.1 ms (4 % left); 14 × tp4 on 56: 45.3 ms, the same bill.
    # 1600 users (2000 until vLLM-Ascend's per-step overhead was fitted, 2026-12-02: 52 cards 48.7 ms, 56 cards 46.8 ms)
    m = lookup.model(cat, "qwen3-32b")
    req = dict(model=m.id, task="inference", concurrent_users=1600, tpot_s=0.05, ttft_s=2, domestic_only=True)
    p = next(p for p in plan(cat, m, make_request(**req), error_bands=bands).plans if p.device == "ascend-910b")
    at52 = plan(cat, m, make_request(**req, gpus=52), error_bands=bands).plans[0]
    assert p.total_cost_cny == pytest.approx(at52.total_cost_cny)
    assert p.gpus == 56 and p.replicas == 14 and p.tpot_s is not None and at52.tpot_s is not None
    assert p.tpot_s < at52.tpot_s
    assert not any(w.get("id") == "plan.warn.idle_cards" for w in p.warnings_i18n)


def test_raise_max_gpus_quotes_the_cheapest_plan_that_passes(cat, bands) -> None:  # type: ignore[no-untyped-def]
    # before: "needs at least 136 cards … raise max_gpus to 136", where the plan leaves 3 % of TPOT (likely missed)
    m = lookup.model(cat, "qwen2.5-72b")
    req = dict(model=m.id, task="inference", concurrent_users=2000, tpot_s=0.05, ttft_s=2, domestic_only=True)
    r = plan(cat, m, make_request(**req), error_bands=bands)
    assert not r.plans
    tip = next(x for x in r.relax_i18n if x["id"].startswith("relax.cards"))
    assert tip["id"] == "relax.cards_passing", r.relax
    kw = tip["params"]
    at_n = plan(cat, m, make_request(**req, max_gpus=kw["gpus"]), error_bands=bands).plans[0]
    assert not _passes_evidence(at_n)
    p = plan(cat, m, make_request(**req, max_gpus=kw["p_gpus"]), error_bands=bands).plans[0]
    assert _passes_evidence(p) and p.gpus == kw["p_gpus"] and p.replicas == kw["p_replicas"] and p.tp == kw["p_tp"]
    assert p.total_cost_cny == pytest.approx(kw["cost"])
    assert f"raise --max-gpus to {kw['p_gpus']}" in " ".join(r.relax) and f"¥{kw['cost']:,.0f}" in " ".join(r.relax)
    # without the bands no known error applies: the fewest cards, as before
    plain = plan(cat, m, make_request(**req))
    assert [x["id"] for x in plain.relax_i18n if x["id"].startswith("relax.cards")] == ["relax.cards"]
