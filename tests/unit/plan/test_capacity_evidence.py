"""compare's capacity (`serving_capacity`: the largest batch within the steady-state TPOT) takes plan's evidence step
as `serving_layout` does (`evidence_pick`, DEMOTION_COST_FACTOR) on each tp: a layout whose TPOT margin at that batch
lies within its stack's known decode error gives way to one of its tp that passes at up to twice its time per request
(consistency fix 2026-12-01; the capacity skipped it); the capacity is then the best over every tp
(`search.capacity_configs`, capacity task 2026-12-01)."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.estimate.estimate import ErrorBand
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import DEMOTION_COST_FACTOR, error_rule, serving_capacity
from suanli.validate.bands import packaged_error_bands


# CUDA's decode-speed band before the optimum GPTQ rows (c3dbca8^: 125 cases on the stack, median |error| 16.0 %,
# signed +6.2 %), pinned so the test keeps its layouts when `suanli validate --write` moves the packaged band (at
# c3dbca8's +7-8 % bias tp4 × 2's 6.5 % margin is demoted too)
OLD_DECODE = {"decode-speed": (16.008800900902628, 67.573416847337, 126, 6.214064106577349),
              "holdout:decode-speed": (16.008800900902628, 67.573416847337, 126, 6.214064106577349),
              "stack:cuda:decode-speed": (15.983868738299787, 67.573416847337, 125, 6.161296626669039)}


def _bands() -> dict[str, ErrorBand]:
    b = dict(packaged_error_bands())
    for key, (med, p90, n, signed) in OLD_DECODE.items():
        b[key] = b[key].model_copy(update={"median_abs_pct": med, "p90_abs_pct": p90, "cases": n,
                                           "median_signed_pct": signed})
    return b


def test_capacity_gives_way_to_a_layout_that_passes_the_evidence(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen3-32b")
    bands = _bands()
    req = make_request(model=m.id, task="inference", gpus=8, tpot_s=0.05, tokens=1e9, input=512, output=256,
                       precision="bf16")
    bare, _ = serving_capacity(cat, m, req, "h800")
    lay, _ = serving_capacity(cat, m, req, "h800", bands)
    assert bare is not None and lay is not None and bare.tpot_s is not None and lay.tpot_s is not None
    # without the bands: the highest rate, tp2 × 4 at batch 160 (12,838 tokens/s, steady TPOT ~49.6 ms)
    assert (bare.tp, bare.micro_batch) == (2, 160) and bare.tokens_per_s == pytest.approx(12_838, rel=2e-4)
    limit, risk = error_rule(bands, lookup.accelerator(cat, "h800").stack, "decode-speed", False)
    assert limit is not None and risk is not None

    def demoted(tpot_s: float) -> bool:  # `_evidence_fails`' TPOT check
        margin = 100 * (0.05 / tpot_s - 1)
        return margin < limit and risk > margin

    assert demoted(bare.tpot_s)
    # with them: each tp's own capacity through the evidence step, then the best over every tp (capacity task
    # 2026-12-01, `search.capacity_configs`): tp2's best is demoted on its TPOT but no tp2 configuration passes within
    # the demotion factor, so it stays, and its rate beats tp4 × 2 at batch 256 (10,928 tokens/s, the single pick over
    # the whole device this function returned before, while plan and compare quoted tp2). A rate up to it is served
    # on tp2 (the evidence step demotes, never refuses).
    assert (lay.tp, lay.micro_batch) == (2, 160) and lay.tokens_per_s == pytest.approx(bare.tokens_per_s, rel=1e-12)
    tp4, _ = serving_capacity(cat, m, req.model_copy(update={"tp": 4}), "h800", bands)
    assert tp4 is not None and tp4.tpot_s is not None
    assert (tp4.tp, tp4.micro_batch) == (4, 256) and not demoted(tp4.tpot_s)
    assert tp4.tokens_per_s == pytest.approx(10_928, rel=2e-4) and tp4.tokens_per_s * DEMOTION_COST_FACTOR >= lay.tokens_per_s
    # compare's row is that capacity, with a TPOT or a rate (`compare._capacity_row` calls `serving_capacity`)
    rows = compare_devices(cat, m, ["h800", "910b"], "inference", 8, tpot_s=0.05, error_bands=bands)
    rated = compare_devices(cat, m, ["h800", "910b"], "inference", 8, tpot_s=0.05, requests_per_s=7.246,
                            error_bands=bands)
    assert (rows[0]["layout"]["tp"], rows[0]["layout"]["batch"]) == (2, 160)
    assert rows[0]["layout"] == rated[0]["layout"]
    assert rows[0]["tokens_per_s"] == pytest.approx(rated[0]["tokens_per_s"], rel=1e-12)
    assert rows[0]["tokens_per_s"] == pytest.approx(lay.tokens_per_s, rel=1e-6)
