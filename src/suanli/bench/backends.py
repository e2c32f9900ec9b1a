"""Device backends: a registry of small objects that place tensors, synchronise and report peak memory.

`cpu` measures the process's peak resident set size (Linux VmHWM, reset through /proc/self/clear_refs);
`cuda` and `npu` wrap the torch device module (`torch.cuda`, or `torch.npu` once `torch_npu` is imported;
torch_npu mirrors the torch.cuda API: synchronize, device_count, max_memory_allocated, max_memory_reserved,
reset_peak_memory_stats, get_device_name, get_device_properties — Ascend/pytorch `torch_npu/npu/__init__.py` and
`torch_npu/npu/memory.py` (read at 026318d) export them under the same names); `fake`
wraps a recording stand-in for that module so the accelerator code path runs on the CPU in tests.

Peak reserved (`peak_reserved_bytes`) is the caching allocator's pool, its cache included
(`max_memory_reserved`); the CPU has no such allocator and reports None, never a stand-in figure.
"""

from __future__ import annotations

import platform
import resource
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from suanli.bench import TORCH_HINT
from suanli.errors import InputError, NotFoundError
from suanli.i18n import Message

__all__ = [
    "Backend",
    "BackendInfo",
    "CpuBackend",
    "FakeDeviceModule",
    "TorchAcceleratorBackend",
    "backend_names",
    "get_backend",
    "parse_device",
    "register_backend",
    "require_torch",
]


def require_torch() -> Any:
    """Import torch or fail with one line saying how to install it."""
    try:
        import torch
    except ImportError as e:  # pragma: no cover - exercised only where torch is missing
        raise InputError("torch", TORCH_HINT, Message("err.bench_install_extra", extra="torch")) from e
    return torch


class BackendInfo(BaseModel):
    """What ran the benchmark: backend, device string, device name and the memory counter used."""

    backend: str
    device: str
    device_name: str
    device_count: int = 1
    total_memory_bytes: int | None = None
    memory_kind: str
    torch_version: str | None = None
    runtime_version: str | None = None
    host: str = platform.node()


class Backend(ABC):
    """One device. Subclasses implement five methods; `info()` describes the device."""

    name: str
    memory_kind: str
    is_accelerator: bool = False

    @property
    @abstractmethod
    def device(self) -> str:
        """torch device string where tensors go, e.g. 'cpu', 'cuda:0', 'npu:0'."""

    @abstractmethod
    def synchronize(self) -> None:
        """Wait until queued device work has finished (timings are taken only after this)."""

    @abstractmethod
    def reset_peak(self) -> None:
        """Start a new peak-memory window."""

    @abstractmethod
    def peak_memory_bytes(self) -> int:
        """Peak memory since the last `reset_peak()`, bytes."""

    @abstractmethod
    def info(self) -> BackendInfo: ...

    def peak_reserved_bytes(self) -> int | None:
        """Peak bytes the device's caching allocator held since the last `reset_peak()` (its cache included), or
        None where there is no caching allocator (the CPU)."""
        return None

    # the allocator's expandable_segments setting can be changed while the process runs (cuda)
    runtime_allocator_settings: bool = False

    def set_expandable_segments(self, on: bool) -> None:
        """Make the allocator put new segments in expandable ones (or not) from now on; only where
        `runtime_allocator_settings`."""
        raise NotImplementedError(self.name)

    def segment_counts(self) -> tuple[int, int] | None:
        """(expandable, all) segments the allocator holds on this device now (its memory snapshot's
        `is_expandable`); None where there is no snapshot that says."""
        return None


# ---------------------------------------------------------------------------------------------- cpu


def _vm_hwm_bytes() -> int | None:
    """Linux peak RSS (VmHWM, reported in kB = 1024 bytes by the kernel, see proc(5))."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


class CpuBackend(Backend):
    name = "cpu"
    memory_kind = "process-peak-rss"

    @property
    def device(self) -> str:
        return "cpu"

    def synchronize(self) -> None:
        return None  # CPU kernels run synchronously

    def reset_peak(self) -> None:
        # proc(5): writing 5 to clear_refs resets the peak RSS (VmHWM) to the current RSS (Linux >= 4.0).
        try:
            Path("/proc/self/clear_refs").write_text("5")
        except OSError:
            pass  # not Linux or not allowed: the peak then covers the whole process life

    def peak_memory_bytes(self) -> int:
        hwm = _vm_hwm_bytes()
        if hwm is not None:
            return hwm
        maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return int(maxrss if sys.platform == "darwin" else maxrss * 1024)  # getrusage(2): kB on Linux

    def info(self) -> BackendInfo:
        torch = require_torch()
        import os

        return BackendInfo(
            backend=self.name,
            device=self.device,
            device_name=_cpu_name(),
            device_count=1,
            total_memory_bytes=_total_ram_bytes(),
            memory_kind=self.memory_kind,
            torch_version=torch.__version__,
            runtime_version=f"threads={torch.get_num_threads()} cpus={os.cpu_count()}",
        )


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _total_ram_bytes() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


# ------------------------------------------------------------------------------------ accelerators


class TorchAcceleratorBackend(Backend):
    """A device driven through a torch.cuda-like module (torch.cuda, torch.npu, or a fake)."""

    memory_kind = "device-max-allocated"
    is_accelerator = True

    def __init__(
        self,
        name: str,
        module: Any,
        index: int = 0,
        tensor_device: str | None = None,
        runtime_version: str | None = None,
    ) -> None:
        self.name = name
        self.module = module
        self.index = index
        self._device = tensor_device or f"{name}:{index}"
        self._runtime_version = runtime_version
        # pytorch c10/cuda/CUDACachingAllocator.cpp Note [Expandable Segments] (read at 001074d): "Expandable blocks
        # can be enabled/disabled throughout the run of a program. When disabled, the allocator will not put new
        # allocations in an expandable block." torch_npu's run-time setter is not verified: its process setting holds
        self.runtime_allocator_settings = name in ("cuda", "fake") and callable(
            getattr(getattr(module, "memory", None), "_set_allocator_settings", None))
        count = int(module.device_count())
        if index >= count:
            raise InputError("device", Message("err.does_not_exist_device_s_visible", name=name, index=index, count=count))

    @property
    def device(self) -> str:
        return self._device

    def synchronize(self) -> None:
        self.module.synchronize(self.index)

    def reset_peak(self) -> None:
        self.module.synchronize(self.index)
        self.module.reset_peak_memory_stats(self.index)

    def peak_memory_bytes(self) -> int:
        self.module.synchronize(self.index)
        return int(self.module.max_memory_allocated(self.index))

    def peak_reserved_bytes(self) -> int | None:
        self.module.synchronize(self.index)
        return int(self.module.max_memory_reserved(self.index))

    def set_expandable_segments(self, on: bool) -> None:
        if not self.runtime_allocator_settings:
            raise NotImplementedError(self.name)
        self.module.memory._set_allocator_settings(f"expandable_segments:{on}")  # the parser takes True / False

    def segment_counts(self) -> tuple[int, int] | None:
        snapshot = getattr(self.module, "memory_snapshot", None)
        if snapshot is None:
            return None
        flags = [bool(s["is_expandable"]) for s in snapshot()
                 if isinstance(s, dict) and "is_expandable" in s and s.get("device", self.index) == self.index]
        return (sum(flags), len(flags)) if flags else None

    def info(self) -> BackendInfo:
        torch = require_torch()
        props = self.module.get_device_properties(self.index)
        return BackendInfo(
            backend=self.name,
            device=self.device,
            device_name=str(self.module.get_device_name(self.index)),
            device_count=int(self.module.device_count()),
            total_memory_bytes=int(getattr(props, "total_memory", 0)) or None,
            memory_kind=self.memory_kind,
            torch_version=torch.__version__,
            runtime_version=self._runtime_version,
        )


def _cuda(index: int) -> Backend:
    torch = require_torch()
    if not torch.cuda.is_available():
        raise InputError(
            "device", Message("err.cuda_torch_sees_no_cuda_device")
        )
    return TorchAcceleratorBackend("cuda", torch.cuda, index, runtime_version=f"cuda {torch.version.cuda}")


def _npu(index: int) -> Backend:
    torch = require_torch()
    try:
        import torch_npu  # noqa: F401  (registers torch.npu and the 'npu' device type)
    except ImportError as e:
        raise InputError("device", Message("err.npu_needs_torch_npu_matching_your")) from e
    if not torch.npu.is_available():
        raise InputError("device", Message("err.npu_torch_npu_sees_no_ascend"))
    version = getattr(torch_npu, "__version__", None)
    return TorchAcceleratorBackend("npu", torch.npu, index, runtime_version=f"torch_npu {version}")


class FakeDeviceModule:
    """Stands in for torch.cuda / torch.npu: records every call; tensors stay on the CPU.

    `peak_bytes` is what `max_memory_allocated` returns, `reserved_bytes` what `max_memory_reserved` returns; tests
    set them and check they arrive in the result. `memory` is the module itself (torch.cuda.memory's
    `_set_allocator_settings`, recorded in `allocator_settings`), and `memory_snapshot` holds one segment whose
    `is_expandable` is the last setting made.
    """

    def __init__(self, peak_bytes: int = 3 * 2**20, count: int = 1, reserved_bytes: int = 4 * 2**20) -> None:
        self.calls: list[str] = []
        self.peak_bytes = peak_bytes
        self.reserved_bytes = reserved_bytes
        self.count = count
        self.allocator_settings: list[str] = []
        self.memory = self

    def device_count(self) -> int:
        return self.count

    def is_available(self) -> bool:
        return True

    def synchronize(self, index: int | None = None) -> None:
        self.calls.append("synchronize")

    def reset_peak_memory_stats(self, index: int | None = None) -> None:
        self.calls.append("reset_peak_memory_stats")

    def max_memory_allocated(self, index: int | None = None) -> int:
        self.calls.append("max_memory_allocated")
        return self.peak_bytes

    def max_memory_reserved(self, index: int | None = None) -> int:
        self.calls.append("max_memory_reserved")
        return self.reserved_bytes

    def empty_cache(self) -> None:
        self.calls.append("empty_cache")

    def _set_allocator_settings(self, settings: str) -> None:
        self.allocator_settings.append(settings)

    def memory_snapshot(self) -> list[dict[str, Any]]:
        on = bool(self.allocator_settings) and self.allocator_settings[-1] == "expandable_segments:True"
        return [{"device": 0, "is_expandable": on}]

    def get_device_name(self, index: int | None = None) -> str:
        return "fake accelerator"

    def get_device_properties(self, index: int | None = None) -> Any:
        class _Props:
            total_memory = 16 * 2**30

        return _Props()


def _fake(index: int) -> Backend:
    return TorchAcceleratorBackend("fake", FakeDeviceModule(), index, tensor_device="cpu", runtime_version="fake")


_REGISTRY: dict[str, Callable[[int], Backend]] = {
    "cpu": lambda index: CpuBackend(),
    "cuda": _cuda,
    "npu": _npu,
    "fake": _fake,
}


def register_backend(name: str, factory: Callable[[int], Backend]) -> None:
    """Add a backend: `factory(index)` returns a ready Backend or raises InputError."""
    _REGISTRY[name] = factory


def backend_names() -> list[str]:
    return sorted(_REGISTRY)


def parse_device(spec: str) -> tuple[str, int]:
    """'cuda' -> ('cuda', 0); 'npu:3' -> ('npu', 3)."""
    name, _, idx = spec.strip().lower().partition(":")
    if idx and not idx.isdigit():
        raise InputError("device", Message("err.the_index_after_must_be_a", spec_=spec))
    return name, int(idx or 0)


def get_backend(spec: str | Backend) -> Backend:
    """A backend from 'cpu', 'cuda', 'cuda:1', 'npu', 'npu:0' or 'fake' (or pass a Backend through)."""
    if isinstance(spec, Backend):
        return spec
    name, index = parse_device(spec)
    if name not in _REGISTRY:
        raise NotFoundError("device", name, _REGISTRY)
    return _REGISTRY[name](index)
