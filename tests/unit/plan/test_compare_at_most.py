"""compare's capacity, "serve at most N req/s" and workload lengths agree with the serving search (buyer regression
check 2026-12-01): `compare --model qwen3-32b --gpu h800 --gpu 910b --gpus 8 --requests-per-s 100 --tpot 0.05 --ttft 1`
said 8 H800 "serve at most 45.7 req/s" (the rate of the searched batch 128) while 50 req/s was served at b159; its
capacity row was filtered on the plain decode step (b256, TPOT ~66 ms steady); --input/--output did not exist."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.validate.bands import packaged_error_bands


def _rows(cat, rate, **kw):  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen3-32b")  # the packaged error bands, as the CLI and API pass them (audit 3)
    return compare_devices(cat, m, ["h800", "910b"], "inference", 8, requests_per_s=rate, tpot_s=0.05, ttft_s=1.0,
                           error_bands=packaged_error_bands(), **kw)


def _at_most(row) -> float:  # type: ignore[no-untyped-def]
    why = row["layout_note_i18n"]["params"]["why"]
    return float(why["params"]["rps"])


def test_at_most_is_served_and_just_above_is_not(cat) -> None:  # type: ignore[no-untyped-def]
    h800, ascend = _rows(cat, 100.0)
    assert h800["served"] is None and ascend["served"] is None
    for i, row in enumerate((h800, ascend)):
        most = _at_most(row)
        # one source: the capacity column's own rate, rounded down (H800: 10,928 tok/s = 42.7 req/s, said 50.1)
        assert row["tokens_per_s"] / 256 * 0.99 <= most <= row["tokens_per_s"] / 256, (row["device"], most)
        at = _rows(cat, most)[i]
        assert at["served"] is not None and at["served"]["tpot_s"] <= 0.05, (row["device"], most)
        above = _rows(cat, most * 1.01)[i]
        # above it the capacity layout does not serve; compare may serve it on a tp the evidence step passed over
        # (whose own capacity then makes the row and carries it)
        assert above["served"] is None or (above["layout"]["tp"] != row["layout"]["tp"] and
                                           above["served"]["output_tokens_per_s"] <= above["tokens_per_s"]), \
            (row["device"], most)


def test_plan_relax_hint_quotes_the_same_rate(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen3-32b")
    req = make_request(model=m.id, task="inference", gpus=8, requests_per_s=52.0, tpot_s=0.05, ttft_s=1.0, precision="bf16",
                       devices=("h800-sxm",), region="any", offer_kinds=("listing", "index", "reference"))
    r = plan(cat, m, req, error_bands=packaged_error_bands())
    hint = next(x for x in r.relax_i18n if x["id"] == "relax.rate_gpus")
    most = _at_most(_rows(cat, 100.0)[0])
    assert hint["params"]["rps"] == pytest.approx(most, rel=1e-12)  # one source (was 50.1 beside compare's 42.7)
    ok = plan(cat, m, req.model_copy(update={"requests_per_s": most}), error_bands=packaged_error_bands())
    assert ok.plans and ok.plans[0].tpot_s is not None and ok.plans[0].tpot_s <= 0.05


def test_capacity_is_filtered_on_the_steady_tpot(cat) -> None:  # type: ignore[no-untyped-def]
    for rate in (None, 7.246):
        for row in _rows(cat, rate):
            lay = row["layout"]
            # the capacity is the rate served at the largest batch within the steady-state TPOT: served at ~100 %
            assert lay["batch"] < 256 or row["device"] != "h800-sxm"  # was b256 (steady TPOT ~66 ms) on the H800s
            assert "steady-state TPOT" in row["serving_rule"]
    h800 = _rows(cat, 7.246)[0]
    most = _at_most(_rows(cat, 100.0)[0])
    assert h800["tokens_per_s"] == pytest.approx(most * 256, rel=3e-3)


def test_input_and_output_lengths_reach_the_search(cat) -> None:  # type: ignore[no-untyped-def]
    short = _rows(cat, 5.0)
    long_ = _rows(cat, 5.0, input_tokens=1000, output_tokens=300)
    assert "1,000 prompt and 300 output tokens" in long_[0]["serving_rule"]
    assert "512 prompt and 256 output tokens" in short[0]["serving_rule"]
    assert long_[0]["served"]["output_tokens_per_s"] == pytest.approx(5.0 * 300, rel=0.2)
    assert long_[0]["served"] != short[0]["served"]
