"""MindIE's tensor-parallel rule and three nits (issue #12, buyer's reviews, 2026-12-01).

1. MindIE pads the attention heads to a multiple of tp instead of refusing (MindIE-LLM atb_llm/utils/weights.py
   get_sharded; its model zoo runs Qwen2.5-7B at world size 8): no head rule for `mindie`, and vLLM-Ascend's refusal
   of --tp 8 on the same Ascend stack names MindIE as the engine that runs it (en + zh; the API names the field).
2. (a) click's usage line and help hint read as Chinese under --lang zh (full-width colon, Chinese quotes);
   (b) a batch job (inference with tokens to generate) starts and is done, it does not "first serve"."""

from __future__ import annotations

from pathlib import Path

import pytest

from suanli.catalog import lookup
from suanli.estimate.tp_heads import allowed_tps, tp_heads_refusal
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan
from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner


def test_mindie_pads_heads_and_vllm_ascend_refusal_points_to_it(cat) -> None:  # type: ignore[no-untyped-def]
    q7 = lookup.model(cat, "qwen2.5-7b")  # 28 heads, 4 KV heads: MindIE's model zoo lists world size 1, 2, 4, 8
    assert allowed_tps(q7, (1, 2, 4, 8), engine="mindie") == [1, 2, 4, 8]
    assert tp_heads_refusal(q7, 8, engine="mindie") is None
    why = tp_heads_refusal(q7, 8, engine="vllm-ascend", runner="vLLM-Ascend")
    assert why is not None and why.id == "why.tp_heads_serving"
    en, zh = render(why, "en"), render(why, "zh")
    assert en.startswith("vLLM-Ascend refuses") and "(tp that runs: 1, 2, 4; MindIE (--framework mindie)" in en
    assert en.endswith("zero-pads the heads to a multiple of tp instead and runs 8)")
    assert zh.startswith("vLLM-Ascend 不接受") and "（可用的 tp：1、2、4；MindIE（--framework mindie）" in zh
    assert zh.endswith("8 也能跑）")
    api = render(why, "en", "api")
    assert "--" not in api and "MindIE (`framework` mindie)" in api
    assert "（`framework` mindie）" in render(why, "zh", "api")
    # the JSON form round-trips (why-not rows carry reason_i18n)
    assert render(Message.from_json(why.to_json()), "zh") == zh
    # an engine off the Ascend stack names no other engine
    other = tp_heads_refusal(q7, 8, engine="vllm", runner="vLLM")
    assert other is not None and "MindIE" not in render(other, "en")


def test_plan_pinned_tp_on_910b_why_not_names_mindie(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    req = make_request(model="qwen2.5-7b", task="inference", requests_per_s=2, tp=8, devices=("ascend-910b",),
                       domestic_only=True)
    r = plan(cat, m, req)
    rows = [w for w in r.why_not if w["reason_i18n"]["id"] == "why.tp_heads_serving"]
    assert rows and "MindIE (--framework mindie)" in rows[0]["reason"]
    mindie = plan(cat, m, make_request(model="qwen2.5-7b", task="inference", requests_per_s=2, tp=8,
                                       devices=("ascend-910b",), domestic_only=True, framework="mindie"))
    assert mindie.plans and all(p.engine == "mindie" and p.tp == 8 for p in mindie.plans)


def _run_cli(args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             tmp_path: Path) -> tuple[int, str, str]:
    return run_cli(args, monkeypatch, capsys, tmp_path)


def test_click_usage_error_reads_as_chinese(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    code, _, err = _run_cli(("--lang", "zh", "plan", "--bogus"), monkeypatch, capsys, tmp_path)
    lines = err.splitlines()
    # in-process the program name is pytest's; `suanli --lang zh plan --bogus` prints "用法：suanli plan [OPTIONS]"
    assert code == 2 and lines[0].startswith("用法：") and not lines[0].startswith("用法： "), err
    assert lines[0].endswith("suanli plan [OPTIONS]"), err
    assert lines[1].startswith("运行“") and lines[1].endswith("suanli plan --help”查看帮助。"), err
    assert "用法:" not in err and "'" not in lines[1]
    code, _, err = _run_cli(("--lang", "en", "plan", "--bogus"), monkeypatch, capsys, tmp_path)
    lines = err.splitlines()
    assert lines[0].startswith("Usage: ") and lines[1].startswith("Try '") and lines[1].endswith("for help."), err


def test_batch_job_plan_says_start_and_done_not_serve(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    r = plan(cat, m, make_request(model="qwen2.5-7b", task="inference", tokens=1e9, devices=("ascend-910b",),
                                  domestic_only=True))
    assert r.plans
    p = r.plans[0]
    assert "the job starts after" in p.reason and "is done after" in p.reason and "serve" not in p.reason
    zh = render(Message.from_json(p.reason_i18n), "zh")
    assert "后开始（环境" in zh and "后完成" in zh and "服务" not in zh
    assert any(a.startswith("time before the job starts") for a in r.assumptions)
    assert not any("first serve" in a for a in r.assumptions)
    # a serving plan still first serves
    s = plan(cat, m, make_request(model="qwen2.5-7b", task="inference", requests_per_s=2,
                                  devices=("ascend-910b",), domestic_only=True))
    assert s.plans and "first serve after" in s.plans[0].reason


def test_batch_job_estimate_says_start_and_done(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    args = ("estimate", "--model", "qwen2.5-7b", "--gpu", "ascend-910b", "--task", "inference")
    _, out, _ = _run_cli(("--lang", "en", *args, "--tokens", "1e9"), monkeypatch, capsys, tmp_path)
    assert "job starts after 0.21 hours" in out and "done after 6,300.0 hours" in out  # 4,258.3 before 2026-12-02 (vLLM-Ascend's fitted overhead) and "first serve" not in out
    _, out, _ = _run_cli(("--lang", "zh", *args, "--tokens", "1e9"), monkeypatch, capsys, tmp_path)
    assert "任务 0.21 小时后开始" in out and "小时后完成" in out and "开始服务" not in out
    _, out, _ = _run_cli(("--lang", "en", *args), monkeypatch, capsys, tmp_path)  # no tokens: a server
    assert "time to first serve: 0.21 hours" in out
