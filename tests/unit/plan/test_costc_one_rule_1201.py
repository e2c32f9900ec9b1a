"""One offer rule and one serving pick everywhere (costc task, buyer regression check 2026-12-01):
6. compare with concurrent users and a device that cannot carry the rate explains the row instead of refusing
   (the carry search lifts the latency targets, and the users with them: the rate is already derived);
7. compare with a TPOT (or a rate) and without one picks its capacity batch by plan's evidence step: the same
   targets, typed or default, give the same batch;
8. one output token: no TPOT in estimate's contract either."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.plan.compare import compare_devices
from suanli.plan.request import rate_from_users
from suanli.validate.bands import packaged_error_bands


def test_compare_users_beyond_one_devices_capacity(cat) -> None:  # type: ignore[no-untyped-def]
    """qwen2.5-72b on 16 cards, 200 users at TPOT 50 ms (15.625 req/s): 910B's tp8 × 2 serves at most ~14.6 req/s;
    its row says so in its own layout (was: "concurrent_users: needs tpot_s", the users passed to a search with
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
    assert note["id"] == "cmp.serving.not_served_row", note
    assert note["params"]["rps"] < rate
    assert note["params"]["carry_batch"] > b910["layout"]["batch"]
    assert all("200 users" in r["users_note"] for r in rows.values())
