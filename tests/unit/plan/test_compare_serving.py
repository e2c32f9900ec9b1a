"""`suanli compare` serves at the planner's serving search, not batch 1 (a buyer's review: "h100-sxm … batch 1 … 107
tokens/s" made throughput and value per yuan meaningless): the request's rate/TPOT/TTFT targets when stated, else
the largest-throughput batch within a default TPOT (200 ms, MLPerf Inference's Server bound); the batch is in the row."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.estimate.estimate import estimate
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import DEFAULT_SERVING_TPOT_S, plan_workload, serving_capacity
from suanli.validate.bands import packaged_error_bands

DEVICES = ["h100", "910b", "a100-80g"]


def _rule(row):  # type: ignore[no-untyped-def]
    """The serving rule's own message id (compare wraps it in cmp.serving.lengths with the request's lengths)."""
    j = row["serving_rule_i18n"]
    return j["params"]["rule"]["id"] if j["id"] == "cmp.serving.lengths" else j["id"]


def test_default_serves_at_a_real_batch_within_the_default_tpot(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-72b")
    rows = compare_devices(cat, m, DEVICES, "inference", 8, kinds=("listing", "index"))
    for r in rows:
        assert r["fits"] is True and r["layout"]["batch"] > 1, r["device"]
        assert f" b{r['layout']['batch']} " in r["layout"]["label"]  # plan's label: 4×tp2 b256 bf16
        assert r["tpot_s"] <= DEFAULT_SERVING_TPOT_S
        assert _rule(r) == "cmp.serving.default_tpot" and "200 ms" in r["serving_rule"]
    h100 = rows[0]
    assert h100["tokens_per_s"] > 20 * 107  # batch 1 gave 107 tokens/s


def test_rows_are_the_planner_serving_layout(cat) -> None:  # type: ignore[no-untyped-def]
    """One serving model: with --tpot each row is the planner's capacity layout (`serving_capacity`: the largest batch
    whose steady-state TPOT, decode step + the batch's prefill over the output, is within it, through plan's evidence
    step with the packaged error bands), re-estimated by `suanli estimate` (its tpot_steady_s). The tp is the one
    whose own capacity is the most (plan's `_capacity_rates` rule, as with a rate: costc task 2026-12-01), so the
    row is `serving_capacity` with that tp pinned and carries at least its pick over the whole device."""
    m = lookup.model(cat, "qwen2.5-72b")
    bands = packaged_error_bands()
    rows = compare_devices(cat, m, DEVICES, "inference", 8, tpot_s=0.05, error_bands=bands)
    for r in rows:
        req = make_request(model=m.id, task="inference", gpus=8, tpot_s=0.05, tokens=1e9, precision="bf16")
        whole, _ = serving_capacity(cat, m, req, r["device"], bands)
        req = req.model_copy(update={"tp": r["layout"]["tp"]})
        lay, why = serving_capacity(cat, m, req, r["device"], bands)
        assert lay is not None and why is None and whole is not None
        assert r["tokens_per_s"] >= whole.tokens_per_s * (1 - 1e-9)
        assert (r["layout"]["tp"], r["layout"]["dp"], r["layout"]["batch"]) == (lay.tp, lay.dp, lay.micro_batch)
        assert r["layout"]["engine"] == lay.engine
        assert r["tokens_per_s"] == pytest.approx(lay.tokens_per_s, rel=1e-6)
        e = estimate(cat, m, lookup.accelerator(cat, r["device"]), plan_workload(lay, req)).contract()
        assert e["speed"]["tpot_steady_s"] <= 0.05 * (1 + 1e-9)
        assert _rule(r) == "cmp.serving.targets"


def test_a_tighter_tpot_never_raises_the_batch(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-72b")
    loose = compare_devices(cat, m, DEVICES, "inference", 8)
    tight = compare_devices(cat, m, DEVICES, "inference", 8, tpot_s=0.03)
    for a, b in zip(loose, tight):
        assert b["tpot_s"] <= 0.03 or b["layout_note"]
        assert b["tokens_per_s"] <= a["tokens_per_s"] * (1 + 1e-9)


def test_a_rate_the_cards_cannot_serve_is_named(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-72b")
    rows = compare_devices(cat, m, ["h100", "910b"], "inference", 8, requests_per_s=1000.0)
    for r in rows:
        assert r["layout_note_i18n"] is not None, r["device"]
    ok = compare_devices(cat, m, ["h100", "910b"], "inference", 8, requests_per_s=1.0)
    for r in ok:
        assert r["layout_note"] is None and r["tokens_per_s"] >= 256 * 1.0


def test_batch_given_is_kept_and_targets_are_serving_only(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    rows = compare_devices(cat, m, ["h100", "a100-80g"], "inference", 1, batch=1)
    assert {r["layout"]["batch"] for r in rows} == {1}
    assert _rule(rows[0]) == "cmp.serving.batch_given"
    with pytest.raises(InputError) as e:
        compare_devices(cat, m, ["h100", "a100-80g"], "inference", 1, batch=4, tpot_s=0.05)
    assert e.value.field == "batch"
    with pytest.raises(InputError) as e:
        compare_devices(cat, m, ["h100", "a100-80g"], "lora", 1, tpot_s=0.05)
    assert e.value.field == "tpot_s"
