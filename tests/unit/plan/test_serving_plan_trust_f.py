"""Buyer review F (findings 2, 4, 7, 8): a serving plan names what its precision means on the stack, shows the best
plan one precision up, says how many offers priced it and their range, labels a row unvalidated where its stack has
fewer than 5 cases, and says its TTFT is a mean, not a P95."""

from __future__ import annotations

import datetime as dt

import pytest

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.plan.quality import next_precision_up, quant_scheme
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.validate.bands import packaged_error_bands

TODAY = dt.date(2026, 12, 1)


@pytest.fixture(scope="module")
def ascend(cat):  # type: ignore[no-untyped-def]
    req = make_request(model="qwen3-235b-a22b", task="inference", concurrent_users=200, tpot_s=0.05, ttft_s=1.0,
                       devices=("ascend-910b2", "ascend-910b"), offer_kinds=("listing", "index", "reference"))
    return plan(cat, lookup.model(cat, "qwen3-235b-a22b"), req, TODAY, error_bands=packaged_error_bands())


def test_the_catalog_cites_what_int8_and_int4_mean_on_cann(cat) -> None:  # type: ignore[no-untyped-def]
    cann = next(s for s in cat.stacks if s.id == "cann")
    for prec, scheme in (("int8", "W8A8"), ("int4", "W4A8")):
        s = quant_scheme(cann, prec)
        assert s is not None and s.value == scheme and s.source in cat.sources and s.note and s.note_zh
    assert quant_scheme(cann, "fp8") is None  # Atlas A2/A3 run no FP8


def test_next_precision_up_stops_at_the_release_dtype() -> None:
    assert next_precision_up("int4", "bf16", {"int4", "int8", "bf16"}) == "int8"
    assert next_precision_up("int4", "fp8", {"int4", "bf16"}) is None  # bf16 is above DeepSeek's fp8 release
    assert next_precision_up("int8", "fp8", {"int4", "int8", "bf16"}) is None
    assert next_precision_up("bf16", "bf16", {"bf16"}) is None


def test_an_int4_ascend_row_names_its_scheme_and_the_int8_plan(cat) -> None:  # type: ignore[no-untyped-def]
    # int4 is searched only when asked (default: release precision and 8-bit); pinned, the row still names the
    # plan one precision up, searched for it
    req = make_request(model="qwen3-235b-a22b", task="inference", concurrent_users=200, tpot_s=0.05, ttft_s=1.0,
                       devices=("ascend-910b2", "ascend-910b"), offer_kinds=("listing", "index", "reference"),
                       precision="int4")
    pinned = plan(cat, lookup.model(cat, "qwen3-235b-a22b"), req, TODAY, error_bands=packaged_error_bands())
    int4 = [p for p in pinned.plans if p.precision == "int4"]
    assert int4
    for p in int4:
        ids = [w["id"] for w in p.warnings_i18n]
        assert "plan.warn.quantization" in ids and "plan.warn.quantization_scheme" in ids
        w = next(x for x, j in zip(p.warnings, p.warnings_i18n) if j["id"] == "plan.warn.quantization_scheme")
        assert "int4 on Huawei Ascend CANN is W4A8" in w and "not measured" in w and "msmodelslim-readme" in w
        assert "at int8 (W8A8):" in p.reason and "× Huawei Ascend 910B" in p.reason
        zh = render(Message.from_json(p.reason_i18n), "zh")  # type: ignore[arg-type]
        assert "若用 int8（W8A8）" in zh


def test_a_row_says_how_many_offers_priced_it(ascend) -> None:  # type: ignore[no-untyped-def]
    for p in ascend.plans:
        assert "offers price it, ¥" in p.reason or "1 offer prices it" in p.reason
    generic = next(p for p in ascend.plans if p.device == "ascend-910b")
    assert "offers price it, ¥" in generic.reason and "is a listing price" in generic.reason
    lo = generic.reason.split("offers price it, ¥")[1].split("–")[0]
    assert float(lo.replace(",", "")) == pytest.approx(generic.cost_cny, abs=1)  # the plan's cost is the floor


def test_few_cases_on_the_stack_label_the_row_unvalidated(ascend) -> None:  # type: ignore[no-untyped-def]
    for p in ascend.plans:
        assert "unvalidated on Huawei Ascend CANN" in p.reason and "rank kept" not in p.reason
        assert "华为昇腾 CANN 上未经验证" in render(Message.from_json(p.reason_i18n), "zh")  # type: ignore[arg-type]


def test_the_plan_says_ttft_is_a_mean_not_a_p95(ascend) -> None:  # type: ignore[no-untyped-def]
    ids = [a["id"] for a in ascend.assumptions_i18n]
    assert "plan.assume.ttft_mean" in ids
    text = next(a for a, j in zip(ascend.assumptions, ascend.assumptions_i18n) if j["id"] == "plan.assume.ttft_mean")
    assert "mean" in text and "not a P95" in text and "Little's law" in text
