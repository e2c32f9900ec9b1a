"""Plans do not quantize to 4 bits unless asked (buyer reviews: the cheapest default plan for Qwen2.5-72B was int4 on
every row): serving searches the model's release precision and 8-bit (fp8 where the device and stack run FP8, else
int8 W8A8) by default; --precision takes one, a comma list or `any`; the answer says which were searched; a request
nothing serves at those but int4 would says so, with the pin; an int4 row pinned still shows the plan one up."""

from __future__ import annotations

import datetime as dt

import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan

TODAY = dt.date(2026, 12, 1)
REVIEW = {"model": "qwen2.5-72b", "task": "inference", "concurrent_users": 100, "tpot_s": 0.05, "ttft_s": 2.0}


def _plan(cat, **kw):  # type: ignore[no-untyped-def]
    req = make_request(**{**REVIEW, **kw})
    return plan(cat, lookup.model(cat, req.model), req, TODAY)


def test_default_searches_release_and_8_bit_never_int4(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, top=10)
    assert r.plans and all(p.precision in ("bf16", "fp8", "int8") for p in r.plans)
    ascend = [p for p in r.plans if p.device.startswith("ascend")]
    assert ascend and all(p.precision in ("bf16", "int8") for p in ascend)  # no FP8 on a 910B: int8 W8A8
    text = next(a for a, j in zip(r.assumptions, r.assumptions_i18n) if j["id"] == "plan.assume.precisions_default")
    assert "precisions searched: bf16, fp8, int8" in text and "int4 only with --precision int4 or any" in text
    zh = render(Message.from_json(next(j for j in r.assumptions_i18n  # type: ignore[arg-type]
                                       if j["id"] == "plan.assume.precisions_default")), "zh")
    assert "搜索的精度" in zh and "int4" in zh


@pytest.mark.parametrize("asked", ["int4", "any", "int8,int4"])
def test_int4_only_when_asked(cat, asked: str) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, precision=asked, top=10)
    assert any(p.precision == "int4" for p in r.plans)
    ids = [j["id"] for j in r.assumptions_i18n]
    assert "plan.assume.precisions" in ids and "plan.assume.precisions_default" not in ids


def test_the_request_takes_one_a_comma_list_or_any() -> None:
    base = {"model": "qwen2.5-7b", "task": "inference", "requests_per_s": 1}
    assert make_request(**base).precision is None
    assert make_request(**base, precision="int4").precision == ("int4",)
    assert make_request(**base, precision="int4, bf16,bf16").precision == ("bf16", "int4")  # search order, once
    assert make_request(**base, precision=["fp8", "int8"]).precision == ("fp8", "int8")
    assert make_request(**base, precision="any").precision == ("bf16", "fp8", "int8", "int4")
    with pytest.raises(InputError) as e:
        make_request(**base, precision="bf16,in8")
    assert e.value.field == "precision"
    assert "'in8' is not a precision" in str(e.value) and "did you mean int8?" in str(e.value)
    assert "\n" not in str(e.value)


def test_a_comma_list_searches_those_only(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, precision="bf16,int8", top=10)
    assert r.plans and {p.precision for p in r.plans} <= {"bf16", "int8"}
    text = next(a for a, j in zip(r.assumptions, r.assumptions_i18n) if j["id"] == "plan.assume.precisions")
    assert "precisions searched: bf16, int8, as --precision asks" in text


def test_a_pinned_int4_row_still_shows_the_plan_one_precision_up(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, precision="int4", devices=("ascend-910b",))
    p = r.plans[0]
    assert p.precision == "int4" and "at int8 (W8A8):" in p.reason and "× Huawei Ascend 910B" in p.reason
    assert "若用 int8（W8A8）" in render(Message.from_json(p.reason_i18n), "zh")  # type: ignore[arg-type]


def test_no_plan_at_the_searched_precisions_names_int4_and_its_pin(cat) -> None:  # type: ignore[no-untyped-def]
    # Qwen2.5-72B on at most two 32 GB RTX 5090s: bf16 and fp8 weights do not fit, int4's do
    req = make_request(model="qwen2.5-72b", task="inference", requests_per_s=1, max_gpus=2, devices=("rtx-5090",))
    r = plan(cat, lookup.model(cat, req.model), req, TODAY)
    assert not r.plans
    tip = next(x for x, j in zip(r.relax, r.relax_i18n) if j["id"] == "relax.at_int4")
    assert tip.startswith("at int4 (W4A16): 2 × NVIDIA GeForce RTX 5090") and tip.endswith("pass --precision int4")
    assert "--precision int4" in render(Message.from_json(next(j for j in r.relax_i18n  # type: ignore[arg-type]
                                                              if j["id"] == "relax.at_int4")), "zh")
    asked = plan(cat, lookup.model(cat, req.model), req.model_copy(update={"precision": ("int4",)}), TODAY)
    assert asked.plans and asked.plans[0].precision == "int4"
