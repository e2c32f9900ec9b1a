"""The suite's variable-length LoRA cases (issue 12's reserved-memory gap): seeded lengths from ms-swift's benchmark
dataset, the allocator's peak allocated and reserved bytes, the expandable_segments setting, and their import as
training-memory cases measured as allocated and as reserved. On the CPU through the fake backend; no GPU."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("torch")
pytest.importorskip("peft")

from suanli.bench import backends  # noqa: E402
from suanli.bench.backends import CpuBackend, FakeDeviceModule, TorchAcceleratorBackend  # noqa: E402
from suanli.bench.results import ResultStore  # noqa: E402
from suanli.bench.suite import (  # noqa: E402
    SWIFT_LENGTH_MEAN_TOKENS,
    SWIFT_LENGTH_SD_TOKENS,
    _env_expandable,
    _skip_reason,
    plan_cases,
    read_records,
    run_suite,
    swift_lognormal,
    swift_share_truncated,
    varlen_lengths,
)

ALLOC_VARS = ("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_NPU_ALLOC_CONF")


@pytest.fixture(autouse=True)
def _no_alloc_conf(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ALLOC_VARS:
        monkeypatch.delenv(var, raising=False)


def test_the_lognormal_has_the_swift_datasets_mean_and_spread_and_truncates_about_62_percent() -> None:
    mu, sigma = swift_lognormal()
    mean = math.exp(mu + sigma**2 / 2)
    sd = mean * math.sqrt(math.exp(sigma**2) - 1)
    assert mean == pytest.approx(SWIFT_LENGTH_MEAN_TOKENS) and sd == pytest.approx(SWIFT_LENGTH_SD_TOKENS)
    assert swift_share_truncated() == pytest.approx(0.622, abs=0.002)
    drawn = varlen_lengths("lognormal", 2048, 4000, 0)
    assert drawn == varlen_lengths("lognormal", 2048, 4000, 0) != varlen_lengths("lognormal", 2048, 4000, 1)
    assert min(drawn) >= 2 and max(drawn) == 2048
    assert sum(n == 2048 for n in drawn) / len(drawn) == pytest.approx(swift_share_truncated(), abs=0.03)
    assert 1000 < sum(n for n in drawn if n < 2048) / sum(n < 2048 for n in drawn) < 2048  # the shorter ones
    small = varlen_lengths("lognormal", 128, 4000, 0)  # scaled to the case's max_length: the same share truncated
    assert max(small) == 128 and sum(n == 128 for n in small) / len(small) == pytest.approx(0.622, abs=0.03)
    assert varlen_lengths("fixed", 2048, 3, 5) == [2048, 2048, 2048]


def test_the_full_plan_runs_each_shape_fixed_and_lognormal_with_expandable_segments_off_and_on() -> None:
    full = plan_cases("full")
    varlen = [c for c in full if c.lengths is not None]
    assert [c.id for c in varlen] == [f"train-{s}-lora-varlen-{d}-expseg-{a}" for s in ("1b", "8b")
                                      for a in ("off", "on") for d in ("fixed", "lognormal")]
    lora = next(c for c in full if c.id == "train-8b-lora-mb1-ckpt-adamw")
    same = ("kind", "model", "precision", "task", "batch", "seq", "recompute", "optimizer", "lora_rank", "lora_alpha",
            "lora_targets")
    for c in varlen:
        assert c.shape is not None and c.model == {"1b": "llama-1b-shape", "8b": "llama-8b-shape"}[c.shape]
        assert {k: getattr(c, k) for k in same if k != "model"} == {k: getattr(lora, k) for k in same if k != "model"}
        assert c.warmup == 0 and c.repeats == 32 and c.expandable_segments == c.id.endswith("-on")
        assert c.length_seed == (0 if c.lengths == "lognormal" else None)
    order = [c.id for c in full]
    assert order.index("train-8b-lora-mb4-ckpt-adamw8bit") < order.index(varlen[0].id)
    assert order.index(varlen[-1].id) < order.index("decode-1b-b1-generate-static")
    assert sum(c.lengths is not None for c in plan_cases("tiny")) == 4


def test_backends_report_reserved_where_an_allocator_has_a_cache_and_none_on_the_cpu() -> None:
    mod = FakeDeviceModule(peak_bytes=7, reserved_bytes=11)
    b = TorchAcceleratorBackend("cuda", mod, 0, tensor_device="cpu")
    assert b.peak_reserved_bytes() == 11 and mod.calls[-2:] == ["synchronize", "max_memory_reserved"]
    assert b.runtime_allocator_settings
    b.set_expandable_segments(True)
    assert mod.allocator_settings == ["expandable_segments:True"] and b.segment_counts() == (1, 1)
    assert CpuBackend().peak_reserved_bytes() is None and CpuBackend().segment_counts() is None
    npu = TorchAcceleratorBackend("npu", FakeDeviceModule(), 0, tensor_device="cpu")
    assert not npu.runtime_allocator_settings  # torch_npu's run-time setter is not verified
    with pytest.raises(NotImplementedError):
        npu.set_expandable_segments(True)


def test_the_process_setting_is_read_from_the_variable_torch_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _env_expandable("cuda") == (False, {})
    monkeypatch.setenv("PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:128, expandable_segments:True")
    assert _env_expandable("cuda")[0] is True and not _env_expandable("npu")[0]
    monkeypatch.setenv("PYTORCH_ALLOC_CONF", "expandable_segments:False")  # read first by torch >= 2.9
    assert _env_expandable("cuda") == (False, {"PYTORCH_ALLOC_CONF": "expandable_segments:False",
                                               "PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:128, "
                                                                          "expandable_segments:True"})


def test_where_the_setting_is_fixed_at_start_the_other_case_says_how_to_run_it(monkeypatch: pytest.MonkeyPatch) -> None:
    npu = TorchAcceleratorBackend("npu", FakeDeviceModule(), 0, tensor_device="cpu")
    by_id = {c.id: c for c in plan_cases("tiny")}
    off, on = by_id["train-tiny-lora-varlen-fixed-expseg-off"], by_id["train-tiny-lora-varlen-fixed-expseg-on"]
    assert _skip_reason(off, npu) is None
    reason = _skip_reason(on, npu)
    assert reason is not None and reason.id == "bench.suite.skip_expseg_env"
    from suanli.i18n import render

    text = render(reason, "en")
    assert "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True" in text and "--only 'train-tiny-lora-varlen-fixed-expseg-on'" in text
    monkeypatch.setenv("PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True")
    assert _skip_reason(on, npu) is None and _skip_reason(off, npu) is not None
    fake = TorchAcceleratorBackend("fake", FakeDeviceModule(), 0, tensor_device="cpu")
    assert _skip_reason(on, fake) is None and _skip_reason(off, fake) is None  # set at run time
    assert _skip_reason(off, CpuBackend()) is None
    cpu_on = _skip_reason(on, CpuBackend())
    assert cpu_on is not None and cpu_on.id == "bench.suite.skip_expseg_cpu"


FAKE_PEAK, FAKE_RESERVED = 5 * 2**20, 9 * 2**20


@pytest.fixture(scope="module")
def fake_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, FakeDeviceModule]]:
    out = tmp_path_factory.mktemp("varlen")
    mod = FakeDeviceModule(peak_bytes=FAKE_PEAK, reserved_bytes=FAKE_RESERVED)
    with pytest.MonkeyPatch.context() as mp:
        for var in ALLOC_VARS:
            mp.delenv(var, raising=False)
        mp.setitem(backends._REGISTRY, "fake",
                   lambda i: TorchAcceleratorBackend("fake", mod, i, tensor_device="cpu", runtime_version="fake"))
        run = run_suite(out, device="fake", accelerator="h200", only=["train-tiny-lora-varlen-lognormal-*"])
    assert run.cases == {"train-tiny-lora-varlen-lognormal-expseg-off": "ok",
                         "train-tiny-lora-varlen-lognormal-expseg-on": "ok"}
    yield out, mod


def test_a_varlen_case_records_lengths_both_peaks_per_step_and_the_setting(fake_run: tuple[Path, Any]) -> None:
    out, mod = fake_run
    # each case sets its value before its model is built and puts the process's (unset: False) back after
    assert mod.allocator_settings == ["expandable_segments:False", "expandable_segments:False",
                                      "expandable_segments:True", "expandable_segments:False"]
    assert mod.calls.count("empty_cache") >= 2  # every model dropped and the cache emptied before each build
    recs = {r.case.id: r for r in read_records(out)[0]}
    for on in (False, True):
        r = recs[f"train-tiny-lora-varlen-lognormal-expseg-{'on' if on else 'off'}"]
        m = r.metrics
        assert m["lengths"] == varlen_lengths("lognormal", 128, 6, 0) and m["steps"] == 6 and m["max_length"] == 128
        assert m["steps_at_max_length"] == sum(n == 128 for n in m["lengths"]) and m["tokens"] == sum(m["lengths"])
        assert m["peak_allocated_bytes"] == m["peak_memory_bytes"] == FAKE_PEAK
        assert m["peak_reserved_bytes"] == FAKE_RESERVED and m["steps_peak_reserved_bytes"] == [FAKE_RESERVED] * 6
        assert m["steps_peak_allocated_bytes"] == [FAKE_PEAK] * 6 and m["start_reserved_bytes"] == FAKE_RESERVED
        assert m["expandable_segments"] is on and m["expandable_segments_how"].startswith("set at run time")
        assert m["segments_expandable_and_all"] == [int(on), 1] and m["alloc_conf_env"] == {}
        assert len(m["samples_step_time_s"]) == 6 and 0 < m["trainable_params"] < m["model_params"]
        assert any("log-normal lengths" in n and "62%" in n for n in r.notes)
        assert r.estimate_args is not None and r.estimate_args["seq"] == 128 and r.estimate_args["recompute"] == "full"


def test_import_turns_a_varlen_case_into_allocated_and_reserved_training_memory_cases(
        fake_run: tuple[Path, Any], tmp_path: Path) -> None:
    from suanli.bench.suite_import import import_suite
    from suanli.catalog.load import packaged_catalog

    out, _ = fake_run
    report, _ = import_suite(packaged_catalog(), out, ResultStore(tmp_path / "store"), tmp_path / "cases")
    (path,) = [Path(p) for p in report.case_files]
    cases = {c["id"].split("-train-")[1]: c for c in yaml.safe_load(path.read_text())["cases"]}
    lengths = varlen_lengths("lognormal", 128, 6, 0)
    assert set(cases) == {f"tiny-lora-varlen-lognormal-expseg-{a}-memory{r}" for a in ("off", "on")
                          for r in ("", "-reserved")}  # no training-throughput case: its steps vary in length
    for key, c in cases.items():
        reserved = key.endswith("-reserved")
        assert c["group"] == "training-memory" and c["measured_as"] == ("reserved" if reserved else "allocated")
        assert c["measured"] == {"memory_bytes": FAKE_RESERVED if reserved else FAKE_PEAK}
        assert c["seq"] == max(lengths) and c["recompute"] == "full" and c["task"] == "lora"
        assert c["device"] == "h200" and c["holdout"] is True
        assert f"6 steps of {min(lengths)}-{max(lengths)} tokens" in c["note"]
        assert ("max_memory_reserved" if reserved else "max_memory_allocated") in c["note"]


def test_on_the_cpu_the_case_runs_without_a_reserved_figure(tmp_path: Path) -> None:
    run = run_suite(tmp_path, device="cpu", only=["train-tiny-lora-varlen-fixed-*"])
    assert run.cases == {"train-tiny-lora-varlen-fixed-expseg-off": "ok", "train-tiny-lora-varlen-fixed-expseg-on": "skipped"}
    recs = {r.case.id: r for r in read_records(tmp_path)[0]}
    m = recs["train-tiny-lora-varlen-fixed-expseg-off"].metrics
    assert m["lengths"] == [128] * 6 and m["memory_kind"] == "process-peak-rss" and m["peak_memory_bytes"] > 0
    assert m["peak_reserved_bytes"] is None and m["steps_peak_reserved_bytes"] is None
    assert m["peak_allocated_bytes"] is None and m["expandable_segments"] is None
    assert any("no reserved figure" in n for n in recs["train-tiny-lora-varlen-fixed-expseg-off"].notes)
    skipped = recs["train-tiny-lora-varlen-fixed-expseg-on"]
    assert json.loads(json.dumps(skipped.reason_i18n))["id"] == "bench.suite.skip_expseg_cpu"
