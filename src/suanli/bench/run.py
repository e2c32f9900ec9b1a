"""Throughput and microbenchmarks on one device.

Timing discipline (every measurement): `warmup` untimed runs first (kernel selection, allocator, caches),
then `repeats` timed runs, each bracketed by `backend.synchronize()` so queued device work is inside the
interval, and the median is reported with all samples kept. Peak memory is the backend's counter over the
timed runs (`torch.cuda.max_memory_allocated`, `torch.npu.max_memory_allocated`, or the process's peak RSS).

Throughput: a batch of `batch` sequences of `input_tokens` tokens is prefilled in one forward pass
(prefill tokens/s = batch * input_tokens / prefill time); the first output token is chosen from the prefill
logits (TTFT = prefill + that choice); then `output_tokens - 1` greedy decode steps of one token per
sequence run with the KV cache (decode tokens/s = batch * steps / decode time).
"""

from __future__ import annotations

import contextlib
import inspect
import os
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel, Field

from suanli.bench.backends import Backend, get_backend, require_torch
from suanli.bench.models import PRECISIONS, LoadedModel, dtype_for, load_model, model_key
from suanli.bench.results import (
    BandwidthResult,
    BenchResult,
    MatmulResult,
    Microbench,
    ReferenceRun,
    ResultStore,
    TF32_ENV_VARS,
    RunConfig,
    Throughput,
    Tf32Setting,
    matmul_tf32,
)
from suanli.bench.testset import throughput_ids
from suanli.errors import InputError, echoed
from suanli.i18n import Message
from suanli.units import MiB

__all__ = [
    "BenchSpec",
    "default_matmul_precisions",
    "matmul_tflops",
    "measure_throughput",
    "memory_bandwidth",
    "precision_mode",
    "run_benchmark",
    "tf32_setting",
    "timed",
]

# Microbenchmark sizes (a choice, not a fact): on accelerators large enough to reach the plateau of
# large-GEMM throughput and to exceed any on-chip cache; on the CPU small enough to finish in milliseconds
# while still exceeding the last-level cache for the copy.
MATMUL_N = {"cpu": 512, "accelerator": 8192}
BANDWIDTH_BYTES = {"cpu": 64 * MiB, "accelerator": 1024 * MiB}


class BenchSpec(BaseModel):
    """Everything `run_benchmark` needs; also what the fleet ships to each Ray task."""

    device: str = "cpu"
    model: str = "tiny-llama"
    precision: str = "fp32"
    batch: int = Field(default=1, ge=1, le=1024)
    input_tokens: int = Field(default=128, ge=1)
    output_tokens: int = Field(default=32, ge=2)
    warmup: int = Field(default=1, ge=0)
    repeats: int = Field(default=3, ge=1)
    throughput: bool = True
    micro: bool = True
    matmul_precisions: list[str] | None = None
    matmul_n: int | None = Field(default=None, ge=16)
    bandwidth_bytes: int | None = Field(default=None, ge=4096)
    micro_warmup: int = Field(default=2, ge=0)
    micro_repeats: int = Field(default=5, ge=1)
    accuracy: bool = True
    accelerator: str | None = None
    command: str = ""


def timed(backend: Backend, fn: Callable[[], Any], warmup: int, repeats: int) -> list[float]:
    """Seconds per call of `fn` for `repeats` calls after `warmup` untimed ones, synchronising around each."""
    for _ in range(warmup):
        fn()
    backend.synchronize()
    out = []
    for _ in range(repeats):
        backend.synchronize()
        t0 = time.perf_counter()
        fn()
        backend.synchronize()
        out.append(time.perf_counter() - t0)
    return out


@contextlib.contextmanager
def precision_mode(precision: str, backend: Backend) -> Iterator[None]:
    """tf32 turns on TensorFloat-32 matmuls (NVIDIA only); every other precision runs with them off."""
    torch = require_torch()
    if precision == "tf32" and backend.name not in ("cuda", "fake"):
        raise InputError("precision", Message("err.tf32_exists_only_on_nvidia_gpus", backend_name=backend.name))
    before = torch.get_float32_matmul_precision()
    # torch docs (torch.set_float32_matmul_precision): 'high' allows TF32, 'highest' keeps full fp32
    torch.set_float32_matmul_precision("high" if precision == "tf32" else "highest")
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(before)


def _read(obj: Any, path: str, kind: type) -> Any:
    """The switch at `obj.path` as `kind` (bool or str), or None where this torch has no such attribute or refuses
    to read it (torch >= 2.9 raises RuntimeError on allow_tf32 / get_float32_matmul_precision once the new
    fp32_precision API set the flag): a switch not read is not recorded, never an error."""
    try:
        for name in path.split("."):
            obj = getattr(obj, name)
        value = obj() if callable(obj) else obj
    except (AttributeError, RuntimeError):
        return None
    return kind(value) if isinstance(value, (bool, str)) else None


def tf32_setting(backend: Backend) -> Tf32Setting:
    """torch's TF32 switches as they are now (call it inside `precision_mode`, where the timed work runs) and the
    environment overrides that were set; TF32 matmuls exist on NVIDIA GPUs only (the fake backend stands in). On an
    Ascend NPU the switches that apply are torch_npu's HF32 ones (`torch_npu.npu.matmul.allow_hf32`, default False;
    `torch_npu.npu.conv.allow_hf32`, default True: hiascend.com/document/detail/zh/Pytorch/60RC3/apiref/apilist/
    ptaoplist_000848.html and ptaoplist_000517.html, read 2026-12-01), read from the backend's device module
    (torch.npu is torch_npu.npu); CUDA's are not recorded there."""
    torch = require_torch()
    if backend.name == "npu":
        module = getattr(backend, "module", None)
        return Tf32Setting(npu_matmul_allow_hf32=_read(module, "matmul.allow_hf32", bool),
                           npu_conv_allow_hf32=_read(module, "conv.allow_hf32", bool), matmul_tf32=False)
    # torch.backends.cuda.matmul.allow_tf32: float32_matmul_precision != "highest" (ATen Context::allowTF32CuBLAS)
    allow = _read(torch, "backends.cuda.matmul.allow_tf32", bool)
    fp32_precision = _read(torch, "backends.cuda.matmul.fp32_precision", str)  # torch >= 2.9
    env = {k: os.environ[k] for k in TF32_ENV_VARS if k in os.environ}
    return Tf32Setting(
        float32_matmul_precision=_read(torch, "get_float32_matmul_precision", str),
        cuda_matmul_allow_tf32=allow,
        cudnn_allow_tf32=_read(torch, "backends.cudnn.allow_tf32", bool),
        cuda_matmul_fp32_precision=fp32_precision,
        cudnn_conv_fp32_precision=_read(torch, "backends.cudnn.conv.fp32_precision", str),
        env=env,
        matmul_tf32=backend.name in ("cuda", "fake") and matmul_tf32(allow, env, fp32_precision),
    )


def _cache_kw(model: Any) -> str:
    """transformers >= 5 names the KV cache argument `cache`; 4.x names it `past_key_values`."""
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def _cache_of(out: Any) -> Any:
    c = getattr(out, "cache", None)
    return c if c is not None else out.past_key_values


def measure_throughput(
    lm: LoadedModel, backend: Backend, batch: int, input_tokens: int, output_tokens: int, warmup: int, repeats: int
) -> Throughput:
    torch = require_torch()
    if output_tokens < 2:
        raise InputError("output", Message("err.must_be_at_least_tokens_one", output_tokens=output_tokens))
    limit = lm.info.max_positions
    if limit is not None and input_tokens + output_tokens > limit:
        raise InputError(
            "input", Message("err.input_output_exceeds_the_model_s", v=input_tokens + output_tokens, limit=limit)
        )
    ids = torch.tensor(throughput_ids(lm.tokenizer, batch, input_tokens), dtype=torch.long, device=lm.device)
    kw = _cache_kw(lm.model)
    steps = output_tokens - 1

    def one() -> tuple[float, float, float]:
        backend.synchronize()
        t0 = time.perf_counter()
        out = lm.model(ids, use_cache=True)
        backend.synchronize()
        t1 = time.perf_counter()
        nxt = out.logits[:, -1, :].argmax(dim=-1, keepdim=True)
        backend.synchronize()
        t2 = time.perf_counter()
        cache = _cache_of(out)
        for _ in range(steps):
            out = lm.model(nxt, use_cache=True, **{kw: cache})
            cache = _cache_of(out)
            nxt = out.logits[:, -1, :].argmax(dim=-1, keepdim=True)
        backend.synchronize()
        t3 = time.perf_counter()
        return t1 - t0, t2 - t0, t3 - t2

    with torch.inference_mode():
        for _ in range(warmup):
            one()
        backend.reset_peak()
        samples = [one() for _ in range(repeats)]
        peak = backend.peak_memory_bytes()
    prefill = [s[0] for s in samples]
    ttft = [s[1] for s in samples]
    decode = [s[2] for s in samples]
    prefill_s, ttft_s, decode_s = statistics.median(prefill), statistics.median(ttft), statistics.median(decode)
    return Throughput(
        prefill_tokens=batch * input_tokens,
        prefill_time_s=prefill_s,
        prefill_tokens_per_s=batch * input_tokens / prefill_s,
        ttft_s=ttft_s,
        decode_steps=steps,
        decode_tokens=batch * steps,
        decode_time_s=decode_s,
        decode_tokens_per_s=batch * steps / decode_s,
        decode_step_latency_s=decode_s / steps,
        peak_memory_bytes=peak,
        memory_kind=backend.memory_kind,
        samples_prefill_time_s=prefill,
        samples_ttft_s=ttft,
        samples_decode_time_s=decode,
    )


def default_matmul_precisions(backend: Backend) -> list[str]:
    if backend.name == "cuda":
        return ["fp32", "tf32", "bf16", "fp16"]
    if backend.is_accelerator:
        return ["fp32", "bf16", "fp16"]
    return ["fp32", "bf16"]


def _size(backend: Backend, table: dict[str, int]) -> int:
    return table["accelerator" if backend.is_accelerator else "cpu"]


def matmul_tflops(
    backend: Backend, precision: str, n: int | None = None, warmup: int = 2, repeats: int = 5
) -> MatmulResult:
    """Dense square matmul C = A @ B of n x n matrices: 2 n^3 floating-point operations per call."""
    torch = require_torch()
    n = n or _size(backend, MATMUL_N)
    dtype = dtype_for(precision)
    g = torch.Generator(device="cpu").manual_seed(0)
    a = torch.randn(n, n, generator=g).to(device=backend.device, dtype=dtype)
    b = torch.randn(n, n, generator=g).to(device=backend.device, dtype=dtype)
    c = torch.empty(n, n, device=backend.device, dtype=dtype)
    with precision_mode(precision, backend), torch.inference_mode():
        samples = timed(backend, lambda: torch.mm(a, b, out=c), warmup, repeats)
        tf32 = tf32_setting(backend).matmul_tf32 if precision in ("fp32", "tf32") else None
    t = statistics.median(samples)
    flops = 2.0 * n**3  # n^2 outputs, each n multiplies and n adds
    return MatmulResult(
        precision=precision, n=n, flops_per_call=flops, time_s=t, tflops=flops / t / 1e12, samples_time_s=samples,
        tf32=tf32,
    )


def memory_bandwidth(
    backend: Backend, buffer_bytes: int | None = None, warmup: int = 2, repeats: int = 5
) -> BandwidthResult:
    """Device-to-device copy of a buffer: each call reads and writes it (2 * buffer bytes moved)."""
    torch = require_torch()
    nbytes = buffer_bytes or _size(backend, BANDWIDTH_BYTES)
    n = nbytes // 4
    src = torch.ones(n, dtype=torch.float32, device=backend.device)
    dst = torch.empty_like(src)
    with torch.inference_mode():
        samples = timed(backend, lambda: dst.copy_(src), warmup, repeats)
    t = statistics.median(samples)
    moved = 2 * n * 4
    return BandwidthResult(
        buffer_bytes=n * 4, bytes_per_call=moved, time_s=t, bytes_per_s=moved / t, samples_time_s=samples
    )


def run_benchmark(
    spec: BenchSpec,
    backend: Backend | None = None,
    store: ResultStore | None = None,
    reference: ReferenceRun | None = None,
    model: LoadedModel | None = None,
) -> BenchResult:
    """Load the model, measure throughput, microbenchmarks and accuracy; store the result if a store is given.

    The reference for the accuracy check is, in order: `reference`, the store's (or the packaged one) for this
    model, else one made now on the CPU in fp32 and saved to the store (a CPU fp32 run then checks itself and
    passes trivially; its verdict names the reference id, the same as the run's own reference).
    """
    from suanli.bench import accuracy

    if spec.precision not in PRECISIONS:
        raise InputError("precision", Message("err.is_not_one_of", value=echoed(spec.precision), allowed=', '.join(PRECISIONS)))
    backend = backend or get_backend(spec.device)
    ref = reference
    if spec.accuracy and ref is None:
        # with no store, the packaged reference (if the model has one) still applies
        ref = (store or ResultStore()).reference(model_key(spec.model), where="any" if store else "packaged")
    same_as_reference = backend.name == "cpu" and spec.precision == "fp32"
    if spec.accuracy and ref is None and not same_as_reference:
        # the reference is CPU fp32, made before the device run so no precision mode leaks into it
        ref = accuracy.make_reference(load_model(spec.model, "fp32", "cpu"), command=_reference_command(spec))
        if store is not None:
            store.save_reference(ref)
    lm = model or load_model(spec.model, spec.precision, backend.device)
    if spec.accuracy and ref is None:
        ref = accuracy.make_reference(lm, command=_reference_command(spec))
        if store is not None:
            store.save_reference(ref)
    with precision_mode(spec.precision, backend):
        tp = None
        if spec.throughput:
            tp = measure_throughput(
                lm, backend, spec.batch, spec.input_tokens, spec.output_tokens, spec.warmup, spec.repeats
            )
        acc = accuracy.check_against(lm, ref) if spec.accuracy and ref is not None else None
        tf32 = tf32_setting(backend)  # what torch used, not what the harness asked for
    micro = None
    if spec.micro:
        precisions = spec.matmul_precisions or default_matmul_precisions(backend)
        micro = Microbench(
            matmul=[
                matmul_tflops(backend, p, spec.matmul_n, spec.micro_warmup, spec.micro_repeats) for p in precisions
            ],
            bandwidth=memory_bandwidth(backend, spec.bandwidth_bytes, spec.micro_warmup, spec.micro_repeats),
        )
    result = BenchResult(
        command=spec.command,
        accelerator=spec.accelerator,
        backend=backend.info(),
        model=lm.info,
        config=RunConfig(
            device=backend.device if backend.name != "fake" else "fake",
            model=spec.model,
            precision=spec.precision,
            batch=spec.batch,
            input_tokens=spec.input_tokens,
            output_tokens=spec.output_tokens,
            warmup=spec.warmup,
            repeats=spec.repeats,
        ),
        throughput=tp,
        micro=micro,
        accuracy=acc,
        tf32=tf32,
    )
    if store is not None:
        store.save(result)
    return result


def _reference_command(spec: BenchSpec) -> str:
    return f"suanli bench run --device cpu --model {spec.model} --precision fp32"
