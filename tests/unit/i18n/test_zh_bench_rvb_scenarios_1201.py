"""The last English under --lang zh (2026-12-01, fourth session): `bench suite`'s progress lines and skip reasons,
`bench import`'s "no case" reasons, `bench fleet`'s errors, `scenarios --json`'s `explanation_i18n` (the API's
shape, one view) and the purchase rows' notes in rent-vs-buy — Chinese under zh, English byte for byte as before."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest

from suanli.i18n import Message, messages, render

from .test_errors_zh import english_words
from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner

RUN_ID = "20261201T000000Z-0b5f1c"
HF_CONFIG = {"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
             "num_key_value_heads": 2, "intermediate_size": 512, "vocab_size": 1000}


# ---- bench suite: skip reasons are messages, kept in English in the record ---------------------------------------

def test_skip_reasons_render_as_before_in_english_and_in_chinese() -> None:
    from suanli.bench.suite import SuiteCase, _skip_reason

    class Cpu:
        name = "cpu"

    case = SuiteCase(id="matmul-fp8", kind="matmul", phase=1, shape="tiny", precision="fp8")
    msg = _skip_reason(case, Cpu())
    assert isinstance(msg, Message)
    assert render(msg, "en") == "fp8 matmul is measured on CUDA only (compute capability >= 8.9); this is cpu"
    said = {
        "bench.suite.skip_budget": (Message("bench.suite.skip_budget", left=3.2, budget=420.0, need=16.0),
                                    "time budget: 3 s of 420 s left, the case needs about 16 s"),
        "bench.suite.skip_bnb_missing": (Message("bench.suite.skip_bnb_missing", module="bitsandbytes"),
                                         "bitsandbytes is not importable (ModuleNotFoundError: No module named "
                                         "'bitsandbytes')"),
        "bench.suite.skip_peft": (Message("bench.suite.skip_peft"), "peft is not installed (pip install 'suanli[lora]')"),
        "bench.suite.skip_fp8_cc": (Message("bench.suite.skip_fp8_cc", major=8, minor=0),
                                    "torch has no fp8 matmul on compute capability 8.0 (needs >= 8.9)"),
    }
    for m, en in [*said.values(), (msg, None)]:
        if en is not None:
            assert render(m, "en") == en
    # Chinese: no English outside the backticks the catalog keeps around names and commands
    ids = [*said, "bench.suite.skip_fp8_not_cuda", "bench.suite.skip_bnb", "bench.import.not_case",
           "bench.import.rss_memory", "err.bench_install_extra", "err.fleet_tasks_failed", "err.fleet_accuracy",
           "err.fleet_accuracy_more", "cli.bench.suite_peak", "bench.status.ok", "bench.status.skipped",
           "bench.status.failed"]
    zh = messages("zh")
    assert {i: zh[i] for i in ids if english_words(re.sub(r"\{[^}]*\}", " ", zh[i]))} == {}


def test_suite_progress_lines_are_chinese_under_zh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch", reason="the bench suite runs on torch, the optional [torch] extra (make venv and .ci/run install it)")
    args = ("bench", "suite", str(tmp_path / "out"), "--device", "cpu", "--budget-s", "0.01", "--only", "decode-tiny-b1-loop")
    code, out, _ = run_cli(("--lang", "zh", *args), monkeypatch, capsys, tmp_path)
    assert code == 0
    line = next(x for x in out.splitlines() if "decode-tiny-b1-loop" in x and "时间预算" in x)
    assert line.startswith("跳过 ") and english_words(line) == [], line
    rec = json.loads((tmp_path / "out" / "decode-tiny-b1-loop.json").read_text(encoding="utf-8"))
    assert rec["reason"].startswith("time budget: ") and rec["reason_i18n"]["id"] == "bench.suite.skip_budget"
    code, out, _ = run_cli(("--lang", "en", *args[:2], str(tmp_path / "out2"), *args[3:]), monkeypatch, capsys,
                           tmp_path)
    line = next(x for x in out.splitlines() if "decode-tiny-b1-loop" in x)
    assert line.startswith("skipped decode-tiny-b1-loop ") and "  time budget: 0 s of 0 s left, the case needs" in line


# ---- bench import: "no case" reasons ------------------------------------------------------------------------------

def _suite(tmp_path: Path) -> Path:
    """One ok decode case (an H100 run, so it becomes a case) and two skipped ones: one written with its reason's
    message, one as files before 2026-12-01 were (English `reason` only)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))  # the bench tests' factories
    from factories import synthetic

    from suanli.bench.suite import CaseRecord, Environment, SuiteCase

    out = tmp_path / "suite"
    out.mkdir()
    env = Environment(date=dt.datetime(2026, 12, 1, tzinfo=dt.UTC), host="h", python="3.12", platform="linux",
                      suanli_version="0", torch="2.5", transformers="4.50", peft="0.14", backend="cuda",
                      device="cuda:0", device_name="NVIDIA H100 80GB HBM3", memory_kind="device-max-allocated")

    def case(cid: str, **kw: Any) -> SuiteCase:
        return SuiteCase(id=cid, kind="inference", phase=2, shape="tiny", model="tiny-llama", measure="decode",
                         mode="loop", input_tokens=64, output_tokens=16, **kw)

    common: dict[str, Any] = {"run_id": RUN_ID, "command": "suanli bench suite out", "environment": env,
                              "accelerator": "h100-sxm", "hf_config": HF_CONFIG}
    budget = Message("bench.suite.skip_budget", left=1.0, budget=420.0, need=16.0)
    recs = [
        CaseRecord(**common, status="ok", case=case("decode-tiny-b1-loop"),
                   metrics={"decode_tokens_per_s": 100.0, "peak_memory_bytes": 1000,
                            "memory_kind": "device-max-allocated"},
                   bench_result=synthetic(0.5, 0.4, 0.8, 0.9, accelerator="h100-sxm")),
        CaseRecord(**common, status="skipped", case=case("decode-tiny-b16-loop", batch=16),
                   reason=render(budget, "en"), reason_i18n=budget.to_json()),
        CaseRecord(**common, status="skipped", case=case("decode-tiny-b64-loop", batch=64),
                   reason="peft is not installed (pip install 'suanli[lora]')"),
    ]
    for r in recs:
        (out / f"{r.case.id}.json").write_text(r.model_dump_json(), encoding="utf-8")
    return out


def test_import_no_case_reasons_in_chinese_and_english_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    suite = _suite(tmp_path)
    code, out, err = run_cli(("--lang", "zh", "bench", "import", str(suite), "--cases-dir", str(tmp_path / "c1"),
                              "--store", str(tmp_path / "s1")), monkeypatch, capsys, tmp_path)
    assert code == 0, err
    lines = [x for x in out.splitlines() if x.startswith("未成为用例：")]
    assert len(lines) == 2
    assert "decode-tiny-b16-loop：跳过（时间预算 420 秒，剩余 1 秒，此项约需 16 秒）" in lines[0]
    assert english_words(lines[0]) == [], lines[0]
    assert "decode-tiny-b64-loop：跳过（" in lines[1]  # an older file: its English reason as written
    code, out, err = run_cli(("--lang", "en", "bench", "import", str(suite), "--cases-dir", str(tmp_path / "c2"),
                              "--store", str(tmp_path / "s2")), monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert [x for x in out.splitlines() if x.startswith("no case:")] == [
        "no case: decode-tiny-b16-loop: skipped (time budget: 1 s of 420 s left, the case needs about 16 s)",
        "no case: decode-tiny-b64-loop: skipped (peft is not installed (pip install 'suanli[lora]'))"]
    code, out, _ = run_cli(("bench", "import", str(suite), "--cases-dir", str(tmp_path / "c3"), "--store",
                            str(tmp_path / "s3"), "--json"), monkeypatch, capsys, tmp_path)
    report = json.loads(out)
    assert len(report["not_cases"]) == len(report["not_cases_i18n"]) == 2
    assert render(Message.from_json(report["not_cases_i18n"][0]), "en") == report["not_cases"][0]


# ---- bench fleet: its refusals ----------------------------------------------------------------------------------

def test_fleet_errors_in_chinese(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    from suanli.bench import fleet

    def failing(*a: Any, **k: Any) -> Any:
        return fleet.FleetReport(address="local", ray_version="2.0", nodes=1, tasks=[], results=[],
                                 errors=["10.0.0.2 GPU#0: RayTaskError: CUDA out of memory"])

    monkeypatch.setattr(fleet, "run_fleet", failing)
    code, _, err = run_cli(("--lang", "zh", "bench", "fleet", "--no-save"), monkeypatch, capsys, tmp_path)
    assert code != 0 and "集群测试：1 个任务失败：10.0.0.2 GPU#0: RayTaskError: CUDA out of memory" in err
    code, _, err = run_cli(("--lang", "en", "bench", "fleet", "--no-save"), monkeypatch, capsys, tmp_path)
    assert "fleet: 1 task failed: 10.0.0.2 GPU#0: RayTaskError: CUDA out of memory" in err

    def no_ray(*a: Any, **k: Any) -> Any:
        raise ImportError("no ray")

    import builtins

    real_import = builtins.__import__
    monkeypatch.setattr(builtins, "__import__",
                        lambda name, *a, **k: no_ray() if name == "ray" else real_import(name, *a, **k))
    from suanli.errors import InputError, error_text

    with pytest.raises(InputError) as e:
        fleet.require_ray()
    assert str(e.value) == "ray: install the ray extra: pip install 'suanli[ray]'"
    assert error_text(e.value, "zh").startswith("ray: 请安装 ray 扩展")


# ---- scenarios --json: the API's shape, explanation_i18n included -------------------------------------------------

def test_scenarios_json_carries_the_apis_explanation_i18n(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from fastapi.testclient import TestClient

    from suanli.api.app import create_app

    code, out, _ = run_cli(("--lang", "zh", "scenarios", "--id", "lora-7-13b", "--json"), monkeypatch, capsys, tmp_path)
    assert code == 0
    (cli,) = json.loads(out)
    api = TestClient(create_app()).get("/api/scenarios/lora-7-13b").json()
    assert list(cli) == list(api)
    assert cli["explanation_i18n"] == api["explanation_i18n"] and cli["explanation_i18n"]["id"]
    assert render(Message.from_json(cli["explanation_i18n"]), "en") == cli["explanation"]  # English stays English
    assert english_words(render(Message.from_json(cli["explanation_i18n"]), "zh")) == []


# ---- purchase rows' notes ---------------------------------------------------------------------------------------

def test_every_purchase_note_has_its_chinese_twin() -> None:
    from suanli.catalog.load import packaged_catalog

    noted = [p for p in packaged_catalog().purchases if p.note]
    assert noted and [p.id for p in noted if not p.note_zh] == []
    for p in noted:
        assert english_words(p.note_zh or "") == [], (p.id, p.note_zh)


def test_rent_vs_buy_prints_the_purchase_note_in_chinese(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    row = "px-aqiusha-910b-8card-server-2024-03"
    code, out, _ = run_cli(("--lang", "zh", "rent-vs-buy", "--gpu", "910b"), monkeypatch, capsys, tmp_path)
    assert code == 0
    line = next(x for x in out.splitlines() if f"{row}：" in x and "可信度" in x)
    assert "低可信度：设备是凭（语音转写的）读音和所引的出货量辨认的，不是凭名称" in line
    code, out, _ = run_cli(("--lang", "en", "rent-vs-buy", "--gpu", "910b"), monkeypatch, capsys, tmp_path)
    assert (f"purchase {row}: low confidence: the device is identified by sound and by the delivery volumes quoted, "
            "not by name") in out
    code, out, _ = run_cli(("--lang", "zh", "rent-vs-buy", "--gpu", "910b", "--json"), monkeypatch, capsys, tmp_path)
    doc = json.loads(out)  # JSON keeps the English note; its message carries both languages
    assert any("low confidence" in n for n in doc["purchase_notes"])
