"""Buyer review 2026-12-02, item 2: serving plans rested on efficiency factors no measurement backs — the 910C's
DeepSeek-R1 plan on decode_bandwidth 0.70 and a 2.6 ms step overhead, both `assumed` — and never said so, while
training plans listed "MFU 0.40 (mfu-default, assumed)" as an `assumed:` line. Now one function
(`train_evidence.assumed_efficiencies`) lists, for serving and training plans alike, the factors with basis
"assumed" that the plan's own estimate uses, in text, --json and the API's plan answer."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog import lookup
from suanli.catalog.ranks import rank_view
from suanli.estimate.estimate import estimate
from suanli.plan.request import make_request
from suanli.plan.search import plan, plan_workload

TODAY = dt.date(2026, 12, 2)
KINDS = ("listing", "index", "reference", "contract")


@pytest.fixture(scope="module")
def r1(cat):  # type: ignore[no-untyped-def]
    req = make_request(model="deepseek-r1", task="inference", concurrent_users=2000, input=1024, output=1024,
                       ttft_s=2, tpot_s=0.05, devices=("h20-141g", "ascend-910c"), max_gpus=1024, offer_kinds=KINDS)
    return req, plan(cat, lookup.model(cat, "deepseek-r1"), req, TODAY)


def test_a_serving_plan_lists_the_assumed_factors_its_estimate_uses(cat, r1) -> None:  # type: ignore[no-untyped-def]
    req, r = r1
    lines = [(t, j) for t, j in zip(r.assumptions, r.assumptions_i18n) if j["id"] == "plan.assume.efficiency"]
    assert r.plans and lines, r.assumptions
    m = lookup.model(cat, "deepseek-r1")
    for p in r.plans:
        e = estimate(cat, m, rank_view(lookup.accelerator(cat, p.device)), plan_workload(p, req))
        assert e.inference is not None
        assumed = [f for f in e.inference.efficiencies if f.basis == "assumed"]
        assert assumed  # the catalog's decode-bw-default among them
        text = next(t for t, j in lines if j["params"]["precision"] == p.precision and j["params"]["runs"] == p.engine
                    and j["params"]["device"] == (p.device_name_i18n or p.device_name))
        for f in assumed:
            assert f"{f.metric} " in text and f.factor_id in text, (f, text)
        measured = [f for f in e.inference.efficiencies if f.basis != "assumed"]
        assert not any(f"({f.factor_id}:" in text for f in measured), text  # only the assumed ones


def test_the_910c_line_names_decode_bandwidth_and_the_step_overhead(r1) -> None:  # type: ignore[no-untyped-def]
    _, r = r1
    text = next(t for t, j in zip(r.assumptions, r.assumptions_i18n) if j["id"] == "plan.assume.efficiency"
                and "910C" in t)
    assert "decode_bandwidth 0.70 (decode-bw-default: assumed default)" in text, text
    # the step overhead is no longer assumed there: vLLM-Ascend's, fitted on a 910B for the DaVinci family (2026-12-02,
    # efficiency.yaml step-overhead-davinci-vllm, vllm-ascend-issue-904), so the line does not list it
    assert "decode_step_overhead_s" not in text, text


def test_training_keeps_its_framework_line_and_says_mfu_once(cat) -> None:  # type: ignore[no-untyped-def]
    req = make_request(model="qwen2.5-7b", task="lora", tokens=1e8, offer_kinds=KINDS)
    r = plan(cat, lookup.model(cat, "qwen2.5-7b"), req, TODAY)
    ids = [j["id"] for j in r.assumptions_i18n]
    assert "plan.assume.train_mfu_framework" in ids  # RTX 4090 under LLaMA-Factory: the scoped line, as before
    for j in r.assumptions_i18n:
        if j["id"] == "plan.assume.train_mfu_framework":
            dev = json.dumps(j["params"]["device"], ensure_ascii=False)
            same = [x for x in r.assumptions_i18n if x["id"] == "plan.assume.efficiency"
                    and json.dumps(x["params"]["device"], ensure_ascii=False) == dev]
            assert not any("train_mfu" in x["params"]["factors"]["en"] for x in same), same


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_text_and_json(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--lang", lang, "plan", "--model", "deepseek-r1", "--concurrent-users", "2000", "--gpu", "910c",
            "--max-gpus", "1024", "--offer-kinds", "all", "--input", "1024", "--output", "1024", "--ttft", "2",
            "--tpot", "0.05"]
    code, out, err = run_cli(args, monkeypatch, capsys, tmp_path)
    assert code == 0, err
    flat = " ".join(out.split())
    assert ("assumed: efficiency on Huawei Ascend 910C (vllm-ascend, int8) that no measurement backs: "
            "decode_bandwidth 0.70" if lang == "en" else "上没有实测依据的效率系数：decode_bandwidth 0.70") in flat, out
    code, out, err = run_cli([*args, "--json"], monkeypatch, capsys, tmp_path)
    assert code == 0, err
    j = json.loads(out)
    assert any(x["id"] == "plan.assume.efficiency" for x in j["assumptions_i18n"])
    assert any("decode_bandwidth 0.70" in t for t in j["assumptions"])
