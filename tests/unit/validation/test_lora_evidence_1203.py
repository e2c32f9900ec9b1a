"""LoRA evidence and the 910B's framework-scoped MFU (buyer review 2026-12-03): `migrate cost` said LoRA on the 910B
"pays back in 2.4–2.9 months: worth it" on 31 CANN training cases, none of them LoRA, and LLaMA-Factory on the 910B
took mfu-910b (fitted to MindFormers full/pre-training). The bands now count each stack's LoRA cases apart
(`stack:<stack>:training-throughput:lora`); a LoRA plan, compare row and migration on a stack without them say so,
and migrate cost's verdict is 'unproven' by plan's rule; mfu-910b applies to the frameworks its cases ran."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.estimate.efficiency import efficiency
from suanli.estimate.estimate import band_evidence, estimate, lora_evidence_message, lora_stack_band
from suanli.estimate.workload import make_workload
from suanli.i18n import Message, render
from suanli.plan.compare import compare_devices, migration_cost
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.validate.bands import out_of_sample_case_ids, packaged_error_bands, write_error_bands
from suanli.validate.report import CaseResult, lora_stack_bands, run_validation, stack_bands, summarize

CAT = packaged_catalog()
TODAY = dt.date(2026, 12, 3)
BANDS = packaged_error_bands()


def _case(i: int, stack: str, default: float, lora: bool, holdout: bool = True) -> CaseResult:
    return CaseResult(id=f"c{i}", group="training-throughput", source="s", metric="train_tokens_per_s", measured=100.0,
                      default=default, seed=None, default_error=(default - 100.0) / 100.0, seed_error=None,
                      holdout=holdout, sample="out" if holdout else "in", stack=stack, lora=lora)


def _results() -> list[CaseResult]:
    """CUDA: 3 full cases and 5 LoRA cases (+10 % each), an in-sample LoRA case (ignored); CANN: full cases only."""
    rs = [_case(i, "cuda", 100.0 + d, False) for i, d in enumerate((-20, -5, 5))]
    rs += [_case(10 + i, "cuda", 110.0, True) for i in range(5)] + [_case(20, "cuda", 300.0, True, holdout=False)]
    rs += [_case(30 + i, "cann", 101.0, False) for i in range(6)]
    return rs


def test_lora_bands_count_the_out_of_sample_lora_cases_of_each_training_band(tmp_path: Path) -> None:
    b = lora_stack_bands(_results())
    assert set(b) == {f"{k}:lora" for k in stack_bands(_results())}
    assert b["stack:cuda:training-throughput:lora"].cases == 5
    assert abs((b["stack:cuda:training-throughput:lora"].median_signed_pct or 0) - 10.0) < 1e-9
    assert b["stack:cann:training-throughput:lora"].cases == 0  # full cases only: written with 0
    path = tmp_path / "error_bands.yaml"
    write_error_bands(summarize(_results()), "test", path)
    loaded = packaged_error_bands(path)
    assert loaded["stack:cann:training-throughput:lora"].cases == 0
    assert lora_stack_band(loaded, "maca", "training-throughput").cases == 0  # type: ignore[union-attr]
    old = {k: v for k, v in loaded.items() if not k.endswith(":lora")}  # bands stored before LoRA entries
    assert lora_stack_band(old, "cuda", "training-throughput") is None


def test_lora_messages_in_both_languages() -> None:
    bands = summarize(_results())
    none = lora_evidence_message(lora_stack_band(bands, "cann", "training-throughput"), "training-throughput",
                                 {"en": "Huawei Ascend CANN", "zh": "华为昇腾 CANN"})
    assert none is not None
    assert render(none).startswith("no LoRA case on Huawei Ascend CANN: training-throughput unvalidated for LoRA")
    assert render(none, "zh").startswith("华为昇腾 CANN 上没有 LoRA 案例")
    cases = lora_evidence_message(lora_stack_band(bands, "cuda", "training-throughput"), "training-throughput", "CUDA")
    assert cases is not None and cases.id == "evidence.lora.cases" and "5 out-of-sample LoRA/QLoRA" in render(cases)


def test_the_validation_set_holds_no_lora_case_on_cann_and_the_stored_bands_say_so() -> None:
    results, _ = run_validation(CAT)
    cann = [r for r in results if r.stack == "cann" and r.group == "training-throughput" and r.sample == "out"]
    assert cann and not any(r.lora for r in cann)
    assert lora_stack_bands(results)["stack:cann:training-throughput:lora"].cases == 0
    assert BANDS["stack:cann:training-throughput:lora"].cases == 0
    cuda = lora_stack_bands(results)["stack:cuda:training-throughput:lora"]
    assert BANDS["stack:cuda:training-throughput:lora"].cases == cuda.cases >= 5
    assert len(out_of_sample_case_ids(CAT, "cuda", "training-throughput", lora=True)) == cuda.cases
    assert out_of_sample_case_ids(CAT, "cann", "training-throughput", lora=True) == ()


def test_a_lora_estimate_carries_its_lora_band_and_a_full_one_does_not() -> None:
    acc, m = lookup.accelerator(CAT, "ascend-910b"), lookup.model(CAT, "qwen2.5-7b")
    e = estimate(CAT, m, acc, make_workload(task="lora", gpus=8, framework="llama-factory"), BANDS)
    band = e.error_band["training-throughput"]
    assert band.on_stack_lora is not None and band.on_stack_lora.cases == 0
    msg = band_evidence(band, "training-throughput", "Huawei Ascend CANN")
    assert msg is not None and msg.id == "evidence.with_lora" and "no LoRA case on Huawei Ascend CANN" in render(msg)
    full = estimate(CAT, m, acc, make_workload(task="full", gpus=8, zero=3), BANDS)
    assert full.error_band["training-throughput"].on_stack_lora is None


def test_a_lora_plan_on_cann_says_it_is_unvalidated_for_lora_and_one_on_cuda_does_not() -> None:
    m = lookup.model(CAT, "qwen2.5-7b")
    req = make_request(model=m.id, task="lora", tokens=1e8, devices=("ascend-910b", "h100-sxm"),
                       offer_kinds=("listing", "index", "reference"))
    plans = plan(CAT, m, req, TODAY, error_bands=BANDS).plans
    assert {p.device for p in plans} >= {"ascend-910b", "h100-sxm"}
    for p in plans:
        ids = [j["id"] for j in p.warnings_i18n]
        assert ("evidence.lora.none" in ids) == (p.device == "ascend-910b"), (p.device, ids)  # CUDA: 5+ LoRA cases
    full = plan(CAT, m, req.model_copy(update={"task": "full"}), TODAY, error_bands=BANDS).plans
    assert not any(j["id"].startswith("evidence.lora") for p in full for j in p.warnings_i18n)


def test_compare_rows_say_the_lora_evidence() -> None:
    rows = compare_devices(CAT, lookup.model(CAT, "qwen2.5-7b"), ["h100-sxm", "ascend-910b"], task="lora",
                           error_bands=BANDS)
    by = {r["device"]: r for r in rows}
    assert "no LoRA case on Huawei Ascend CANN" in by["ascend-910b"]["evidence"]
    assert "out-of-sample LoRA/QLoRA training-throughput cases on NVIDIA CUDA" in by["h100-sxm"]["evidence"]


def test_migrate_cost_of_lora_to_the_910b_is_unproven_and_full_keeps_its_verdict() -> None:
    m = lookup.model(CAT, "qwen3-32b")
    lora = migration_cost(CAT, m, to_gpu="ascend-910b", from_gpu="h800", monthly_spend=100_000, task="lora",
                          error_bands=BANDS, today=TODAY)
    verdict = Message.from_json(lora["verdict_i18n"])
    assert verdict.id == "mig.verdict.unproven", verdict.id
    text = render(verdict)
    assert "0 out-of-sample training-throughput cases of LoRA/QLoRA jobs" in text
    assert "no out-of-sample LoRA/QLoRA training-throughput case is measured on Huawei Ascend CANN" in text
    assert "LoRA" in render(verdict, "zh")
    seven = lookup.model(CAT, "qwen2.5-7b")  # full fine-tuning of the 32B does not fit 8 910B cards
    for task, unproven in (("full", False), ("lora", True)):  # 31 full/pretrain CANN cases, none LoRA
        r = migration_cost(CAT, seven, to_gpu="ascend-910b", from_gpu="h800", monthly_spend=100_000, task=task,
                           error_bands=BANDS, today=TODAY)
        assert (Message.from_json(r["verdict_i18n"]).id == "mig.verdict.unproven") == unproven, task


def test_mfu_910b_applies_to_the_frameworks_its_cases_ran() -> None:
    acc = lookup.accelerator(CAT, "ascend-910b")

    def f(fw: str | None) -> str:
        return efficiency(CAT, acc, "train_mfu", "bf16", framework=fw).factor_id

    assert f("mindspeed") == "mfu-910b"  # the 28 out-of-sample MindSpeed-LLM cases
    assert f(None) == "mfu-910b"  # the fitted MindFormers cases name no framework (not a frameworks.yaml id)
    assert f("llama-factory") == f("peft") == f("deepspeed") == "mfu-default"


def test_a_plan_says_the_framework_decided_an_assumed_mfu() -> None:
    m = lookup.model(CAT, "qwen2.5-7b")
    req = make_request(model=m.id, task="lora", tokens=1e8, devices=("ascend-910b",),
                       offer_kinds=("listing", "index", "reference"))
    r = plan(CAT, m, req, TODAY, error_bands=BANDS)
    lines = [j for j in r.assumptions_i18n if j["id"] == "plan.assume.train_mfu_framework"]
    assert r.plans[0].framework == "llama-factory" and abs(r.plans[0].mfu - 0.40) < 1e-9 and len(lines) == 1
    text = render(Message.from_json(lines[0]))
    assert "MFU 0.40 (mfu-default" in text and "mfu-910b (0.54)" in text and "MindSpeed-LLM" in text
    assert "mfu-910b（0.54）" in render(Message.from_json(lines[0]), "zh")
    pinned = plan(CAT, m, req.model_copy(update={"framework": "mindspeed"}), TODAY, error_bands=BANDS)
    assert abs(pinned.plans[0].mfu - 0.54) < 1e-9
    assert not any(j["id"] == "plan.assume.train_mfu_framework" for j in pinned.assumptions_i18n)
