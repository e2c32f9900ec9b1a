"""A serving row's served rate never exceeds its layout's capacity (defect found while fixing compare, 2026-12-01).

Since 14621b8 the rate a row served was Little's law over one request's joining TTFT + (output − 1) × TPOT: every
other request's prompt, prefilled on the same card, was left out, so at high load `compare --model qwen3-32b --gpu
h800 --gpus 8 --requests-per-s 100 --tpot 0.05` said the H800s served it at batch 232 and 25,624 tokens/s, 166 % of
the 15,463 tokens/s capacity the same command printed. The rate is now the steady-state throughput of the batch run
(b × output / (prefill of b prompts + (output − 1) steps): `estimate`'s output_tokens_per_s), and a user's TPOT the
decode step plus the prompts' prefill interleaved with it (`speed.steady_tpot_s`)."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.estimate.estimate import estimate
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import plan, plan_workload

OUTPUT = 256  # PlanRequest's default output tokens per request, which compare serves


def _rows(cat, rate: float | None, **kw):  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen3-32b")
    return compare_devices(cat, m, ["h800", "910b"], "inference", 8, requests_per_s=rate, tpot_s=0.05, **kw)


@pytest.mark.parametrize("ttft", [None, 1.0])
def test_served_never_exceeds_the_capacity_on_a_sweep_of_rates(cat, ttft) -> None:  # type: ignore[no-untyped-def]
    served = 0
    for rate in (1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 45.0, 50.0, 60.0, 80.0, 100.0):
        for r in _rows(cat, rate, ttft_s=ttft):
            s = r["served"]
            if s is None:
                continue
            served += 1
            assert s["output_tokens_per_s"] <= r["tokens_per_s"] * (1 + 1e-9), (rate, r["device"], s)
            assert s["capacity_share"] <= 1 + 1e-9
            assert s["output_tokens_per_s"] >= rate * OUTPUT * (1 - 1e-9)
            assert s["tpot_s"] <= 0.05
    assert served >= 8  # the sweep does serve most rates on both devices


def test_the_hundred_requests_example_is_not_served_beyond_the_capacity(cat) -> None:  # type: ignore[no-untyped-def]
    h800, _ = _rows(cat, 100.0)
    # before: served at batch 232, 25,624 tokens/s against a 15,463 tokens/s capacity (166 %); the capacity is now
    # the largest batch within the steady-state TPOT (370e2ef): 12,838 tokens/s, at most 50.1 req/s
    assert h800["tokens_per_s"] == pytest.approx(12_838, rel=2e-4)
    assert h800["served"] is None and h800["layout_note_i18n"]["id"] == "cmp.serving.not_served"
    assert "serve at most" in h800["layout_note"] and 100.0 * OUTPUT > h800["tokens_per_s"]


@pytest.mark.parametrize("kw", [dict(requests_per_s=40.0, tpot_s=0.05), dict(requests_per_s=2.0),
                                dict(concurrent_users=200, tpot_s=0.05)])
def test_plan_rows_serve_at_most_their_full_batch_and_say_the_steady_tpot(cat, kw) -> None:  # type: ignore[no-untyped-def]
    """Each plan row's tokens/s is `estimate`'s output_tokens_per_s at its run batch (every prompt's prefill and its
    decode), never above what the same replicas give at the largest batch searched; its TPOT is the decode step plus
    the batch's prefill spread over the output's steps (chunked prefill: Sarathi-Serve, arXiv 2403.02310)."""
    m = lookup.model(cat, "qwen3-32b")
    req = make_request(model=m.id, task="inference", top=10, region="any", offer_kinds=("listing", "index"), **kw)
    r = plan(cat, m, req)
    assert r.plans
    for p in r.plans:
        acc = lookup.accelerator(cat, p.device)
        e = estimate(cat, m, acc, plan_workload(p, req)).inference
        full = estimate(cat, m, acc, plan_workload(p, req).model_copy(update={"batch": 256})).inference
        assert e is not None and full is not None and p.tpot_s is not None
        assert p.tokens_per_s == pytest.approx(e.output_tokens_per_s, rel=1e-9)
        assert p.tokens_per_s <= full.output_tokens_per_s * (1 + 1e-9)
        assert p.tpot_s == pytest.approx(e.tpot_s + e.ttft_s / req.output, rel=1e-9) and p.tpot_s > e.tpot_s
        assert p.tokens_per_s >= (req.requests_per_s or 0) * req.output * (1 - 1e-9)
