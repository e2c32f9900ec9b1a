"""A run records the TF32 setting torch actually used, and `bench compare`'s roof follows the record.

No GPU: the fake backend stands in for cuda, and torch's flags and the environment overrides are monkeypatched.
"""

from __future__ import annotations

import json
import types
from typing import Any

import pytest
from factories import synthetic

from suanli.bench.results import BenchResult, MatmulResult, Tf32Setting, roof_precision
from suanli.catalog.load import packaged_catalog


def _fake() -> Any:
    from suanli.bench.backends import FakeDeviceModule, TorchAcceleratorBackend

    return TorchAcceleratorBackend("fake", FakeDeviceModule(), 0, tensor_device="cpu")


@pytest.fixture(autouse=True)
def _no_tf32_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NVIDIA_TF32_OVERRIDE", raising=False)
    monkeypatch.delenv("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", raising=False)


def test_the_setting_is_read_inside_the_precision_mode() -> None:
    from suanli.bench.backends import get_backend
    from suanli.bench.run import precision_mode, tf32_setting

    with precision_mode("tf32", _fake()):
        on = tf32_setting(_fake())
    with precision_mode("fp32", _fake()):
        off = tf32_setting(_fake())
    assert on.float32_matmul_precision == "high" and on.cuda_matmul_allow_tf32 and on.matmul_tf32 and on.env == {}
    assert off.float32_matmul_precision == "highest" and not off.cuda_matmul_allow_tf32 and not off.matmul_tf32
    with precision_mode("fp32", get_backend("cpu")):  # TF32 is NVIDIA's: never on off NVIDIA
        import torch

        torch.set_float32_matmul_precision("high")
        assert not tf32_setting(get_backend("cpu")).matmul_tf32


def test_the_environment_overrides_are_recorded_and_win(monkeypatch: pytest.MonkeyPatch) -> None:
    from suanli.bench.run import precision_mode, tf32_setting

    monkeypatch.setenv("NVIDIA_TF32_OVERRIDE", "0")
    with precision_mode("tf32", _fake()):
        s = tf32_setting(_fake())
    assert s.cuda_matmul_allow_tf32 and not s.matmul_tf32  # torch asked for TF32, cuBLAS was told no
    assert s.env == {"NVIDIA_TF32_OVERRIDE": "0"} and s.cause() == "NVIDIA_TF32_OVERRIDE=0"
    assert "NVIDIA_TF32_OVERRIDE=0" in s.describe() and s.describe().startswith("off (")
    monkeypatch.delenv("NVIDIA_TF32_OVERRIDE")
    monkeypatch.setenv("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "1")
    with precision_mode("fp32", _fake()):
        s = tf32_setting(_fake())
    assert not s.cuda_matmul_allow_tf32 and s.matmul_tf32 and s.cause() == "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1"


def test_a_run_records_what_torch_used_not_what_the_harness_asked(
    small_spec: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """torch's matmul flag patched on (as a library switching it behind the harness's back would): the fp32 run
    records TF32 on, and so do its fp32 matmul microbenchmark; bf16 GEMMs record nothing (TF32 is for fp32)."""
    import torch

    from suanli.bench.run import run_benchmark

    monkeypatch.setattr(torch.backends.cuda, "matmul", types.SimpleNamespace(allow_tf32=True))
    r = run_benchmark(small_spec.model_copy(update={"device": "fake", "accuracy": False}), backend=_fake())
    assert r.tf32 is not None and r.tf32.matmul_tf32 and r.tf32.cuda_matmul_allow_tf32
    assert r.roof_precision() == "tf32"
    assert r.micro is not None
    assert {m.precision: m.tf32 for m in r.micro.matmul} == {"fp32": True, "bf16": None, "fp16": None}
    back = BenchResult.model_validate_json(r.to_json())
    assert back.tf32 == r.tf32


def test_a_tf32_run_under_nvidia_tf32_override_0_records_it_off(
    small_spec: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from suanli.bench.run import run_benchmark

    monkeypatch.setenv("NVIDIA_TF32_OVERRIDE", "0")
    r = run_benchmark(small_spec.model_copy(update={"device": "fake", "precision": "tf32", "accuracy": False,
                                                    "matmul_precisions": ["fp32", "tf32"]}), backend=_fake())
    assert r.tf32 is not None and not r.tf32.matmul_tf32 and r.tf32.float32_matmul_precision == "high"
    assert r.roof_precision() == "fp32"
    assert r.micro is not None and [m.roof_precision() for m in r.micro.matmul] == ["fp32", "fp32"]


def test_roof_precision_follows_the_record_and_trusts_the_name_without_one() -> None:
    assert [roof_precision(p, None) for p in ("fp32", "tf32", "bf16")] == ["fp32", "tf32", "bf16"]
    assert [roof_precision(p, True) for p in ("fp32", "tf32", "bf16")] == ["tf32", "tf32", "bf16"]
    assert [roof_precision(p, False) for p in ("fp32", "tf32", "fp16")] == ["fp32", "fp32", "fp16"]


def _h100(precision: str, tf32: bool | None, why: dict[str, str] | None = None) -> BenchResult:
    """A synthetic H100 SXM run (catalog: TF32 dense 494.7, fp32 66.9 TFLOPS) with a recorded TF32 setting."""
    r = synthetic(0.35, 0.2, 0.8, 0.9, accelerator="h100-sxm")
    r = r.model_copy(update={"model": r.model.model_copy(update={"name": "llama-2-7b", "key": "llama-2-7b"}),
                             "config": r.config.model_copy(update={"precision": precision})})
    if tf32 is None:
        return r
    setting = Tf32Setting(float32_matmul_precision="high" if precision == "tf32" else "highest",
                          cuda_matmul_allow_tf32=precision == "tf32", cudnn_allow_tf32=True, env=why or {},
                          matmul_tf32=tf32)
    return r.model_copy(update={"tf32": setting})


def test_an_fp32_run_with_tf32_on_is_compared_with_the_tf32_roof() -> None:
    from suanli.bench.feedback import calibrate_results, compare_basis, compare_result
    from suanli.i18n import render

    cat = packaged_catalog()
    r = _h100("fp32", True, {"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": "1"})
    acc, _, note = compare_basis(cat, r)
    assert acc.specs.fp32_tflops is not None and acc.specs.fp32_tflops.value == 494.7
    assert note is not None and note.id == "cli.fb.tf32_on_roof"
    assert render(note, "en").startswith("fp32 run with TF32 on (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1)")
    assert "494.7 TFLOPS" in render(note, "zh")
    plain = _h100("fp32", False)
    assert compare_basis(cat, plain)[2] is None and compare_basis(cat, plain)[0].specs.fp32_tflops.value == 66.9  # type: ignore[union-attr]
    pre = {x.metric: x.estimated for x in compare_result(cat, r)[1]}["prefill_tokens_per_s"]
    pre_plain = {x.metric: x.estimated for x in compare_result(cat, plain)[1]}["prefill_tokens_per_s"]
    assert pre is not None and pre_plain is not None and pre > 3 * pre_plain
    rejected: list[str] = []
    assert [f for f in calibrate_results(cat, [r], rejected) if f.metric != "decode_step_overhead_s"] == []
    assert any(x.startswith("h100-sxm: tf32 run(s) r0 not used for calibration") for x in rejected)


def test_a_tf32_run_with_tf32_off_is_compared_at_the_fp32_peak() -> None:
    from suanli.bench.feedback import compare_basis
    from suanli.i18n import render

    acc, _, note = compare_basis(packaged_catalog(), _h100("tf32", False, {"NVIDIA_TF32_OVERRIDE": "0"}))
    assert acc.specs.fp32_tflops is not None and acc.specs.fp32_tflops.value == 66.9
    assert note is not None and note.id == "cli.fb.tf32_off"
    assert render(note, "en").startswith("tf32 run with TF32 off (NVIDIA_TF32_OVERRIDE=0): its matmuls ran in full "
                                         "fp32, so this is the fp32 estimate at h100-sxm's fp32 peak (66.9 TFLOPS)")


def test_an_fp32_run_with_tf32_on_and_no_tf32_peak_says_so() -> None:
    from suanli.bench.feedback import compare_basis

    r = _h100("fp32", True, {"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": "1"}).model_copy(update={"accelerator": "a10"})
    acc, _, note = compare_basis(packaged_catalog(), r)
    assert acc.specs.tf32_dense_tflops is None and note is not None and note.id == "cli.fb.tf32_on_no_roof"


def test_an_old_record_without_the_field_loads_unchanged_and_goes_by_its_precision(tmp_path: Any) -> None:
    from suanli.bench.feedback import compare_basis
    from suanli.bench.results import ResultStore

    doc = json.loads(_h100("tf32", None).to_json())
    del doc["tf32"]  # written before the field existed
    for m in doc["micro"]["matmul"]:
        m.pop("tf32", None)
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "old.json").write_text(json.dumps(doc), encoding="utf-8")
    old = ResultStore(tmp_path).results()[0]
    assert old.tf32 is None and all(m.tf32 is None for m in old.micro.matmul)  # type: ignore[union-attr]
    assert old.roof_precision() == "tf32"
    note = compare_basis(packaged_catalog(), old)[2]
    assert note is not None and note.id == "cli.fb.tf32_roof"  # as before the record existed


def test_a_host_fp32_gemm_with_tf32_on_fills_the_tf32_peak_not_the_fp32_one() -> None:
    from suanli.bench.feedback import device_for_result

    r = _h100("fp32", True).model_copy(update={"accelerator": None})
    assert r.micro is not None
    mm = [MatmulResult(precision="fp32", n=64, flops_per_call=1, time_s=1, tflops=300.0, tf32=True),
          MatmulResult(precision="bf16", n=64, flops_per_call=1, time_s=1, tflops=600.0)]
    r = r.model_copy(update={"micro": r.micro.model_copy(update={"matmul": mm})})
    s = device_for_result(packaged_catalog(), r).specs
    assert s.tf32_dense_tflops is not None and s.tf32_dense_tflops.value == 300.0 and s.fp32_tflops is None


def test_bench_show_prints_the_setting_and_not_recorded(tmp_path: Any) -> None:
    from typer.testing import CliRunner

    from suanli.bench.results import ResultStore
    from suanli.cli.main import app

    store = ResultStore(tmp_path / "store")
    new = _h100("tf32", False, {"NVIDIA_TF32_OVERRIDE": "0"}).model_copy(update={"id": "20260102T000000Z-new"})
    old = _h100("fp32", None).model_copy(update={"id": "20260101T000000Z-old"})
    store.save(new)
    store.save(old)
    env = {"COLUMNS": "200", "SUANLI_HOME": str(tmp_path / "home")}
    out = CliRunner().invoke(app, ["--lang", "en", "bench", "show", "20260102", "--store", str(store.root)], env=env)
    assert out.exit_code == 0, out.output
    assert "TF32 matmuls: off (float32_matmul_precision high" in out.stdout
    assert "NVIDIA_TF32_OVERRIDE=0" in out.stdout
    out = CliRunner().invoke(app, ["--lang", "en", "bench", "show", "20260101", "--store", str(store.root)], env=env)
    assert out.exit_code == 0, out.output
    assert "TF32 matmuls: not recorded" in out.stdout
    zh = CliRunner().invoke(app, ["--lang", "zh", "bench", "show", "20260101", "--store", str(store.root)], env=env)
    assert zh.exit_code == 0 and "TF32 矩阵乘：未记录" in zh.stdout
    js = CliRunner().invoke(app, ["bench", "show", "--store", str(store.root), "--json"], env=env)
    assert js.exit_code == 0, js.output
    assert json.loads(js.stdout)["tf32"]["matmul_tf32"] is False
    cmp = CliRunner().invoke(app, ["--lang", "en", "bench", "compare", "20260102", "--store", str(store.root)], env=env)
    assert cmp.exit_code == 0, cmp.output
    assert "tf32 run with TF32 off (NVIDIA_TF32_OVERRIDE=0)" in cmp.stdout


# --- task E (2026-12-01): torch >= 2.9's fp32_precision switches and Ascend's HF32 are recorded where they apply


def _matmul_ns(**kw: Any) -> Any:
    return types.SimpleNamespace(**kw)


@pytest.mark.parametrize(("fp32_precision", "allow", "on"), [
    ("tf32", False, True),  # the new switch decides where it is set
    ("ieee", True, False),
    ("none", True, True),  # not set: the legacy switch (torch keeps both in step)
    ("none", False, False),
])
def test_fp32_precision_decides_the_matmul_roof(monkeypatch: pytest.MonkeyPatch, fp32_precision: str, allow: bool,
                                                on: bool) -> None:
    import torch

    from suanli.bench.run import tf32_setting

    monkeypatch.setattr(torch.backends.cuda, "matmul", _matmul_ns(allow_tf32=allow, fp32_precision=fp32_precision))
    monkeypatch.setattr(torch.backends.cudnn, "conv", types.SimpleNamespace(fp32_precision="tf32"), raising=False)
    s = tf32_setting(_fake())
    assert s.cuda_matmul_fp32_precision == fp32_precision and s.cudnn_conv_fp32_precision == "tf32"
    assert s.matmul_tf32 is on and s.npu_matmul_allow_hf32 is None and not s.ascend()
    assert f"cuda.matmul.fp32_precision {fp32_precision}" in s.describe()
    assert "cudnn.conv.fp32_precision tf32" in s.describe()
    if fp32_precision != "none":
        assert s.cause() == f"cuda.matmul.fp32_precision {fp32_precision}"
    r = BenchResult.model_validate_json(synthetic(0.35, 0.2, 0.8, 0.9, accelerator="h100-sxm").model_copy(
        update={"tf32": s, "config": synthetic(0.35, 0.2, 0.8, 0.9).config.model_copy(
            update={"precision": "fp32"})}).to_json())
    assert r.tf32 == s and r.roof_precision() == ("tf32" if on else "fp32")


def test_absent_or_unreadable_switches_are_not_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A torch before 2.9 has no fp32_precision; torch >= 2.9 raises on allow_tf32 and
    get_float32_matmul_precision once the new API set the flag: neither is an error, the switch is just not recorded."""
    import torch

    from suanli.bench.run import tf32_setting

    class _Mixed:
        fp32_precision = "tf32"

        @property
        def allow_tf32(self) -> bool:
            raise RuntimeError("you have used mix of the legacy and new APIs")

    def _refuse() -> str:
        raise RuntimeError("you have used mix of the legacy and new APIs")

    monkeypatch.setattr(torch.backends.cuda, "matmul", _Mixed())
    monkeypatch.setattr(torch, "get_float32_matmul_precision", _refuse)
    monkeypatch.setattr(torch.backends, "cudnn", types.SimpleNamespace(allow_tf32=True))  # no cudnn.conv
    s = tf32_setting(_fake())
    assert s.cuda_matmul_allow_tf32 is None and s.float32_matmul_precision is None
    assert s.cudnn_conv_fp32_precision is None and s.matmul_tf32  # the new switch said tf32
    text = s.describe()
    assert "allow_tf32 None" not in text and "float32_matmul_precision" not in text and "cudnn.conv" not in text
    monkeypatch.setattr(torch.backends.cuda, "matmul", _matmul_ns(allow_tf32=True))  # torch < 2.9
    old = tf32_setting(_fake())
    assert old.cuda_matmul_fp32_precision is None and old.matmul_tf32 and "fp32_precision" not in old.describe()


def _npu(matmul: bool | None, conv: bool | None) -> Any:
    from suanli.bench.backends import FakeDeviceModule, TorchAcceleratorBackend

    module = FakeDeviceModule()
    if matmul is not None:
        module.matmul = types.SimpleNamespace(allow_hf32=matmul)  # type: ignore[attr-defined]
    if conv is not None:
        module.conv = types.SimpleNamespace(allow_hf32=conv)  # type: ignore[attr-defined]
    return TorchAcceleratorBackend("npu", module, 0, tensor_device="cpu")


def test_ascend_records_hf32_and_keeps_the_fp32_roof(monkeypatch: pytest.MonkeyPatch) -> None:
    """torch_npu.npu.matmul.allow_hf32 (default False) / conv.allow_hf32 (default True) are read on an NPU, the CUDA
    switches are not (they do not apply there); TF32 stays off and the roof fp32: the catalog has no HF32 peak."""
    import torch

    from suanli.bench.feedback import compare_basis
    from suanli.bench.run import tf32_setting
    from suanli.i18n import render

    monkeypatch.setattr(torch.backends.cuda, "matmul", _matmul_ns(allow_tf32=True, fp32_precision="tf32"))
    s = tf32_setting(_npu(True, True))
    assert s.npu_matmul_allow_hf32 is True and s.npu_conv_allow_hf32 is True and s.ascend()
    assert s.cuda_matmul_allow_tf32 is None and s.cuda_matmul_fp32_precision is None and not s.matmul_tf32
    assert s.describe() == "on (npu.matmul.allow_hf32 True, npu.conv.allow_hf32 True)"  # no NVIDIA env vars
    cat = packaged_catalog()
    ascend = [a for a in cat.accelerators if a.id.startswith("ascend-910b")]
    assert ascend and all(getattr(a.specs, "hf32_dense_tflops", None) is None for a in ascend)  # no HF32 peak
    r = _h100("fp32", None).model_copy(update={"accelerator": "ascend-910b2", "tf32": s})
    assert r.roof_precision() == "fp32"
    _, _, note = compare_basis(cat, r)
    assert note is not None and note.id == "cli.fb.hf32_on_fp32_roof"
    assert "no HF32 peak for ascend-910b2" in render(note, "en") and "HF32 峰值" in render(note, "zh")
    off = tf32_setting(_npu(False, True))
    assert off.describe().startswith("off (npu.matmul.allow_hf32 False")
    assert compare_basis(cat, r.model_copy(update={"tf32": off}))[2] is None
    bare = tf32_setting(_npu(None, None))  # a torch_npu without the switches: nothing recorded, no error
    assert bare.npu_matmul_allow_hf32 is None and bare.npu_conv_allow_hf32 is None and not bare.matmul_tf32


def test_bench_show_prints_the_hf32_setting(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from suanli.bench.results import ResultStore
    from suanli.bench.run import tf32_setting
    from suanli.cli.main import app

    store = ResultStore(tmp_path / "store")
    r = _h100("fp32", None).model_copy(update={"accelerator": "ascend-910b2", "id": "20260103T000000Z-npu",
                                               "tf32": tf32_setting(_npu(True, True))})
    store.save(r)
    env = {"COLUMNS": "200", "SUANLI_HOME": str(tmp_path / "home")}
    out = CliRunner().invoke(app, ["--lang", "en", "bench", "show", "20260103", "--store", str(store.root)], env=env)
    assert out.exit_code == 0, out.output
    assert ("HF32 matmuls (Ascend): on (npu.matmul.allow_hf32 True, npu.conv.allow_hf32 True); compared at the fp32 "
            "roof") in out.stdout
    zh = CliRunner().invoke(app, ["--lang", "zh", "bench", "show", "20260103", "--store", str(store.root)], env=env)
    assert zh.exit_code == 0 and "HF32 矩阵乘（昇腾）：开启" in zh.stdout
