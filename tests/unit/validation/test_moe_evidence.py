"""MoE evidence (buyer review 2026-12-01): the per-stack validation evidence is almost all dense models, so an MoE
model's estimate, compare row and plan say how many of the stack's out-of-sample cases are MoE
(`stack:<stack>:<group>:moe`, written by `suanli validate --write`) or that none is; the plan keeps its rank."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.estimate.estimate import (band_evidence, estimate, moe_evidence_message, moe_stack_band,
                                      stack_band)
from suanli.estimate.workload import make_workload
from suanli.i18n import Message, render
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.validate.bands import packaged_error_bands, write_error_bands
from suanli.validate.report import CaseResult, moe_stack_bands, run_validation, stack_bands, summarize

CAT = packaged_catalog()
TODAY = dt.date(2026, 12, 1)


def _case(i: int, group: str, stack: str, measured: float, default: float, moe: bool, holdout: bool = True
          ) -> CaseResult:
    return CaseResult(id=f"c{i}", group=group, source="s", metric="output_tokens_per_s", measured=measured,
                      default=default, seed=None, default_error=(default - measured) / measured, seed_error=None,
                      holdout=holdout, sample="out" if holdout else "in", stack=stack, moe=moe)


def _results() -> list[CaseResult]:
    """CUDA decode: 4 dense cases and 2 MoE cases (+10 %, +30 %), an in-sample MoE case (ignored); CANN training:
    one MoE case +106 %; CANN decode: dense only."""
    rs = [_case(i, "decode-speed", "cuda", 100.0, 100.0 + d, False) for i, d in enumerate((-20, -5, 5, 15))]
    rs += [_case(10, "decode-speed", "cuda", 100.0, 110.0, True), _case(11, "decode-speed", "cuda", 100.0, 130.0, True)]
    rs += [_case(12, "decode-speed", "cuda", 100.0, 300.0, True, holdout=False)]
    rs += [_case(20, "training-throughput", "cann", 100.0, 206.0, True)]
    rs += [_case(30, "decode-speed", "cann", 100.0, 217.0, False)]
    return rs


def test_moe_bands_count_the_out_of_sample_moe_cases_of_each_stack_band() -> None:
    b = moe_stack_bands(_results())
    assert set(b) == {f"{k}:moe" for k in stack_bands(_results())}  # one beside every per-stack band
    cuda = b["stack:cuda:decode-speed:moe"]
    assert cuda.cases == 2 and cuda.stack == "cuda" and abs((cuda.median_signed_pct or 0) - 20.0) < 1e-9
    assert b["stack:cann:training-throughput:moe"].cases == 1
    assert b["stack:cann:decode-speed:moe"].cases == 0  # dense cases only: written with 0
    assert "stack:cuda:decode-speed:moe" in summarize(_results())


def test_the_bands_file_keeps_the_moe_entries(tmp_path: Path) -> None:
    path = tmp_path / "error_bands.yaml"
    write_error_bands(summarize(_results()), "test", path)
    loaded = packaged_error_bands(path)
    assert loaded["stack:cuda:decode-speed:moe"].cases == 2
    assert loaded["stack:cann:decode-speed:moe"].cases == 0 and loaded["stack:cann:decode-speed:moe"].stack == "cann"


def test_moe_band_lookup_none_zero_or_cases() -> None:
    bands = summarize(_results())
    assert moe_stack_band(bands, "cuda", "decode-speed").cases == 2  # type: ignore[union-attr]
    assert moe_stack_band(bands, "maca", "decode-speed").cases == 0  # type: ignore[union-attr]  # no entry at all
    old = {k: v for k, v in bands.items() if not k.endswith(":moe")}  # a file written before MoE entries
    assert moe_stack_band(old, "cuda", "decode-speed") is None
    assert stack_band(old, "cuda", "decode-speed") is not None


def test_moe_messages_in_both_languages() -> None:
    bands = summarize(_results())
    m = moe_evidence_message(moe_stack_band(bands, "cuda", "decode-speed"), "decode-speed", "NVIDIA CUDA")
    assert m is not None and render(m) == "MoE: 2 out-of-sample decode-speed cases on NVIDIA CUDA (median signed +20 %, p90 |error| 30 %)"
    none = moe_evidence_message(moe_stack_band(bands, "cann", "decode-speed"), "decode-speed", "Huawei Ascend CANN")
    assert none is not None and render(none).startswith("MoE: no MoE case on this stack (Huawei Ascend CANN)")
    assert "没有 MoE 案例" in render(none, "zh")
    assert moe_evidence_message(None, "decode-speed", "x") is None


def test_an_moe_estimate_carries_its_moe_band_and_a_dense_one_does_not() -> None:
    bands = summarize(_results())
    w = make_workload(task="inference", gpus=8, tp=8)
    e = estimate(CAT, lookup.model(CAT, "qwen3-235b-a22b"), lookup.accelerator(CAT, "h200"), w, bands)
    band = e.error_band["decode-speed"]
    assert band.on_stack_moe is not None and band.on_stack_moe.cases == 2
    msg = band_evidence(band, "decode-speed", "NVIDIA CUDA")
    assert msg is not None and msg.id == "evidence.with_moe" and "MoE: 2 out-of-sample" in render(msg)
    dense = estimate(CAT, lookup.model(CAT, "qwen2.5-72b"), lookup.accelerator(CAT, "h200"), w, bands)
    assert dense.error_band["decode-speed"].on_stack_moe is None
    assert band_evidence(dense.error_band["decode-speed"], "decode-speed", "x").id != "evidence.with_moe"  # type: ignore[union-attr]


def test_compare_rows_say_the_moe_evidence() -> None:
    bands = summarize(_results())
    rows = compare_devices(CAT, lookup.model(CAT, "qwen3-30b-a3b"), ["h200", "ascend-910b"], error_bands=bands)
    by = {r["device"]: r for r in rows}
    assert "MoE: 2 out-of-sample decode-speed cases on NVIDIA CUDA" in by["h200"]["evidence"]
    assert "MoE: no MoE case on this stack (Huawei Ascend CANN)" in by["ascend-910b"]["evidence"]


def test_an_moe_plan_on_a_stack_without_moe_cases_keeps_its_rank_and_says_so() -> None:
    bands = summarize(_results())
    m = lookup.model(CAT, "qwen3-30b-a3b")
    req = make_request(model=m.id, task="inference", requests_per_s=1, devices=("ascend-910b", "h200"),
                       offer_kinds=("listing", "index", "reference"))
    with_moe = plan(CAT, m, req, TODAY, error_bands=bands)
    without = plan(CAT, m, req, TODAY, error_bands={k: v for k, v in bands.items() if not k.endswith(":moe")})
    assert [p.device for p in with_moe.plans] == [p.device for p in without.plans]  # ranked as before
    for p in with_moe.plans:
        ids = [j["id"] for j in p.warnings_i18n]
        want = "evidence.moe.none" if p.device.startswith("ascend") else "evidence.moe.cases"
        assert want in ids, (p.device, ids)
        text = next(w for w, j in zip(p.warnings, p.warnings_i18n) if j["id"] == want)
        assert text == render(Message.from_json(next(j for j in p.warnings_i18n if j["id"] == want)))
    assert not any(j["id"].startswith("evidence.moe") for p in without.plans for j in p.warnings_i18n)
    dense = plan(CAT, lookup.model(CAT, "qwen2.5-7b"), req.model_copy(update={"model": "qwen2.5-7b"}), TODAY,
                 error_bands=bands)
    assert not any(j["id"].startswith("evidence.moe") for p in dense.plans for j in p.warnings_i18n)


def test_the_validation_set_marks_its_moe_cases() -> None:
    """What `suanli validate --write` will store (the report, not the stored file): the MindSpeed Mixtral training
    case on CANN is MoE and out of sample; the Megatron-Bridge MoE rows are in-sample and not counted."""
    results, _ = run_validation(CAT)
    moe = {r.id: r for r in results if r.moe}
    assert moe["cdom-mindspeed-910b-mixtral-8x7b-32k-8x8"].sample == "out"
    assert all(r.sample == "in" for k, r in moe.items() if k.startswith("moe-mbridge"))
    b = moe_stack_bands(results)
    assert b["stack:cann:training-throughput:moe"].cases >= 1
    assert b["stack:cann:decode-speed:moe"].cases == 0
    assert not any(r.moe for r in results if r.id.startswith("cai-vllm-ascend"))
