"""bench compare / calibrate: measured efficiency changes the next estimate for that device."""

from __future__ import annotations

import pytest
from factories import synthetic

from suanli.bench.feedback import calibrate_results, compare_result, load_calibration, save_calibration
from suanli.catalog.load import packaged_catalog


def _result(decode_eff: float, mfu: float):  # type: ignore[no-untyped-def]
    r = synthetic(decode_eff, mfu, 0.8, 0.9, accelerator="h100-sxm")
    return r.model_copy(update={"model": r.model.model_copy(update={"name": "llama-2-7b", "key": "llama-2-7b"})})


def test_calibration_moves_the_estimate_to_the_measurement() -> None:
    cat = packaged_catalog()
    r = _result(decode_eff=0.35, mfu=0.2)
    _, before = compare_result(cat, r)
    rejected: list[str] = []
    factors = calibrate_results(cat, [r], rejected)
    assert any("fp8" in x for x in rejected)  # the synthetic 1 TFLOPS fp8 matmul is implausible for an H100
    dec = [f for f in factors if f.metric == "decode_bandwidth"]
    assert dec and dec[0].device == "h100-sxm" and dec[0].source.startswith("measured:")
    save_calibration(factors)
    stored = load_calibration()
    assert {f.id for f in stored} == {f.id for f in factors}
    _, after = compare_result(cat, r, stored)
    err = {row.metric: abs(row.error_pct or 0) for row in after}
    err_before = {row.metric: abs(row.error_pct or 0) for row in before}
    assert err["decode_tokens_per_s"] < err_before["decode_tokens_per_s"]
    assert err["decode_tokens_per_s"] < 10


def test_saving_one_device_keeps_the_others() -> None:
    cat = packaged_catalog()
    a = calibrate_results(cat, [_result(0.3, 0.2)])
    save_calibration(a)
    b = [f.model_copy(update={"device": "a100-80g", "id": f.id.replace("h100-sxm", "a100-80g")}) for f in a]
    save_calibration(b)
    devices = {f.device for f in load_calibration()}
    assert devices == {"h100-sxm", "a100-80g"}


def test_a_result_without_device_or_microbenchmarks_is_refused() -> None:
    from suanli.errors import InputError

    r = _result(0.3, 0.2).model_copy(update={"accelerator": None, "micro": None})
    with pytest.raises(InputError, match="microbenchmarks"):
        compare_result(packaged_catalog(), r)


def _with(r, precision: str):  # type: ignore[no-untyped-def]
    """The same run in `precision` (the harness records `--precision tf32` as fp32 weights with torch's
    float32_matmul_precision "high"; fp32 keeps "highest", TF32 off), with TF32 and fp32 matmul microbenchmarks as a
    cuda run measures both (H100 SXM: 378 / 45 TFLOPS, made-up shares of its 494.7 / 66.9 dense peaks)."""
    from suanli.bench.results import MatmulResult

    mm = [MatmulResult(precision=p, n=8192, flops_per_call=2 * 8192**3, time_s=1, tflops=t)
          for p, t in (("tf32", 378.0), ("fp32", 45.0))]
    assert r.micro is not None
    return r.model_copy(update={"config": r.config.model_copy(update={"precision": precision}),
                                "micro": r.micro.model_copy(update={"matmul": mm})})


def _store_a_fp32_matmul_factor(value: float):  # type: ignore[no-untyped-def]
    from suanli.catalog.schema import EfficiencyFactor

    return EfficiencyFactor(id="cal-h100-sxm-prefill_mfu-fp32", metric="matmul", device="h100-sxm", precision="fp32",
                            engine="hf", value=value, source="measured:x")


def test_a_tf32_run_is_refused_for_calibration_in_one_line() -> None:
    """The estimator has no tf32 precision: a share of the TF32 peak stored as fp32 is applied to the fp32 peak (a
    tf32 prefill at 30 % of 494.7 TFLOPS estimated at 30 % of 66.9), and its decode ran with TF32 matmuls too, so
    nothing of a tf32 run is stored; one line names the runs and says what to do."""
    cat = packaged_catalog()
    r = _with(_result(decode_eff=0.35, mfu=0.2), "tf32")
    rejected: list[str] = []
    assert calibrate_results(cat, [r, r.model_copy(update={"id": "r1"})], rejected) == []
    tf32_lines = [x for x in rejected if "tf32" in x]
    assert len(tf32_lines) == 1
    assert tf32_lines[0].startswith("h100-sxm: tf32 run(s) r0, r1 not used for calibration: the estimator has no "
                                    "tf32 precision")
    assert "--precision fp32 or bf16" in tf32_lines[0] and "\n" not in tf32_lines[0]


def test_a_tf32_run_is_compared_with_the_tf32_dense_roof() -> None:
    from suanli.bench.feedback import compare_basis
    from suanli.i18n import render

    cat = packaged_catalog()
    fp32 = _with(_result(decode_eff=0.35, mfu=0.2), "fp32")
    tf32 = _with(_result(decode_eff=0.35, mfu=0.2), "tf32")
    acc, _, note = compare_basis(cat, tf32)
    assert acc.id == "h100-sxm" and acc.specs.fp32_tflops is not None
    assert acc.specs.fp32_tflops.value == 494.7  # the dense TF32 peak, not the 2:4-sparse 989.4 nor fp32's 66.9
    assert note is not None and note.id == "cli.fb.tf32_roof"
    assert "494.7 TFLOPS instead of fp32's 66.9" in render(note, "en")
    assert "494.7 TFLOPS" in render(note, "zh") and "66.9" in render(note, "zh")
    e_tf32, rows_tf32 = compare_result(cat, tf32)
    e_fp32, rows_fp32 = compare_result(cat, fp32)
    assert e_tf32.device.specs.fp32_tflops is not None and e_tf32.device.specs.fp32_tflops.value == 494.7
    pre = {r.config.precision: {row.metric: row.estimated for row in rows}["prefill_tokens_per_s"]
           for r, rows in ((tf32, rows_tf32), (fp32, rows_fp32))}
    assert pre["tf32"] is not None and pre["fp32"] is not None and pre["tf32"] > 3 * pre["fp32"]  # compute-bound
    # fp32 runs' calibrated matmul factor is a share of the CUDA-core peak: not applied to the TF32 roof
    cal = (_store_a_fp32_matmul_factor(0.05),)
    assert compare_result(cat, tf32, cal)[1] == rows_tf32
    assert compare_result(cat, fp32, cal)[1] != rows_fp32


def test_a_fp32_run_with_tf32_off_is_not_compared_or_calibrated_against_the_tf32_peak() -> None:
    """The reverse: --precision fp32 (float32_matmul_precision "highest") is the estimator's fp32 at the fp32 peak;
    its fp32 microbenchmark is a share of 66.9 TFLOPS, and its extra tf32 microbenchmark is named, not stored."""
    from suanli.bench.feedback import compare_basis

    cat = packaged_catalog()
    r = _with(_result(decode_eff=0.35, mfu=0.05), "fp32")
    acc, overrides, note = compare_basis(cat, r, (_store_a_fp32_matmul_factor(0.5),))
    assert note is None and len(overrides) == 1
    assert acc.specs.fp32_tflops is not None and acc.specs.fp32_tflops.value == 66.9
    e, _ = compare_result(cat, r)
    assert e.device.specs.fp32_tflops is not None and e.device.specs.fp32_tflops.value == 66.9
    rejected: list[str] = []
    factors = calibrate_results(cat, [r], rejected)
    by = {(f.metric, f.engine, f.precision): f.value for f in factors}
    assert by[("matmul", "*", "fp32")] == pytest.approx(45.0 / 66.9, rel=1e-3)
    assert all(f.precision != "tf32" for f in factors) and sum(f.metric == "matmul" and f.engine == "*"
                                                               for f in factors) == 1
    assert [x for x in rejected if "tf32" in x] == [
        x for x in rejected if x.startswith("h100-sxm: the tf32 matmul microbenchmark of r0 not used for calibration")]
    assert len([x for x in rejected if "tf32" in x]) == 1
    _, after = compare_result(cat, r, tuple(factors))
    err = {row.metric: abs(row.error_pct or 0) for row in after}
    assert err["decode_tokens_per_s"] < 10


def test_a_tf32_run_on_a_device_without_a_tf32_peak_says_it_is_compared_at_fp32() -> None:
    from suanli.bench.feedback import compare_basis
    from suanli.i18n import render

    cat = packaged_catalog()
    r = _with(_result(decode_eff=0.35, mfu=0.2), "tf32").model_copy(update={"accelerator": "a10"})
    acc, _, note = compare_basis(cat, r)
    assert acc.specs.tf32_dense_tflops is None and acc.specs.fp32_tflops is not None
    assert note is not None and note.id == "cli.fb.tf32_no_roof"
    assert render(note, "en").startswith(f"tf32 run: the catalog has no TF32 dense peak for a10, so this is the fp32 estimate "
                                         f"at the fp32 peak ({acc.specs.fp32_tflops.value:g} TFLOPS)")


def test_bench_compare_prints_the_tf32_roof(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from typer.testing import CliRunner

    from suanli.bench.results import ResultStore
    from suanli.cli.main import app

    store = tmp_path / "store"
    ResultStore(store).save(_with(_result(decode_eff=0.35, mfu=0.2), "tf32"))
    env = {"COLUMNS": "200", "SUANLI_HOME": str(tmp_path / "home")}
    out = CliRunner().invoke(app, ["--lang", "en", "bench", "compare", "--store", str(store)], env=env)
    assert out.exit_code == 0, out.output
    assert "tf32 run: the estimator has no tf32 precision" in out.stdout and "494.7 TFLOPS" in out.stdout
    js = CliRunner().invoke(app, ["--lang", "en", "bench", "compare", "--store", str(store), "--json"], env=env)
    assert js.exit_code == 0, js.output
    assert "TF32 dense tensor-core peak" in json.loads(js.stdout)["roof"]
    zh = CliRunner().invoke(app, ["--lang", "zh", "bench", "compare", "--store", str(store)], env=env)
    assert zh.exit_code == 0 and "TF32 稠密张量核心峰值 494.7 TFLOPS" in zh.stdout
