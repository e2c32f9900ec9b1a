"""Buyer review 2026-12-03 (E): `compare --model qwen2.5-7b --task pretrain --gpu 910b --gpus 8` showed tp4·dp2 at
ZeRO 0, 38.8 of 54.4 GiB per card, "fits (tight)" with a memory warning, while `plan --gpu 910b --gpus 8` planned
tp4·dp2 at ZeRO 1, 28.1 GiB, at exactly the same tokens/s (MindSpeed's measured MFU sets the speed of many layouts).
Both now break a tie in speed by plan's ranking rule (`_rank_order`: one that passes the evidence checks, then the
least short of its known error), so compare, migrate cost and estimate's fit hint lay out what plan plans."""

from __future__ import annotations

import datetime as dt

from suanli.catalog import lookup
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.validate.bands import packaged_error_bands

TODAY = dt.date(2026, 12, 3)
KINDS = ("listing", "index", "reference", "contract")


def test_compare_lays_out_an_equally_fast_layout_as_plan_does(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    bands = packaged_error_bands()
    row = compare_devices(cat, m, ["910b", "h20"], "pretrain", 8, tokens=1e11, kinds=KINDS, error_bands=bands)[0]
    req = make_request(model="qwen2.5-7b", task="pretrain", tokens=1e11, devices=("910b",), gpus=8,
                       objective="fastest", offer_kinds=KINDS)
    p = plan(cat, m, req, TODAY, error_bands=bands).plans[0]
    lay = row["layout"]
    assert (lay["tp"], lay["pp"], lay["zero"], lay["batch"]) == (p.tp, p.pp, p.zero, p.micro_batch) == (4, 1, 1, 1)
    assert abs(row["memory_per_gpu_bytes"] - p.memory_per_gpu_bytes) < 0.01 * 2**30
    assert abs(row["tokens_per_s"] - p.tokens_per_s) < 1e-6 * p.tokens_per_s
    assert not row["fits_tight"]  # the tied ZeRO 0 layout's 28.7 % headroom was within the training-memory band
