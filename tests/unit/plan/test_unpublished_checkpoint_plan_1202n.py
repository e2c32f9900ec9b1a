"""Plan and compare rows at a quantized precision no checkpoint is published in warn (buyer review 2026-12-02, task
N: `suanli plan --model qwen3-235b-a22b --concurrent-users 20 --tpot 0.05` ranked 8 x A100 int8, which means
quantizing a 235B model first); the row stays, ranked and priced as before (a team may quantize)."""

from __future__ import annotations

import datetime as dt

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import plan

TODAY = dt.date(2026, 12, 2)
REVIEW = {"model": "qwen3-235b-a22b", "task": "inference", "concurrent_users": 20, "tpot_s": 0.05}
ID = "precision.unpublished_checkpoint"


def _plan(cat, **kw):  # type: ignore[no-untyped-def]
    req = make_request(**{**REVIEW, **kw})
    return plan(cat, lookup.model(cat, req.model), req, TODAY)


def _ids(p) -> list[str]:  # type: ignore[no-untyped-def]
    return [j.get("id") for j in p.warnings_i18n if isinstance(j, dict)]


def test_a100_int8_row_warns_and_keeps_its_price(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, precision=("int8",), devices=("a100-80g", "ascend-910b"), top=5)
    a100 = [p for p in r.plans if p.device == "a100-80g"]
    ascend = [p for p in r.plans if p.device == "ascend-910b"]
    assert a100 and ascend
    assert all(_ids(p).count(ID) == 1 for p in a100)  # CUDA int8 is GPTQ-Int8: Qwen uploads none of 235B
    assert all(ID not in _ids(p) for p in ascend)  # vLLM-Ascend uploads Qwen3-235B-A22B-W8A8 for CANN
    w = next(j for j in a100[0].warnings_i18n if isinstance(j, dict) and j.get("id") == ID)
    text = render(Message.from_json(w))  # type: ignore[arg-type]
    assert "Qwen/Qwen3-235B-A22B-FP8" in text and "quantize it yourself first" in text
    assert "需先自行量化" in render(Message.from_json(w), "zh")  # type: ignore[arg-type]
    # the rule adds words only: the same request on a catalog whose model lists no checkpoints plans the same rows
    bare_m = lookup.model(cat, "qwen3-235b-a22b").model_copy(update={"published_checkpoints": None})
    req = make_request(**{**REVIEW, "precision": ("int8",), "devices": ("a100-80g", "ascend-910b"), "top": 5})
    bare = plan(cat, bare_m, req, TODAY)
    assert [(p.device, p.gpus, p.cost_cny) for p in bare.plans] == [(p.device, p.gpus, p.cost_cny) for p in r.plans]
    assert all(ID not in _ids(p) for p in bare.plans)


def test_published_precisions_do_not_warn(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, top=10)
    assert r.plans
    for p in r.plans:
        published = p.precision in ("bf16", "fp8", "int4") or p.device.startswith("ascend")
        assert (ID in _ids(p)) == (not published), (p.device, p.precision)


def test_compare_row_says_it_in_its_precision_note(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen3-235b-a22b")
    rows = compare_devices(cat, m, ["a100-80g", "ascend-910b"], task="inference", gpus=8, precision="int8",
                           today=TODAY)
    by = {r["device"]: r for r in rows}
    note = by["a100-80g"]["precision_note_i18n"]
    assert note is not None and note["id"] == ID
    assert "no published int8 checkpoint" in by["a100-80g"]["precision_note"]
    assert by["ascend-910b"]["precision_note"] is None
