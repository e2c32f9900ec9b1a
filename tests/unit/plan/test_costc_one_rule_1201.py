"""One offer rule and one serving pick everywhere (costc task, buyer regression check 2026-12-01):
6. compare with concurrent users and a device that cannot carry the rate explains the row instead of refusing
   (the carry search lifts the latency targets, and the users with them: the rate is already derived);
7. compare with a TPOT (or a rate) and without one: the same targets, typed or default, give the same batch (the
   capacity is plan's own largest batch since task D, its thin margins said beside it);
8. one output token: no TPOT in estimate's contract either."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.plan.compare import compare_devices
from suanli.plan.request import rate_from_users
from suanli.validate.bands import packaged_error_bands

from band_pins import with_decode_band_20261202


def test_compare_users_beyond_one_devices_capacity(cat) -> None:  # type: ignore[no-untyped-def]
    """qwen2.5-72b on 16 cards, 200 users at TPOT 50 ms (15.625 req/s): 910B's tp8 × 2 holds at most 186 users;
    its row says so with the layout and limit (was: "concurrent_users: needs tpot_s", the users passed to a search with
    the TPOT lifted)."""
    m = lookup.model(cat, "qwen2.5-72b")
    rows = {r["device"]: r for r in compare_devices(cat, m, ["h800", "910b"], gpus=16, concurrent_users=200,
                                                     tpot_s=0.05, error_bands=packaged_error_bands())}
    rate = rate_from_users(200, 256, 0.05)
    h800, b910 = rows[lookup.accelerator(cat, "h800").id], rows[lookup.accelerator(cat, "910b").id]
    assert h800["served"] is not None and h800["served"]["requests_per_s"] == pytest.approx(rate, rel=1e-12)
    assert h800["served"]["batch"] * h800["served"]["replicas"] >= 200  # a slot per user, as plan
    assert b910["served"] is None
    note = b910["layout_note_i18n"]
    # with users the sentence names the slots that bind, plan's number (task H 2026-12-01: "serves at most N req/s"
    # read as served where the users were the limit)
    assert note["id"] == "cmp.serving.not_served_users", note
    assert note["params"]["slots"] < 200 and note["params"]["slots"] == b910["max_users"]
    assert rate_from_users(note["params"]["slots"], 256, 0.05) < rate
    assert all("200 users" in r["users_note"] for r in rows.values())


def test_capacity_is_plans_largest_batch_and_says_where_memory_is_thin(cat, wide_memory_bands) -> None:  # type: ignore[no-untyped-def]
    """qwen2.5-7b on one RTX 4090: the capacity took the largest batch whose memory headroom passed the evidence step
    (b79, "7 req/s") while plan served up to 7.84 req/s on the same card (task D 2026-12-01: the quote is plan's own
    largest rate). --tpot 0.2: batch 141 (21.58 of 21.59 GiB, "likely short", said so), and the quote says above
    which rate the memory headroom is under the known inference-memory error; --tpot 0.05: batch 100, the TPOT margin
    thin first. Plan's "serve at most" quotes the same rate and clause."""
    from suanli.plan.search import plan, warn_limit
    from suanli.plan.request import make_request

    # CUDA's inference-memory band before 59baae9 (12.1 %, bias −11.9 %) and decode-speed's before 2026-12-02's
    # validate --write (conftest): which margin thins first depends on both
    bands = with_decode_band_20261202(wide_memory_bands)
    m = lookup.model(cat, "qwen2.5-7b")
    stack = lookup.accelerator(cat, "rtx-4090").stack
    for tpot, batch, margin in ((0.2, 141, "memory"), (0.05, 100, "decode-speed")):
        r = compare_devices(cat, m, ["rtx-4090", "h800"], tpot_s=tpot, error_bands=bands)[0]
        assert r["layout"]["batch"] == batch and r["likely_short"], (tpot, r["layout"]["batch"])
        note = r["capacity_note_i18n"]["params"]["thin"]
        assert note["id"] == "rate.thin" and note["params"]["margin"]["id"] == f"rate.margin.{margin}"
        group = "inference-memory" if margin == "memory" else margin
        assert note["params"]["limit"] == pytest.approx(warn_limit(bands, stack, group, margin == "memory"))
        assert r["comfortable_requests_per_s"] < r["max_requests_per_s"] <= r["tokens_per_s"] / 256
    r = compare_devices(cat, m, ["rtx-4090", "h800"], tpot_s=0.05, error_bands=bands)[0]
    req = make_request(model=m.id, task="inference", requests_per_s=8.5, tpot_s=0.05, precision="bf16", gpus=1,
                       devices=("rtx-4090",))
    res = plan(cat, m, req, error_bands=bands)
    hint = next(x for x in res.relax_i18n if x["id"] == "relax.rate_gpus")
    assert hint["params"]["rps"] == r["max_requests_per_s"] == 7.84  # the row's rate, rounded down (was 7)
    assert hint["params"]["thin"] == r["capacity_note_i18n"]["params"]["thin"]


def test_one_output_token_has_no_tpot(cat) -> None:  # type: ignore[no-untyped-def]
    """estimate --output 1: tpot_s null beside tpot_steady_s (was 0.0208 s, the decode step, beside "no TPOT"); the
    step stays as decode_step_s. compare's batch job with one output token is not held to the default 200 ms
    decode-step bound (no TPOT applies, fb33107)."""
    from suanli.estimate.estimate import estimate
    from suanli.estimate.workload import make_workload

    m = lookup.model(cat, "qwen2.5-14b")
    acc = lookup.accelerator(cat, "rtx-5090")
    w = make_workload(task="inference", precision="int4", batch=80, output=1, engine="vllm")
    s = estimate(cat, m, acc, w).contract()["speed"]
    assert s["tpot_s"] is None and s["decode_step_s"] == pytest.approx(0.0208, rel=0.05)
    s2 = estimate(cat, m, acc, w.model_copy(update={"output": 2})).contract()["speed"]
    assert s2["tpot_s"] == s2["decode_step_s"]
    rows = compare_devices(cat, lookup.model(cat, "qwen2.5-7b"), ["h800", "910b"], output_tokens=1)
    assert all(r["tpot_s"] is None for r in rows)
    assert rows[0]["serving_rule_i18n"]["params"]["rule"]["id"] == "cmp.serving.no_tpot"
