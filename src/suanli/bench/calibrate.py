"""Fit efficiency factors (achieved / peak) per device from stored benchmark results. Pure: no I/O, no torch.

Metrics (names match `suanli.catalog.schema.EfficiencyFactor.metric` where one exists):
- `decode_bandwidth`  bytes read per second while decoding / peak memory bandwidth
- `matmul`            large square GEMM FLOP/s (microbenchmark) / dense peak of that precision
- `prefill_mfu`       model FLOP/s during prefill / dense peak of the run's precision (inference MFU)

Bytes and FLOPs are the estimator's own (`estimate.speed.inference_speed_terms` of the run's model and workload),
so a fitted factor, applied by `estimate`, gives the measured speed back.
- `copy_bandwidth`    device-to-device copy bytes/s (microbenchmark) / peak memory bandwidth

Each factor is the median over the results that measured it, with min, max, count and provenance (the
result ids, when, on what device, by which command). Peaks are parameters (`DevicePeaks`); build them from
the catalog with `peaks_from_accelerator`.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from suanli.bench.results import BenchResult
from suanli.catalog.schema import Accelerator, ModelArch
from suanli.errors import EstimateError
from suanli.i18n import Message, render
from suanli.estimate.precision import peak_flops_per_s
from suanli.estimate.speed import InferenceSpeedTerms, inference_speed_terms, weight_bytes_read
from suanli.estimate.workload import Workload, make_workload

__all__ = [
    "ArchOf",
    "Calibration",
    "DevicePeaks",
    "FactorFit",
    "decode_bytes_per_s",
    "decode_bytes_per_step",
    "device_key",
    "fit_all",
    "fit_efficiency",
    "hf32_skip",
    "peaks_from_accelerator",
    "prefill_flops_per_s",
    "prefill_flops_per_token",
    "speed_terms",
    "workload_for",
]

Metric = Literal["decode_bandwidth", "matmul", "prefill_mfu", "copy_bandwidth"]
ArchOf = Callable[[BenchResult], ModelArch | None]


class DevicePeaks(BaseModel):
    """Vendor peaks of one device in base units: bytes/s and FLOP/s (dense, never 2:4-sparse)."""

    device: str = Field(description="catalog accelerator id, or the backend's device name")
    memory_bandwidth_bytes_per_s: float | None = None
    dense_flops_per_s: dict[str, float] = Field(default_factory=dict, description="precision -> dense FLOP/s")
    source: str = Field(description="where the peaks come from, e.g. the catalog source ids")


class FactorFit(BaseModel):
    metric: Metric
    device: str
    precision: str = Field(description="precision of the runs; '*' where it does not apply (copy bandwidth)")
    value: float = Field(description="median of samples")
    min: float
    max: float
    n: int
    samples: list[float]
    result_ids: list[str]
    commands: list[str]
    measured_at: dt.datetime = Field(description="newest result used")
    provenance: str


class Calibration(BaseModel):
    device: str
    peaks: DevicePeaks
    factors: list[FactorFit]
    skipped: list[str] = Field(default_factory=list, description="why some measurements were not used (English)")
    skipped_i18n: list[dict[str, Any]] = Field(default_factory=list, description="the same lines as catalog messages "
                                               "({id, params}; `bench.cal.skip.*`), one per line of `skipped`")

    def get(self, metric: Metric, precision: str = "*") -> FactorFit | None:
        for f in self.factors:
            if f.metric == metric and f.precision == precision:
                return f
        return None


def device_key(r: BenchResult) -> str:
    """Which device a result belongs to: the catalog id given with --accelerator, else the device's name."""
    return r.accelerator or r.backend.device_name


def workload_for(r: BenchResult) -> Workload:
    """The estimator's workload of a harness run: inference through transformers (`engine="hf"`), tf32 as fp32
    (its weights and bytes are fp32's; the estimator has no tf32 precision, so `feedback.compare_basis` puts the
    TF32 dense peak in the fp32 slot to compare a tf32 run, and `feedback.calibrate_results` stores none of it)."""
    precision = {"tf32": "fp32"}.get(r.config.precision, r.config.precision)
    return make_workload(task="inference", precision=precision, batch=r.config.batch,
                         input=r.config.input_tokens, output=r.config.output_tokens, engine="hf")


def speed_terms(r: BenchResult, m: ModelArch) -> InferenceSpeedTerms:
    """The estimator's own inference terms for the run (`estimate.speed.inference_speed_terms`), so a factor fitted
    here is the one `estimate` divides by: calibrate -> estimate gives the measurement back."""
    return inference_speed_terms(m, workload_for(r))


def decode_bytes_per_step(r: BenchResult, m: ModelArch) -> float:
    """Bytes read from memory per decode step, as `estimate.speed.inference_step` counts them at one card.

    Decode is memory-bound: each step reads the weights and the KV cache (Pope et al. 2022, "Efficiently Scaling
    Transformer Inference", sec. 2; kipply 2022, "Transformer Inference Arithmetic"): the weights a step reads
    (`weight_bytes_read`: no input-embedding table, MoE experts touched), plus every sequence's cache at the mean
    context (`decode_context`) times the passes the engine makes over it (`kv_read_factor`: 1 + 2g for transformers'
    repeat_kv, g = heads / KV heads, plus 2 for its dynamic cache's torch.cat growth).
    """
    t = speed_terms(r, m)
    b = r.config.batch
    return float(weight_bytes_read(t, b)) + t.kv_bytes_per_token * t.decode_context * b * t.kv_read_factor


def decode_bytes_per_s(r: BenchResult, m: ModelArch) -> float:
    if r.throughput is None:
        raise ValueError("result has no throughput")
    steps_per_s = r.throughput.decode_tokens_per_s / r.config.batch
    return decode_bytes_per_step(r, m) * steps_per_s


def prefill_flops_per_token(r: BenchResult, m: ModelArch) -> float:
    """Forward FLOPs per prompt token, as `estimate.speed.inference_step` counts them: 2 N + attention.

    N = `matmul_params` (the input embedding is a look-up); attention from `prefill_attention_flops_per_token`:
    causal, each query sees i/2 keys on average, a sliding-window layer at most its window
    (`arch.prefill_keys_per_query`).
    """
    t = speed_terms(r, m)
    return 2.0 * t.matmul_params + t.prefill_attention_flops_per_token


def prefill_flops_per_s(r: BenchResult, m: ModelArch) -> float:
    if r.throughput is None:
        raise ValueError("result has no throughput")
    return prefill_flops_per_token(r, m) * r.throughput.prefill_tokens_per_s


# the estimator's precisions (`estimate.precision.weight_bytes_per_param`) and the harness's tf32
_PEAK_PRECISIONS = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "nf4")


def peaks_from_accelerator(acc: Accelerator, source: str | None = None) -> DevicePeaks:
    """DevicePeaks from a catalog `Accelerator` (GB/s * 1e9 -> bytes/s; TFLOPS * 1e12 -> FLOP/s; dense only).

    The FLOP/s peak of each precision is the estimator's (`estimate.precision.peak_flops_per_s`: the precision's
    compute dtype, bf16 <-> fp16 and fp8 -> 16-bit where the device publishes one of them only), so a factor fitted
    here is the one `estimate` multiplies by; a precision without a peak (EstimateError) is left out. tf32, which
    the estimator runs as fp32 (`workload_for`), is the spec's TF32 tensor-core peak: the harness's tf32 matmuls."""
    s = acc.specs
    flops: dict[str, float] = {}
    srcs: set[str] = set()
    for precision in _PEAK_PRECISIONS:
        if precision == "tf32":
            alt = s.tf32_dense_tflops
            if alt is None:
                continue
            value, field = float(alt.value) * 1e12, "tf32_dense_tflops"
        else:
            try:
                value, field = peak_flops_per_s(acc, precision)
            except EstimateError:
                continue
        flops[precision] = float(value)
        srcs.add(getattr(s, field).chosen.source)
    bw = None
    if s.memory_bandwidth_gb_per_s is not None:
        bw = float(s.memory_bandwidth_gb_per_s.value) * 1e9
        srcs.add(s.memory_bandwidth_gb_per_s.chosen.source)
    return DevicePeaks(
        device=acc.id,
        memory_bandwidth_bytes_per_s=bw,
        dense_flops_per_s=flops,
        source=source or ", ".join(sorted(srcs)) or "catalog",
    )


def hf32_skip(r: BenchResult) -> Message | None:
    """Why an Ascend run's fp32 matmul measurements (its fp32 GEMMs, and its prefill when the run is fp32) calibrate
    nothing, or None. With torch_npu's `npu.matmul.allow_hf32` on, fp32 matmuls run in HF32 on the cube, and the
    catalog has no HF32 peak for any Ascend device (nor an fp32 one for the 910B): there is no roof to divide by,
    and the fp32 slot would take a factor against the wrong one. Not recorded (results before 2026-12-01) is the
    same: it may have been on. Off (torch_npu's default, hiascend.com/document/detail/zh/Pytorch/60RC3/apiref/
    apilist/ptaoplist_000848.html, read 2026-12-01) is an fp32 run like any other. Decode bandwidth and the other
    precisions are unaffected."""
    if not r.ascend() or r.hf32_matmul() is False:
        return None
    fp32_prefill = r.throughput is not None and r.roof_precision() == "fp32"
    fp32_gemm = r.micro is not None and any(m.roof_precision() == "fp32" for m in r.micro.matmul)
    if not (fp32_prefill or fp32_gemm):
        return None
    return Message("bench.cal.skip.hf32_on" if r.hf32_matmul() else "bench.cal.skip.hf32_unknown", id=r.id)


def _fit(metric: Metric, device: str, precision: str, pts: list[tuple[float, BenchResult]]) -> FactorFit:
    samples = [v for v, _ in pts]
    rs = [r for _, r in pts]
    newest = max(rs, key=lambda r: r.created_at)
    commands = sorted({r.command for r in rs if r.command})
    names = sorted({r.backend.device_name for r in rs})
    prov = f"measured: {len(rs)} run(s) on {', '.join(names)}, newest {newest.created_at:%Y-%m-%d}" + (
        f", by `{commands[0]}`" if commands else ""
    )
    return FactorFit(
        metric=metric,
        device=device,
        precision=precision,
        value=statistics.median(samples),
        min=min(samples),
        max=max(samples),
        n=len(samples),
        samples=samples,
        result_ids=[r.id for r in rs],
        commands=commands,
        measured_at=newest.created_at,
        provenance=prov,
    )


def fit_efficiency(results: Iterable[BenchResult], peaks: DevicePeaks, arch_of: ArchOf) -> Calibration:
    """Efficiency factors of the device `peaks.device` from the results measured on it. `arch_of` gives a result's
    model architecture (None: it cannot be rebuilt, and the run's speeds are not used; its microbenchmarks are)."""
    pts: dict[tuple[Metric, str], list[tuple[float, BenchResult]]] = {}
    skipped: list[Message] = []  # why a measurement is not used, as catalog messages (en + zh)
    bw = peaks.memory_bandwidth_bytes_per_s

    def add(metric: Metric, precision: str, value: float, r: BenchResult) -> None:
        pts.setdefault((metric, precision), []).append((value, r))

    for r in results:
        if device_key(r) != peaks.device:
            continue
        p = r.roof_precision()  # the precision named, or tf32/fp32 by the TF32 setting the run recorded
        if r.accuracy is not None and not r.accuracy.passed:
            skipped.append(Message("bench.cal.skip.accuracy", id=r.id))
            continue
        hf32 = hf32_skip(r)  # an Ascend run with HF32 on or not recorded: no fp32 roof for its fp32 matmuls
        if hf32 is not None:
            skipped.append(hf32)
        model = arch_of(r) if r.throughput is not None else None
        if r.throughput is not None and model is None:
            skipped.append(Message("bench.cal.skip.arch", id=r.id, model=r.model.name))
        elif r.throughput is not None and model is not None:
            if bw:
                add("decode_bandwidth", p, decode_bytes_per_s(r, model) / bw, r)
            else:
                skipped.append(Message("bench.cal.skip.bandwidth", id=r.id, device=peaks.device))
            peak = peaks.dense_flops_per_s.get(p)
            if hf32 is not None and p == "fp32":
                pass  # an HF32 (or unrecorded) Ascend run's fp32 prefill: said once above
            elif peak:
                add("prefill_mfu", p, prefill_flops_per_s(r, model) / peak, r)
            else:
                skipped.append(Message("bench.cal.skip.peak", id=r.id, precision=p, device=peaks.device))
        if r.micro is not None:
            for m in r.micro.matmul:
                mp = m.roof_precision()  # an fp32 GEMM with TF32 recorded on ran at the TF32 peak
                peak = peaks.dense_flops_per_s.get(mp)
                if hf32 is not None and mp == "fp32":
                    continue  # said once above
                if peak:
                    add("matmul", mp, m.tflops * 1e12 / peak, r)
                else:
                    skipped.append(Message("bench.cal.skip.matmul_peak", id=r.id, precision=mp,
                                               device=peaks.device))
            if r.micro.bandwidth is not None and bw:
                add("copy_bandwidth", "*", r.micro.bandwidth.bytes_per_s / bw, r)
    factors = [_fit(metric, peaks.device, prec, v) for (metric, prec), v in sorted(pts.items())]
    return Calibration(device=peaks.device, peaks=peaks, factors=factors, skipped=[render(x, "en") for x in skipped],
                       skipped_i18n=[x.to_json() for x in skipped])


def fit_all(results: Sequence[BenchResult], peaks: Mapping[str, DevicePeaks], arch_of: ArchOf) -> list[Calibration]:
    """One Calibration per device that has both results and peaks; devices without peaks are left out."""
    keys = sorted({device_key(r) for r in results} & set(peaks))
    return [fit_efficiency(results, peaks[k], arch_of) for k in keys]
