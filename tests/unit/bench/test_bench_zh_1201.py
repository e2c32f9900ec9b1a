"""The bench and calibrate output in Chinese (buyer review 2026-12-01): every title, header and sentence of
`bench run/show/compare/list` and `calibrate` from the catalog; process RSS beside the tensor estimate is shown as
not comparable, never as an error; runs whose microbenchmarks disagree more than 2x are named before a fit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.bench.feedback import MICRO_SPREAD_LIMIT, compare_result, micro_spread_warnings
from suanli.bench.results import BandwidthResult, MatmulResult, Microbench, Tf32Setting
from suanli.catalog.load import packaged_catalog
from suanli.i18n import render

from factories import small_result  # noqa: I001  (conftest.py puts the bench test folder on sys.path)

from ..i18n.test_messages import _LATIN_WORD, _NAMES

# Latin words the output keeps on purpose: torch's own setting values (float32_matmul_precision highest,
# allow_tf32 True/False), an efficiency factor's metric id (matmul) and a source id (assumed)
_KEPT = {"highest", "high", "medium", "True", "False", "matmul", "assumed"}


def _english_words(text: str, *names: str) -> list[str]:
    for n in names:  # the host's own CPU name and host name, as the machine reports them
        text = text.replace(n, "")
    text = re.sub(r"`[^`]*`|\S*[\d/_.+=-]\S*", "", text)  # commands, ids, numbers, paths, torch's setting names
    return [w for w in _LATIN_WORD.findall(text) if w not in _NAMES and w not in _KEPT and not w.isupper()]


def _micro(fp32_tflops: float) -> Microbench:
    return Microbench(matmul=[MatmulResult(precision="fp32", n=512, flops_per_call=2 * 512**3, time_s=1.0,
                                           tflops=fp32_tflops)],
                      bandwidth=BandwidthResult(buffer_bytes=64 << 20, bytes_per_call=128 << 20, time_s=1.0,
                                                bytes_per_s=5e9))


def test_spread_beyond_the_limit_is_named_with_the_runs() -> None:
    a = small_result(1).model_copy(update={"micro": _micro(0.011)})
    b = small_result(2).model_copy(update={"micro": _micro(0.199)})
    c = small_result(3).model_copy(update={"micro": _micro(0.150)})
    assert MICRO_SPREAD_LIMIT == 2.0
    assert micro_spread_warnings([b, c]) == []  # 1.3x: noise, no warning; the copy bandwidths agree
    (w,) = micro_spread_warnings([a, b, c])
    en = render(w, "en")
    assert "matmul fp32 n=512 differs 18.1× between runs, more than 2×" in en
    assert f"0.011 TFLOPS in {a.id}" in en and f"0.199 TFLOPS in {b.id}" in en and "3 runs" in en
    zh = render(w, "zh")
    assert "相差 18.1 倍" in zh and a.id in zh and b.id in zh
    assert _english_words(zh, a.backend.host) == []
    assert micro_spread_warnings([a, b], device="h100-sxm") == []  # calibrate --device: that device's runs only


def test_process_rss_is_not_an_error() -> None:
    r = small_result(1)
    r = r.model_copy(update={"micro": _micro(0.1), "model": r.model.model_copy(update={"name": "tiny-llama"})})
    rows = compare_result(packaged_catalog(), r)[1]
    mem = rows[-1]
    assert mem.metric == "peak_memory_bytes (process-peak-rss)" and mem.error_pct is None and not mem.comparable
    assert all(x.comparable and x.error_pct is not None for x in rows[:-1])
    exact = r.model_copy(update={"throughput": r.throughput.model_copy(update={"memory_kind": "device-max-allocated"})})
    assert compare_result(packaged_catalog(), exact)[1][-1].error_pct is not None  # a device counter compares


def test_tf32_line_in_english_is_the_record() -> None:
    from suanli.cli.bench_cmd import _tf32_text
    from suanli.cli.output import set_lang

    s = Tf32Setting(float32_matmul_precision="high", cuda_matmul_allow_tf32=True, cudnn_allow_tf32=True,
                    env={"NVIDIA_TF32_OVERRIDE": "0"}, matmul_tf32=False)
    try:
        set_lang("en")
        assert _tf32_text(s) == s.describe()
        set_lang("zh")
        assert _tf32_text(s).startswith("关闭（float32_matmul_precision high，") and "未设置" in _tf32_text(s)
    finally:
        set_lang(None)


def test_bench_and_calibrate_speak_chinese(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch", reason="the bench suite runs on torch, the optional [torch] extra (make venv and .ci/run install it)")
    home = tmp_path / "home"
    small = ["--input", "16", "--output", "4", "--repeats", "1", "--warmup", "0"]
    outs = []
    for precision in ("bf16",):
        code, out, err = run_cli(["--lang", "zh", "bench", "run", "--device", "cpu", "--model", "tiny-llama",
                                  "--precision", precision, *small], monkeypatch, capsys, home, columns=200)
        assert code == 0, out + err
        outs.append(out + err)
    for args in (["bench", "show"], ["bench", "compare"], ["bench", "list"], ["calibrate"]):
        code, out, err = run_cli(["--lang", "zh", *args], monkeypatch, capsys, home, columns=200)
        assert code == 0, out + err
        outs.append(out + err)
    text = "\n".join(outs)
    code, out, _ = run_cli(["bench", "show", "--json"], monkeypatch, capsys, home)
    backend = json.loads(out)["backend"]
    assert _english_words(text, backend["device_name"], backend.get("host") or "\0") == []
    for zh in ("吞吐量", "微基准测试", "数值校验通过", "实测与估算对比", "校准系数", "不适用（进程 RSS，不可比）"):
        assert zh in text, zh
    assert "-96" not in text.split("不适用")[0].splitlines()[-1]  # the memory row has no error figure
    # --json: the memory row's error is null, the others are numbers
    code, out, _ = run_cli(["bench", "compare", "--json"], monkeypatch, capsys, home)
    rows = json.loads(out)["rows"]
    assert rows[-1]["error_pct"] is None and rows[-1]["comparable"] is False
    assert all(isinstance(x["error_pct"], float) for x in rows[:-1])
    # English: the record's own words
    code, out, _ = run_cli(["--lang", "en", "bench", "show"], monkeypatch, capsys, home, columns=200)
    assert "Throughput" in out and "Microbenchmarks" in out and "accuracy pass: bf16 on cpu matches" in out
    code, out, _ = run_cli(["--lang", "en", "bench", "compare"], monkeypatch, capsys, home, columns=200)
    assert "n/a (process RSS, not comparable)" in out
