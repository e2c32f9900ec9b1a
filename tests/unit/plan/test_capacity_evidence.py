"""compare's capacity (`serving_capacity`: the largest batch within the steady-state TPOT) takes plan's evidence step
as `serving_layout` does (`evidence_pick`, DEMOTION_COST_FACTOR): a layout whose TPOT margin at that batch lies within
its stack's known decode error gives way to one that passes at up to twice its time per request (consistency fix
2026-12-01; the capacity skipped it)."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import DEMOTION_COST_FACTOR, error_rule, serving_capacity
from suanli.validate.bands import packaged_error_bands


def test_capacity_gives_way_to_a_layout_that_passes_the_evidence(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen3-32b")
    bands = packaged_error_bands()
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
    # with them: the best that passes, within the demotion factor (the old capacity ignored the bands)
    assert (lay.tp, lay.micro_batch) == (4, 256) and not demoted(lay.tpot_s)
    assert lay.tokens_per_s * DEMOTION_COST_FACTOR >= bare.tokens_per_s
    assert lay.tpot_s <= 0.05
    # compare's row: the capacity a rate shows (costc task 2026-12-01, one function `compare._capacity_row`): the best
    # over every tp (plan's `_capacity_rates` rule, each tp's own capacity through the evidence step), tp2 × 4 at
    # batch 160, not `serving_capacity`'s single pick over the whole device (tp4 × 2 at 256); a rate up to it is
    # served on tp2 (the evidence step demotes, never refuses), so the rate's row showed it already
    rows = compare_devices(cat, m, ["h800", "910b"], "inference", 8, tpot_s=0.05, error_bands=bands)
    rated = compare_devices(cat, m, ["h800", "910b"], "inference", 8, tpot_s=0.05, requests_per_s=7.246,
                            error_bands=bands)
    assert (rows[0]["layout"]["tp"], rows[0]["layout"]["batch"]) == (2, 160)
    assert rows[0]["layout"] == rated[0]["layout"]
    assert rows[0]["tokens_per_s"] == pytest.approx(rated[0]["tokens_per_s"], rel=1e-12)
    assert rows[0]["tokens_per_s"] == pytest.approx(bare.tokens_per_s, rel=1e-6)
