"""Buyer review F (2026-12-01), Ascend serving facts: a preset whose released checkpoint is FP8 is named by `migrate
check` by itself, with sources (converted first, not a port: buyer review 2026-12-02); SGLang and LMDeploy run on
CANN, with the CUDA-fitted engine rows kept off the 910B/910C (assumed there); the engines are not distinguished on Ascend and say so in one line; an
offer field read by assumption (the 910C's 'read as 8' cards per machine) is among a plan's warnings."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from suanli.catalog import lookup
from suanli.catalog.schema import Offer
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.i18n import Message, render
from suanli.migrate.coverage import OpTrace, classify, load_op_list
from suanli.migrate.libraries import from_checkpoint, merge, resolve_uses
from suanli.plan.request import make_request
from suanli.plan.search import plan

# ------------------------------------------------------------------------------------ 1. FP8 checkpoint


def test_fp8_preset_is_converted_not_ported(cat) -> None:  # type: ignore[no-untyped-def]
    """Its FP8-only release is converted once (msModelSlim W8A8/W4A8, or bf16), a conversion step and not a port
    (buyer review 2026-12-02); `--uses fp8` (code that computes in FP8) is still a port."""
    m = lookup.model(cat, "deepseek-v3")
    assert m.native_dtype == "fp8"
    uses = from_checkpoint(m.id, m.native_dtype, cat.sources[m.source].url)
    assert [u.id for u in uses] == ["fp8"] and uses[0].converts and not uses[0].blocks
    assert uses[0].via == "checkpoint: FP8 (deepseek-ai/DeepSeek-V3 release) → converted with msModelSlim (W8A8/W4A8) or to bf16"
    assert uses[0].via_zh == "权重：FP8（deepseek-ai/DeepSeek-V3 发布版）→ 用 msModelSlim 转换（W8A8/W4A8）或转为 bf16"
    # the source of the fact (the preset's config.json) first, then how to convert, then why FP8 does not run
    assert uses[0].sources[0] == "https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json"
    assert "Ascend/msmodelslim:example/DeepSeek/README.md" in uses[0].sources
    assert "deepseek-ai/DeepSeek-V3:README.md" in uses[0].sources
    assert "https://github.com/tile-ai/tilelang-ascend/pull/1177" in uses[0].sources
    trace = OpTrace(model=m.id, task="inference", device="meta", torch_version="2.1.0", ops={"mm": 2})
    report = classify(trace, load_op_list("2.1"), libraries=merge(uses, resolve_uses(["fp8"])))
    assert report.verdict == "npu-native" and len(report.libraries) == 1  # --uses fp8 is not repeated
    assert "converted once before use" in report.verdict_text and "not a port" in report.verdict_text
    line = next(w for w in report.warnings if "checkpoint: FP8" in w)
    assert "msModelSlim" in line and "W4A8" in line and "config.json" in line
    zh = render(Message.from_json(next(w for w in report.warnings_i18n if w["id"] == "mig.warn.library")), "zh")
    assert "权重：FP8（deepseek-ai/DeepSeek-V3 发布版）" in zh and "不是移植" in zh
    (code,) = resolve_uses(["fp8"])  # FP8 in the code itself: no NPU build, a port
    assert code.blocks and not code.converts
    assert classify(trace, load_op_list("2.1"), libraries=[code]).verdict == "needs-port"


def test_sixteen_bit_preset_has_no_checkpoint_use(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    assert from_checkpoint(m.id, m.native_dtype) == []


# ------------------------------------------------------------------------------------ 2./3. engines on CANN


def _est(cat, engine: str, gpu: str = "910b2"):  # type: ignore[no-untyped-def]
    return estimate(cat, lookup.model(cat, "qwen2.5-7b"), lookup.accelerator(cat, gpu),
                    make_workload(task="inference", engine=engine))


def test_sglang_and_lmdeploy_run_on_cann_with_assumed_factors(cat) -> None:  # type: ignore[no-untyped-def]
    stack = lookup.stack(cat, "cann")
    assert {"sglang", "lmdeploy"} <= set(stack.engines)
    assert "SGLang" in cat.sources[stack.engines_source].title and "LMDeploy" in cat.sources["lmdeploy-ascend"].title
    vllm_ascend = _est(cat, "vllm-ascend")
    va = {f.metric: f for f in vllm_ascend.inference.efficiencies}["decode_step_overhead_s"]
    assert va.factor_id == "step-overhead-davinci-vllm" and va.source == "vllm-ascend-issue-904"  # fitted on a 910B
    for engine in ("mindie", "sglang", "lmdeploy"):
        e = _est(cat, engine)
        # only vLLM-Ascend's overhead is fitted on Ascend and the others are given it: the same figures (not the CUDA
        # engine fits); MindIE borrows vLLM's rows, SGLang's and LMDeploy's rows carry the value as assumed
        assert e.inference.decode_tokens_per_s == pytest.approx(vllm_ascend.inference.decode_tokens_per_s), engine
        by = {f.metric: f for f in e.inference.efficiencies}
        assert by["decode_bandwidth"].basis == "assumed", engine
        assert by["decode_step_overhead_s"].factor_id.startswith("step-overhead-davinci")
        assert by["decode_step_overhead_s"].value == va.value, engine
        assert by["decode_step_overhead_s"].basis == ("family" if engine == "mindie" else "assumed"), engine
        assert any(n.startswith("engines are not distinguished on Huawei Ascend CANN") and "cann-engines" in n
                   for n in e.notes), engine
    # transformers keeps its own row; on CUDA SGLang and LMDeploy keep their fits and no such line
    hf = {f.metric: f for f in _est(cat, "hf").inference.efficiencies}
    assert hf["decode_step_overhead_s"].factor_id == "step-overhead-hf"
    for engine, row in (("sglang", "step-overhead-sglang"), ("lmdeploy", "step-overhead-lmdeploy")):
        e = _est(cat, engine, "h20")
        assert {f.metric: f for f in e.inference.efficiencies}["decode_step_overhead_s"].factor_id == row
        assert not any("not distinguished" in n for n in e.notes)
    assert not any("not distinguished" in n for n in _est(cat, "hf").notes)


def test_cann_engines_source_names_the_disagreeing_comparisons(cat) -> None:  # type: ignore[no-untyped-def]
    note = cat.sources["cann-engines"].note or ""
    assert "vllm-ascend/issues/4295" in note and "42.2 ms" in note and "3.68 s" in note and "vllm-ascend/issues/4395" in note


# ------------------------------------------------------------------------------------ 4. assumed offer fields


def test_plan_warns_with_the_offers_assumed_cards(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-72b")
    r = plan(cat, m, make_request(model="qwen2.5-72b", task="inference", devices=("ascend-910c",),
                                  offer_kinds=("index",), concurrent_users=50, tpot_s=0.05))
    assert r.plans and r.plans[0].offer == "smm-910c-8card-month-2026-09"
    warnings = r.plans[0].warnings
    line = next(w for w in warnings if "read by assumption" in w)
    assert line.startswith("offer smm-910c-8card-month-2026-09: `cards` read by assumption") and "read as 8" in line
    assert any(w.startswith("engines are not distinguished on Huawei Ascend CANN") for w in warnings)
    zh = [render(Message.from_json(w), "zh") for w in r.plans[0].warnings_i18n if w["id"] == "plan.warn.offer_assumed"]
    assert zh and "按 8 卡计" in zh[0]


def test_assumed_field_must_be_an_offer_field(cat) -> None:  # type: ignore[no-untyped-def]
    o = next(o for o in cat.offers if o.id == "smm-910c-8card-month-2026-09")
    raw = o.model_dump(mode="json", exclude_none=True)
    with pytest.raises(ValidationError, match="not an offer field"):
        Offer.model_validate({**raw, "assumed": [{"field": "cardz", "note": "x", "note_zh": "x"}]})
