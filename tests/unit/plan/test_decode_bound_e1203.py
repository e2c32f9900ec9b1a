"""Buyer review 2026-12-03 (E): every serving plan warned "decode is memory-bandwidth-bound: bandwidth decides
tokens/s", whatever its layout, while `suanli estimate` of the same layout said `decode_bound: compute` — an H20 (4.0
TB/s, 148 dense TFLOPS) serving Qwen2.5-14B at fp8, batch 100, is compute-bound, the H20's known weakness. The plan's
warning now says what bounds decode at the row's batch, by the kernel's own verdict (the one estimate prints)."""

from __future__ import annotations

import datetime as dt

from suanli.catalog import lookup
from suanli.estimate.estimate import estimate
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan, plan_workload

TODAY = dt.date(2026, 12, 3)
IDS = {"compute": "plan.warn.decode_compute_bound", "memory-bandwidth": "plan.warn.decode_bound"}


def _plans(cat, model: str, devices: tuple[str, ...], **kw):  # type: ignore[no-untyped-def]
    m = lookup.model(cat, model)
    req = make_request(model=model, task="inference", devices=devices, offer_kinds=("listing", "index", "reference", "contract"), **kw)
    r = plan(cat, m, req, TODAY)
    assert r.plans
    return m, r


def _bound_warnings(p) -> list[dict]:  # type: ignore[no-untyped-def]
    return [w for w in p.warnings_i18n if w["id"] in IDS.values()]


def test_a_compute_bound_row_says_so_as_estimate_does(cat) -> None:  # type: ignore[no-untyped-def]
    m, r = _plans(cat, "qwen2.5-14b-instruct", ("h20",), concurrent_users=100, tpot_s=0.05)
    p = r.plans[0]
    assert (p.device, p.precision) == ("h20", "fp8") and p.micro_batch >= 64
    e = estimate(cat, m, lookup.accelerator(cat, p.device), plan_workload(p, r.request))
    assert e.inference is not None and e.inference.decode_bound == "compute"
    (w,) = _bound_warnings(p)
    assert w["id"] == "plan.warn.decode_compute_bound" and w["params"]["batch"] == p.micro_batch
    en, zh = render(Message.from_json(w)), render(Message.from_json(w), "zh")
    assert "compute-bound" in en and "memory-bandwidth-bound" not in en
    assert "受算力限制" in zh and "受显存带宽限制" not in zh


def test_every_row_says_the_bound_its_estimate_gives(cat) -> None:  # type: ignore[no-untyped-def]
    seen = set()
    for model, devices, kw in (
            ("qwen2.5-14b-instruct", ("h20", "910b", "rtx-4090"), dict(concurrent_users=100, tpot_s=0.05)),
            ("qwen2.5-72b-instruct", ("910b",), dict(concurrent_users=200, tpot_s=0.05)),
            ("qwen2.5-7b", ("h20", "rtx-4090"), dict(requests_per_s=0.2, tpot_s=0.05))):
        m, r = _plans(cat, model, devices, **kw)
        for p in r.plans:
            e = estimate(cat, m, lookup.accelerator(cat, p.device), plan_workload(p, r.request))
            assert e.inference is not None
            (w,) = _bound_warnings(p)
            assert w["id"] == IDS[e.inference.decode_bound], (model, p.device, p.micro_batch)
            seen.add(e.inference.decode_bound)
    assert seen == set(IDS)  # both verdicts met: the test can tell them apart
