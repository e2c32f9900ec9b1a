"""`suanli compare` with a request rate shows each device's capacity, not the demand (buyer's review 2026-12-01:
qwen3-32b on 8 × H800 vs 8 × 910B at 7.246 requests/s printed 1,894 vs 1,917 tokens/s — each row ≈ rate × output
tokens, the batch shrunk to just carry the rate — while without the rate the same command gave 15,463 vs 6,740).

The row is the layout's capacity (the full batch's tokens/s × replicas, what compare without the rate gives); the
rate is in `served`: the planner's serving search at that tp, the batch each replica runs to carry it and that
batch's TPOT and TTFT."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import serving_layout

RATE = 7.246
OUTPUT = 256  # PlanRequest's default output tokens per request, which compare serves


def _rule(row):  # type: ignore[no-untyped-def]
    """The serving rule's own message id (compare wraps it in cmp.serving.lengths with the request's lengths)."""
    j = row["serving_rule_i18n"]
    return j["params"]["rule"]["id"] if j["id"] == "cmp.serving.lengths" else j["id"]


def _rows(cat, rate: float | None):  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen3-32b")
    return compare_devices(cat, m, ["h800", "910b"], "inference", 8, requests_per_s=rate, tpot_s=0.05, ttft_s=1.0)


def test_capacity_differs_between_devices_with_a_rate(cat) -> None:  # type: ignore[no-untyped-def]
    h800, ascend = _rows(cat, RATE)
    # the old rows were both ≈ 7.246 × 256 = 1,855 tokens/s (1,865 vs 1,616): a buyer read "910B ≈ H800"
    assert h800["tokens_per_s"] > 1.5 * ascend["tokens_per_s"]
    assert min(h800["tokens_per_s"], ascend["tokens_per_s"]) > 2 * RATE * OUTPUT


def test_the_row_is_compare_without_the_rate(cat) -> None:  # type: ignore[no-untyped-def]
    """Same layout, batch and tokens/s as compare without the rate: the capacity does not depend on the demand."""
    for with_rate, without in zip(_rows(cat, RATE), _rows(cat, None)):
        assert with_rate["layout"]["label"] == without["layout"]["label"]
        assert with_rate["tokens_per_s"] == pytest.approx(without["tokens_per_s"], rel=1e-9)
        assert with_rate["memory_needed_bytes"] == pytest.approx(without["memory_needed_bytes"], rel=1e-9)
        assert without["served"] is None
        assert _rule(with_rate) == "cmp.serving.capacity_rate"
        assert "capacity" in with_rate["serving_rule"] and "7.246 requests/s" in with_rate["serving_rule"]


def test_served_is_the_planner_at_the_run_batch(cat) -> None:  # type: ignore[no-untyped-def]
    """The rate is served at the planner's run batch of the row's tp, with that batch's latencies."""
    m = lookup.model(cat, "qwen3-32b")
    for r in _rows(cat, RATE):
        s = r["served"]
        assert s is not None and r["layout_note"] is None, r["device"]
        assert s["tp"] == r["layout"]["tp"] and s["replicas"] == r["layout"]["dp"]
        assert s["batch"] < r["layout"]["batch"]  # a smaller batch carries the rate
        assert s["output_tokens_per_s"] >= RATE * OUTPUT * (1 - 1e-9)
        assert s["tpot_s"] <= 0.05 and s["ttft_s"] <= 1.0
        req = make_request(model=m.id, task="inference", gpus=8, tp=s["tp"], requests_per_s=RATE, tpot_s=0.05,
                           ttft_s=1.0, precision=r["layout"]["precision"])
        lay, why = serving_layout(cat, m, req, r["device"])
        assert lay is not None and why is None
        assert (lay.micro_batch, lay.tpot_s, lay.ttft_s) == (s["batch"], s["tpot_s"], s["ttft_s"])
        assert s["capacity_share"] == pytest.approx(s["output_tokens_per_s"] / r["tokens_per_s"])
        assert f"batch {s['batch']} per replica" in s["note"] and s["note_i18n"]["id"] == "cmp.serving.served"


def test_a_rate_beyond_the_capacity_is_named_beside_the_capacity(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen3-32b")
    rows = compare_devices(cat, m, ["h800", "910b"], "inference", 8, requests_per_s=1000.0, tpot_s=0.05, ttft_s=1.0)
    for r, free in zip(rows, _rows(cat, None)):
        assert r["served"] is None and r["layout_note_i18n"]["id"] == "cmp.serving.not_served", r["device"]
        assert r["tokens_per_s"] == pytest.approx(free["tokens_per_s"], rel=1e-9)  # the capacity, not batch 1


def test_cli_prints_the_served_line_per_device(cat) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from suanli.cli.main import app

    out = CliRunner().invoke(app, ["--lang", "en", "compare", "--model", "qwen3-32b", "--gpu", "h800", "--gpu",
                                   "910b", "--gpus", "8", "--requests-per-s", str(RATE), "--tpot", "0.05", "--ttft",
                                   "1"], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    # the capacities within a steady TPOT of 50 ms (370e2ef), the best over every tp the rate search serves on
    # (`_capacity_tp`): the H800's tp2 × 4 b160, 12,838 tokens/s (was tp4 × 2 b256, 10,928, while tp2 served 43-50 req/s)
    # the 910B's 1 × tp8 b202, 4,051 tokens/s (5,295 until vLLM-Ascend's per-step overhead was fitted, 2026-12-02)
    assert "12,838" in text and "4,051" in text
    assert text.count("serves 7.246 requests/s") == 2
    assert "the tokens/s column is that capacity" in text
