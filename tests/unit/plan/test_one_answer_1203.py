"""Serving answers agree between plan and compare (task C 2026-12-03): the users the cards hold are counted over the
layouts an offer rents, in plan and compare alike (`search._rentable`); the batches searched for concurrent users do
not depend on the card limit, so a larger limit never finds a dearer plan (`search._serve_batches`); the precision-up
note is never a cheaper plan than the one it sits beside unless it says that it fails the evidence checks."""

from __future__ import annotations

import re
from typing import Any

import pytest

from one_card_h20 import one_card_h20

from suanli.catalog import lookup
from suanli.catalog.offers import OFFER_KINDS
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import _serve_batches, plan
from suanli.validate.bands import packaged_error_bands


@pytest.fixture(scope="module")
def bands() -> Any:
    return packaged_error_bands()


def test_plan_and_compare_quote_one_users_figure_on_one_card_rentals(cat, bands) -> None:  # type: ignore[no-untyped-def]
    # before: plan's hint said 8 H20s hold 128 users (tp1's sampled batch 16: tp2's 232 counted, which no 1-card
    # offer rents), compare said tp1's 192
    cat = one_card_h20(cat)  # the H20 rented one card per instance (its 1-card index row only)
    m = lookup.model(cat, "qwen3-32b")
    kw = dict(concurrent_users=200, tpot_s=0.05, ttft_s=2.0)
    r = plan(cat, m, make_request(model=m.id, task="inference", devices=("h20",), gpus=8, precision=("bf16",),
                                  offer_kinds=tuple(OFFER_KINDS), **kw), error_bands=bands)
    assert not r.plans
    tip = next(x for x in r.relax_i18n if x["id"] == "relax.slots_gpus")
    row = next(x for x in compare_devices(cat, m, ["h20", "910b"], gpus=8, precision="bf16", kinds=tuple(OFFER_KINDS),
                                          error_bands=bands, **kw) if x["device"] == "h20")
    assert row["layout"]["tp"] == 1
    assert tip["params"]["slots"] == row["max_users"] == row["layout_note_i18n"]["params"]["slots"]
    assert tip["params"]["layout"]["params"]["tp"] == 1 and row["max_users"] < 200


def test_user_batches_do_not_depend_on_the_card_limit() -> None:
    req = dict(model="x", task="inference", concurrent_users=2000, tpot_s=0.05)
    small = _serve_batches(make_request(**req, max_gpus=200), [1, 2, 4, 8])
    assert small.tolist() == _serve_batches(make_request(**req, max_gpus=512), [1, 2, 4, 8]).tolist()


def test_a_larger_card_limit_never_finds_a_dearer_plan(cat, bands) -> None:  # type: ignore[no-untyped-def]
    # before: max_gpus 200 -> 25 x b80, ¥377,500; 512 -> 26 x b77, ¥392,500 (other batches sampled)
    m = lookup.model(cat, "qwen2.5-72b")
    req = dict(model=m.id, task="inference", concurrent_users=2000, tpot_s=0.05, ttft_s=2, domestic_only=True)
    costs = [plan(cat, m, make_request(**req, max_gpus=n), error_bands=bands).plans[0].total_cost_cny
             for n in (200, 512, 1024)]
    assert costs[1] <= costs[0] and costs[2] <= costs[1]


def test_precision_up_note_is_not_a_cheaper_plan_unless_it_says_it_fails(cat, bands) -> None:  # type: ignore[no-untyped-def]
    # before: "at bf16: 192 × 910B, ¥362,500" beside the int8 plan of ¥422,500 it was supposed to cost more than
    m = lookup.model(cat, "qwen3-32b")
    for users in (2000, 6000):
        p = plan(cat, m, make_request(model=m.id, task="inference", devices=("910b",), concurrent_users=users,
                                      tpot_s=0.05, ttft_s=2, max_gpus=256), error_bands=bands).plans[0]
        found = re.findall(r"at bf16[^;]*?\(¥([\d,]+) in all", p.reason)
        assert p.precision == "int8" and found, p.reason
        for total in found:
            assert float(total.replace(",", "")) >= p.total_cost_cny or "likely to miss its targets" in p.reason
