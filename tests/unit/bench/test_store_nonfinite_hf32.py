"""Task E2 (2026-12-01): a stored result holding NaN or Infinity is refused at load with `bench import`'s line (file and
dotted field path, en + zh), `calibrate` fits all the stored results or none; an Ascend run whose HF32 matmul switch was
on or not recorded gives no fp32 matmul or prefill factor (no roof to compare with), named in a "not used" line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run_cli
from factories import PEAKS, arch_of, synthetic

from suanli.bench.backends import BackendInfo
from suanli.bench.calibrate import fit_efficiency, hf32_skip
from suanli.bench.feedback import calibrate_results
from suanli.bench.results import BenchResult, MatmulResult, ResultStore, Tf32Setting
from suanli.catalog.load import packaged_catalog
from suanli.errors import DataFileError, InputError, error_text
from suanli.i18n import render


def _store_with_nan(tmp_path: Path) -> tuple[ResultStore, Path, BenchResult]:
    store = ResultStore(tmp_path / "store")
    good = synthetic(0.7, 0.4, 0.8, 0.9, i=0, accelerator="h100-sxm")
    bad = synthetic(0.7, 0.4, 0.8, 0.9, i=1, accelerator="h100-sxm")
    store.save(good)
    p = store.save(bad)
    doc = json.loads(p.read_text())
    doc["throughput"]["decode_tokens_per_s"] = float("nan")
    doc["micro"]["matmul"][1]["tflops"] = float("inf")
    p.write_text(json.dumps(doc))  # NaN / Infinity as Python writes them
    return store, p, good


def test_a_nan_result_is_refused_at_load_naming_the_file_and_field(tmp_path: Path) -> None:
    store, p, good = _store_with_nan(tmp_path)
    assert [r.id for r in store.results()] == [good.id]  # the others still listed
    line = f"{p}: throughput.decode_tokens_per_s: must be a finite number (got NaN)"
    assert store.unreadable == [line]
    assert render(store.refused[0], "zh") == f"{p}：throughput.decode_tokens_per_s：必须是有限数（实际为 NaN）"
    with pytest.raises(DataFileError) as e:  # asked for by id: why, not "unknown result"
        store.get("r1")
    assert str(e.value) == line
    with pytest.raises(InputError) as s:  # calibrate's strict load: nothing is used
        store.results(strict=True)
    assert error_text(s.value, "en") == f"store: {line}; no stored result was used: fix or remove the file"
    assert "必须是有限数（实际为 NaN）；未使用任何已存结果：请修复或删除该文件" in error_text(s.value, "zh")


def test_calibrate_stops_and_writes_nothing_when_a_result_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    store, p, _ = _store_with_nan(tmp_path)
    home = tmp_path / "home"
    for lang, said in (("en", "must be a finite number (got NaN)"), ("zh", "必须是有限数（实际为 NaN）")):
        code, out, err = run_cli(["--lang", lang, "calibrate", "--store", str(store.root)], monkeypatch, capsys, home)
        assert code != 0, out + err
        assert "throughput.decode_tokens_per_s" in err and said in err and p.name in err, err
    assert not (home / "calibration.yaml").exists()
    code, out, err = run_cli(["--lang", "zh", "bench", "list", "--store", str(store.root)], monkeypatch, capsys, home)
    assert code == 0, err
    assert "跳过无法读取的结果：" in out and "必须是有限数（实际为 NaN）" in out, out


def _ascend(hf32: bool | None, recorded: bool = True, precision: str = "fp32") -> BenchResult:
    r = synthetic(0.7, 0.4, 0.8, 0.9)
    gemm = MatmulResult(precision="fp32", n=4096, flops_per_call=2 * 4096**3, time_s=1, tflops=25.0, tf32=False)
    return r.model_copy(update={
        "backend": BackendInfo(backend="npu", device="npu:0", device_name="Ascend910B2",
                               memory_kind="device-max-allocated"),
        "config": r.config.model_copy(update={"precision": precision, "device": "npu:0"}),
        "micro": r.micro.model_copy(update={"matmul": [*r.micro.matmul, gemm]}),  # type: ignore[union-attr]
        "accuracy": None,
        "tf32": Tf32Setting(npu_matmul_allow_hf32=hf32, npu_conv_allow_hf32=True, matmul_tf32=False)
        if recorded else None,
    })


@pytest.mark.parametrize(("hf32", "recorded", "why"), [(True, True, "with HF32 matmuls on"),
                                                       (None, True, "without its HF32 matmul setting recorded"),
                                                       (None, False, "without its HF32 matmul setting recorded")])
def test_an_ascend_fp32_run_with_hf32_on_or_unknown_gives_no_fp32_matmul_factor(
        hf32: bool | None, recorded: bool, why: str) -> None:
    cal = fit_efficiency([_ascend(hf32, recorded)], PEAKS, arch_of)  # PEAKS has an fp32 peak: it is not used
    assert cal.get("matmul", "fp32") is None and cal.get("prefill_mfu", "fp32") is None
    assert cal.get("decode_bandwidth", "fp32") is not None  # memory-bound: HF32 does not change it
    assert cal.get("matmul", "bf16") is not None  # the other precisions' GEMMs still count
    line = [s for s in cal.skipped if "HF32" in s]
    assert line == [f"r0: Ascend run {why} (npu.matmul.allow_hf32{' True' if hf32 else ''}): its fp32 matmuls "
                    f"{'ran' if hf32 else 'may have run'} in HF32 and the catalog has no HF32 peak to compare them with; "
                    "its fp32 matmul and prefill speeds are not used"]


def test_hf32_off_or_a_cuda_run_is_an_fp32_run_like_any_other() -> None:
    cal = fit_efficiency([_ascend(False)], PEAKS, arch_of)
    assert cal.get("matmul", "fp32").value == pytest.approx(25e12 / 50e12)  # type: ignore[union-attr]
    assert cal.get("prefill_mfu", "fp32") is not None and not any("HF32" in s for s in cal.skipped)
    assert hf32_skip(synthetic(0.7, 0.4, 0.8, 0.9)) is None  # cuda: torch's TF32 decides, not HF32
    bf16 = _ascend(True, precision="bf16")  # a bf16 run's extra fp32 GEMM ran under the run's HF32 switch too
    assert hf32_skip(bf16) is not None
    cal = fit_efficiency([bf16], PEAKS, arch_of)
    assert cal.get("matmul", "fp32") is None and cal.get("prefill_mfu", "bf16") is not None


def test_calibrate_names_the_run_and_the_reason_in_a_not_used_line() -> None:
    cat = packaged_catalog()
    r = _ascend(None, recorded=False).model_copy(update={"accelerator": "ascend-910b2", "id": "npu-run-1"})
    rejected: list[str] = []
    msgs: list = []
    factors = calibrate_results(cat, [r], rejected, msgs)
    assert not any(f.metric == "matmul" and f.precision == "fp32" for f in factors)
    assert [x for x in rejected if "HF32" in x] == [
        "npu-run-1: Ascend run without its HF32 matmul setting recorded (npu.matmul.allow_hf32): its fp32 matmuls may "
        "have run in HF32 and the catalog has no HF32 peak to compare them with; its fp32 matmul and prefill speeds "
        "are not used"]
    zh = [render(m, "zh") for m in msgs if m.id.startswith("bench.cal.skip.hf32")]
    assert zh == ["npu-run-1：昇腾测试未记录 HF32 矩阵乘设置（`npu.matmul.allow_hf32`）：其 fp32 矩阵乘可能以 HF32 运行，"
                  "型号库中没有可比较的 HF32 峰值；其 fp32 矩阵乘与预填充速度不采用"]
