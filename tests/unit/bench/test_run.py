from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("torch")

from suanli.bench.backends import FakeDeviceModule, TorchAcceleratorBackend, get_backend  # noqa: E402
from suanli.bench.run import matmul_tflops, measure_throughput, memory_bandwidth, run_benchmark  # noqa: E402
from suanli.errors import InputError  # noqa: E402


def test_throughput_numbers_are_positive_and_consistent(tiny: Any) -> None:
    b = get_backend("cpu")
    tp = measure_throughput(tiny, b, batch=2, input_tokens=16, output_tokens=6, warmup=1, repeats=3)
    assert tp.prefill_tokens == 2 * 16
    assert tp.decode_steps == 5 and tp.decode_tokens == 2 * 5
    for v in (tp.prefill_time_s, tp.prefill_tokens_per_s, tp.ttft_s, tp.decode_time_s, tp.decode_tokens_per_s):
        assert v > 0
    # decode tokens/s x decode time = decode tokens; the same for prefill
    assert tp.decode_tokens_per_s * tp.decode_time_s == pytest.approx(tp.decode_tokens, rel=1e-12)
    assert tp.prefill_tokens_per_s * tp.prefill_time_s == pytest.approx(tp.prefill_tokens, rel=1e-12)
    assert tp.decode_step_latency_s * tp.decode_steps == pytest.approx(tp.decode_time_s, rel=1e-12)
    assert len(tp.samples_decode_time_s) == 3
    assert sorted(tp.samples_decode_time_s)[1] == tp.decode_time_s  # median of three
    # TTFT contains the prefill forward pass of the same run
    assert all(t >= p for t, p in zip(tp.samples_ttft_s, tp.samples_prefill_time_s, strict=True))
    assert tp.peak_memory_bytes > 0 and tp.memory_kind == "process-peak-rss"


def test_output_must_leave_a_decode_step(tiny: Any) -> None:
    with pytest.raises(InputError, match="^output: must be at least 2"):
        measure_throughput(tiny, get_backend("cpu"), 1, 8, 1, 0, 1)


def test_sequence_longer_than_the_model_is_an_input_error(tiny: Any) -> None:
    with pytest.raises(InputError, match="exceeds the model's 2048 positions"):
        measure_throughput(tiny, get_backend("cpu"), 1, 2040, 16, 0, 1)


def test_matmul_counts_2n3_flops_and_bandwidth_counts_read_plus_write() -> None:
    b = get_backend("cpu")
    m = matmul_tflops(b, "fp32", n=64, warmup=1, repeats=3)
    assert m.flops_per_call == 2 * 64**3
    assert m.tflops == pytest.approx(m.flops_per_call / m.time_s / 1e12)
    bw = memory_bandwidth(b, 1 << 20, warmup=1, repeats=3)
    assert bw.bytes_per_call == 2 * bw.buffer_bytes == 2 << 20
    assert bw.bytes_per_s == pytest.approx(bw.bytes_per_call / bw.time_s)


def test_tf32_is_refused_off_nvidia() -> None:
    with pytest.raises(InputError, match="^precision: tf32 exists only on NVIDIA GPUs"):
        matmul_tflops(get_backend("cpu"), "tf32", n=16)


def test_accelerator_code_path_runs_on_the_fake_backend(small_spec: Any) -> None:
    """The cuda/npu logic (sync around each timing, peak counter reset then read) exercised on the CPU."""
    mod = FakeDeviceModule(peak_bytes=987_654_321)
    b = TorchAcceleratorBackend("fake", mod, 0, tensor_device="cpu")
    r = run_benchmark(small_spec.model_copy(update={"device": "fake"}), backend=b)
    assert r.throughput is not None and r.micro is not None and r.accuracy is not None
    assert r.throughput.peak_memory_bytes == 987_654_321
    assert r.throughput.memory_kind == "device-max-allocated"
    assert r.backend.backend == "fake" and r.config.device == "fake"
    i = mod.calls.index("reset_peak_memory_stats")
    assert mod.calls[i - 1] == "synchronize"  # reset only after queued work is done
    assert "max_memory_allocated" in mod.calls[i:]
    # each timed interval is bracketed: >= 2 syncs per throughput repeat and per micro sample
    assert mod.calls.count("synchronize") >= 2 * small_spec.repeats + 2 * small_spec.micro_repeats
    assert [m.precision for m in r.micro.matmul] == ["fp32", "bf16", "fp16"]
    assert r.accuracy.passed


def test_run_benchmark_stores_the_result(small_spec: Any, tmp_path: Any) -> None:
    from suanli.bench.results import ResultStore

    store = ResultStore(tmp_path / "store")
    r = run_benchmark(small_spec.model_copy(update={"micro": False}), store=store)
    assert [x.id for x in store.results()] == [r.id]
    assert r.accuracy is not None and r.accuracy.passed
    assert r.micro is None


def test_unknown_precision_is_an_input_error(small_spec: Any) -> None:
    with pytest.raises(InputError, match="^precision: 'int3' is not one of"):
        run_benchmark(small_spec.model_copy(update={"precision": "int3"}))
