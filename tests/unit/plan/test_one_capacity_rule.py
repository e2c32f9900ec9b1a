"""One rule for "serve at most N req/s on G cards of D, at tp T, batch B" (capacity task 2026-12-01):
`search.capacity_configs` — each tp's own capacity through plan's evidence step, then the best over every tp — is
what plan's "serve at most" hint, `serving_capacity` called alone and compare's capacity row all quote. compare no
longer loops over tp itself (it had `_capacity_tp`; `serving_capacity` alone returned a single pick over the whole
device, tp4 × 2 for qwen3-32b on 8 × H800, while both plan and compare quoted tp2 × 4)."""

from __future__ import annotations

import pytest
from one_card_h20 import one_card_h20

from suanli.catalog import lookup
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import plan, round_down_rate, serving_capacity
from suanli.validate.bands import packaged_error_bands

OUTPUT = 256
# (model, device, cards, the capacity's tp): qwen3-32b on 8 × H800 is best at tp2, not the largest tp (8); on 8 × 910B
# at tp8 since vLLM-Ascend's per-step overhead was fitted (2026-12-02; tp4 before)
CASES = [("qwen3-32b", "h800", 8, 2), ("qwen2.5-72b", "h20", 8, 4), ("qwen3-32b", "ascend-910b", 8, 8),
         ("qwen2.5-7b", "rtx-4090", 2, None)]


@pytest.mark.parametrize(("model", "device", "gpus", "want_tp"), CASES)
def test_plan_compare_and_serving_capacity_quote_one_capacity(cat, model, device, gpus, want_tp) -> None:  # type: ignore[no-untyped-def]
    if device == "h20":
        cat = one_card_h20(cat)  # the H20 rented one card per instance (its 1-card index row only)
    m = lookup.model(cat, model)
    bands = packaged_error_bands()
    acc = lookup.accelerator(cat, device)
    req = make_request(model=m.id, task="inference", gpus=gpus, tpot_s=0.05, tokens=1e9, input=512, output=OUTPUT,
                       precision="bf16")
    lay, why = serving_capacity(cat, m, req, acc.id, bands)
    assert lay is not None, why
    if want_tp is not None:
        assert lay.tp == want_tp
    most = round_down_rate(lay.tokens_per_s / OUTPUT)
    # compare with a TPOT: its row is that capacity (same tp, batch and rate)
    pair = [device, "a800" if device != "a800" else "h800"]  # compare takes 2 to 4 devices
    row = compare_devices(cat, m, pair, "inference", gpus, tpot_s=0.05, error_bands=bands)[0]
    assert row["device"] == acc.id
    assert (row["layout"]["tp"], row["layout"]["batch"]) == (lay.tp, lay.micro_batch)
    assert row["tokens_per_s"] == pytest.approx(lay.tokens_per_s, rel=1e-9)
    # compare with a rate beyond it: the same row, and "serve at most" its rate rounded down
    over = compare_devices(cat, m, pair, "inference", gpus, tpot_s=0.05, requests_per_s=3 * most,
                           error_bands=bands)[0]
    assert over["served"] is None and over["layout"]["tp"] == lay.tp
    assert over["layout_note_i18n"]["params"]["why"]["params"]["rps"] == pytest.approx(most, rel=1e-12)
    # plan on those cards with the same rate: its why-not ("serve at most", as its relax hint) quotes the same rate
    preq = make_request(model=m.id, task="inference", gpus=gpus, requests_per_s=3 * most, tpot_s=0.05,
                        precision="bf16", devices=(acc.id,), region="any",
                        offer_kinds=("listing", "index", "reference"), input=512, output=OUTPUT)
    r = plan(cat, m, preq, error_bands=bands)
    assert not r.plans
    why_not = next(x["reason_i18n"] for x in r.why_not if x["device"] == acc.id)
    if device == "h20":
        # every H20 offer is a 1-card instance: no offer rents a replica at all, and plan says that first, not the
        # rate (bc8fa01: raising the card limit can never help)
        assert why_not["id"] == "why.serve_no_instance"
        assert why_not["params"]["largest"] == 1 < why_not["params"]["tp"] <= lay.tp
    else:
        assert why_not["id"] == "why.rate_gpus" and why_not["params"]["rps"] == pytest.approx(most, rel=1e-12)
    # and plan serves that rate, on the capacity's tp (where an offer rents the cards; else not for the rate)
    ok = plan(cat, m, preq.model_copy(update={"requests_per_s": most}), error_bands=bands)
    if ok.plans:
        assert ok.plans[0].tp == lay.tp
    else:
        assert all(x["reason_i18n"]["id"] != "why.rate_gpus" for x in ok.why_not), ok.why_not
