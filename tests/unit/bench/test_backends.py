from __future__ import annotations

import sys

import pytest

pytest.importorskip("torch")

from suanli.bench.backends import (  # noqa: E402
    CpuBackend,
    FakeDeviceModule,
    TorchAcceleratorBackend,
    backend_names,
    get_backend,
    parse_device,
)
from suanli.errors import InputError, NotFoundError  # noqa: E402


def test_registry_has_cpu_cuda_npu_and_fake() -> None:
    assert {"cpu", "cuda", "npu", "fake"} <= set(backend_names())


def test_unknown_backend_suggests_names() -> None:
    with pytest.raises(NotFoundError, match="Did you mean: cuda"):
        get_backend("cudaa")


def test_parse_device() -> None:
    assert parse_device("cuda") == ("cuda", 0)
    assert parse_device("NPU:3") == ("npu", 3)
    with pytest.raises(InputError, match="^device:"):
        parse_device("cuda:x")


def test_cpu_peak_memory_is_process_rss_and_grows_with_an_allocation() -> None:
    import torch

    b = get_backend("cpu")
    assert isinstance(b, CpuBackend) and b.device == "cpu"
    b.reset_peak()
    before = b.peak_memory_bytes()
    x = torch.ones(64 * 2**20 // 4)  # 64 MiB, touched
    after = b.peak_memory_bytes()
    assert before > 0
    assert after - before >= 32 * 2**20, (before, after)
    del x
    info = b.info()
    assert info.memory_kind == "process-peak-rss" and info.total_memory_bytes


def test_accelerator_path_through_fake_module_synchronizes_and_reads_max_allocated() -> None:
    mod = FakeDeviceModule(peak_bytes=123_456_789)
    b = TorchAcceleratorBackend("cuda", mod, 0, tensor_device="cpu")
    b.reset_peak()
    assert mod.calls == ["synchronize", "reset_peak_memory_stats"]
    assert b.peak_memory_bytes() == 123_456_789
    assert mod.calls[-2:] == ["synchronize", "max_memory_allocated"]
    info = b.info()
    assert info.device_name == "fake accelerator"
    assert info.memory_kind == "device-max-allocated"
    assert info.total_memory_bytes == 16 * 2**30


def test_accelerator_index_out_of_range_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"^device: cuda:2 does not exist; 1 cuda device visible$"):
        TorchAcceleratorBackend("cuda", FakeDeviceModule(count=1), 2)


def test_cuda_without_a_gpu_is_an_input_error() -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(InputError, match="^device: cuda: torch sees no CUDA device"):
        get_backend("cuda")


def test_npu_without_torch_npu_is_an_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch_npu", None)
    with pytest.raises(InputError, match="^device: npu needs torch_npu"):
        get_backend("npu")
