"""Buyer review 2026-12-02 (G4): `compare --model deepseek-r1 --gpu 910b --gpu h20 --gpus 16 --concurrent-users 100
--tpot 0.05 --precision int8 --offer-kinds all`: the H20 row (8×tp2·ep8) said "serves at most 11.9 req/s … at the
row's tp" and then "holds at most 148 concurrent users … (tp8 × 2 replica(s) × batch 74 …)", a different layout,
unannounced. `max_users` keeps its documented meaning (the most users plan accepts on the row's cards over every
layout, README); where that layout is not the row's, the sentence now says it is another one. en and zh."""

from __future__ import annotations

import datetime as dt

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.i18n import Message, render
from suanli.plan.compare import compare_devices
from suanli.validate.bands import packaged_error_bands

TODAY = dt.date(2026, 12, 2)


def test_most_users_on_another_layout_says_so() -> None:
    cat = packaged_catalog()
    rows = compare_devices(cat, lookup.model(cat, "deepseek-r1"), ["910b", "h20"], "inference", 16,
                           precision="int8", tpot_s=0.05, concurrent_users=100, error_bands=packaged_error_bands(),
                           today=TODAY, kinds=("listing", "index", "reference", "contract"))
    h20 = rows[1]
    assert (h20["layout"]["tp"], h20["layout"]["ep"]) == (2, 8)
    note = h20["capacity_note_i18n"]
    assert note["id"] == "cmp.serving.at_most_users_other", h20["capacity_note"]
    assert note["params"]["layout"]["params"]["tp"] == 8 and h20["max_users"] == 148  # the documented max_users
    assert "holds at most 148 concurrent users, the most plan accepts at the row's precision over every layout, " \
        "here on another layout than the row's (tp8 × 2 replicas × batch 74" in h20["capacity_note"]
    zh = render(Message.from_json(note), "zh")
    assert "此处用的是另一种布局，不是本行的（" in zh


def test_most_users_on_the_rows_layout_keeps_the_plain_sentence() -> None:
    cat = packaged_catalog()
    rows = compare_devices(cat, lookup.model(cat, "qwen2.5-32b"), ["rtx-4090", "h100-sxm"], "inference", 8, precision="bf16",
                           tpot_s=0.05, ttft_s=1.0, concurrent_users=50, error_bands=packaged_error_bands(),
                           today=TODAY)
    h100 = rows[1]
    note = h100["capacity_note_i18n"]
    assert note["id"] == "cmp.serving.at_most_users"
    assert note["params"]["layout"]["params"]["tp"] == h100["layout"]["tp"]
    assert "another layout" not in h100["capacity_note"]
