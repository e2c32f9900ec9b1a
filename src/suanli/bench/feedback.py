"""Measured against estimated, and measured efficiency fed back into the estimators (issue 6, items 4–5).

No torch here: it reads stored `BenchResult`s. A result run with `--accelerator ID` is compared with that
catalog device; a host CPU run is compared with a stand-in device whose peaks are the run's own
microbenchmarks (matmul TFLOPS, copy bandwidth), so its efficiencies are relative to what the host reaches.
Calibrated factors live in `$SUANLI_HOME/calibration.yaml` and override catalog factors in every estimate.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict

from suanli.bench.calibrate import (
    DevicePeaks,
    device_key,
    fit_efficiency,
    hf32_skip,
    peaks_from_accelerator,
    workload_for,
)
from suanli.bench.home import calibration_path
from suanli.bench.results import BenchResult
from suanli.catalog import lookup
from suanli.catalog.hf_config import from_hf_config
from suanli.catalog.peaks import PEAK_FIELDS
from suanli.catalog.schema import Accelerator, Catalog, EfficiencyFactor, ModelArch
from suanli.errors import InputError, NotFoundError
from suanli.estimate.estimate import Estimate, estimate
from suanli.i18n import Message
from suanli.units import GB

__all__ = [
    "ComparisonRow",
    "calibration_path",
    "calibrate_results",
    "compare_basis",
    "compare_result",
    "device_for_result",
    "MICRO_SPREAD_LIMIT",
    "load_calibration",
    "micro_spread_warnings",
    "model_for_result",
    "save_calibration",
]

# a measured share of peak outside this range means a mislabelled run or a machine busy with other work
MIN_PLAUSIBLE = 0.02
MAX_PLAUSIBLE = 1.5
_METRIC_MAP = {"decode_bandwidth": ("decode_bandwidth", "*"), "prefill_mfu": ("matmul", "hf"), "matmul": ("matmul", "*")}
# assumed: the same microbenchmark on the same idle host repeats within a few per cent (each is a median of samples)
# and clock states differ by well under 2x, so runs more than 2x apart mean other work shared the host: worth a warning
MICRO_SPREAD_LIMIT = 2.0
# peak memory measured as the process's peak RSS (CPU runs) holds the runtime (~380 MB of PyTorch), not the tensors
# the estimate counts: shown beside the estimate without an error figure
NOT_COMPARABLE_MEMORY = frozenset({"process-peak-rss"})




def load_calibration(path: Path | None = None) -> tuple[EfficiencyFactor, ...]:
    p = path or calibration_path()
    if not p.is_file():
        return ()
    try:
        doc = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
        if not isinstance(doc, dict) or not isinstance(doc.get("factors", []), list):
            raise ValueError("expected a mapping with a 'factors' list")
        return tuple(EfficiencyFactor.model_validate(f) for f in doc.get("factors", []))
    except (yaml.YAMLError, ValueError, TypeError) as e:  # pydantic's ValidationError is a ValueError
        first = str(e).strip().splitlines()[0]
        raise InputError("calibration", Message("err.is_not_a_valid_calibration_file", p=p, first=first)) from None


def save_calibration(factors: list[EfficiencyFactor], path: Path | None = None) -> Path:
    """Replace the stored factors of the devices in `factors`, keep the others; written atomically."""
    p = path or calibration_path()
    keep = [f for f in load_calibration(p) if f.device not in {g.device for g in factors}]
    doc = {"factors": [f.model_dump(mode="json", exclude_none=True) for f in (*keep, *factors)]}
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".tmp")
    tmp.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    tmp.replace(p)
    return p


def _host_id(r: BenchResult) -> str:
    name = re.sub(r"[^a-z0-9.+_-]+", "-", r.backend.device_name.lower()).strip("-")
    return f"host-{r.backend.backend}-{name}"[:64]


def device_for_result(cat: Catalog, r: BenchResult) -> Accelerator:
    """The catalog device a result was run with (`--accelerator`), or a stand-in built from its microbenchmarks."""
    if r.accelerator:
        return lookup.accelerator(cat, r.accelerator)
    if r.micro is None or r.micro.bandwidth is None or not r.micro.matmul:
        raise InputError("result", Message("err.has_no_accelerator_and_no_microbenchmarks", r_id=r.id))
    src = f"bench:{r.id}"
    note = "the host's own microbenchmark, used as its peak"
    specs: dict[str, Any] = {
        "memory_bandwidth_gb_per_s": {"value": r.micro.bandwidth.bytes_per_s / GB, "source": src, "note": note},
    }
    for mm in r.micro.matmul:
        # the field the estimator reads a dtype's peak from first (catalog.peaks.PEAK_FIELDS, the one table); tf32
        # is no estimator dtype (see below): the host's TF32 rate fills the TF32 peak a tf32 run is compared with.
        # The GEMM's recorded TF32 setting decides which (an "fp32" GEMM with TF32 on measured the TF32 rate)
        p = mm.roof_precision()
        key = "tf32_dense_tflops" if p == "tf32" else (PEAK_FIELDS[p][0] if p in ("fp32", "bf16", "fp16") else None)
        if key:
            specs[key] = {"value": mm.tflops, "source": src, "note": note}
    if r.backend.total_memory_bytes:
        specs["memory_gib"] = {"value": r.backend.total_memory_bytes / 2**30, "source": src}
    return Accelerator.model_validate({
        "id": _host_id(r), "name": r.backend.device_name, "vendor": "intel", "family": "host",
        "domestic": False, "segment": "workstation", "form_factor": "card", "stack": "host",
        "interconnect": "none", "specs": specs,
    })


def model_for_result(cat: Catalog, r: BenchResult) -> ModelArch:
    """The benchmarked model as a ModelArch: a bench preset's config, a local directory's config.json, or a preset."""
    from importlib import resources

    preset = resources.files("suanli") / "data" / "bench" / f"{r.model.name}.json"
    if r.model.kind == "preset" and preset.is_file():
        doc = json.loads(preset.read_text(encoding="utf-8"))
        cfg = {"model_type": "llama", **doc["config"]}
        return from_hf_config(cfg, name=r.model.name)
    cfg_path = Path(r.model.key) / "config.json"
    if cfg_path.is_file():
        return from_hf_config(json.loads(cfg_path.read_text(encoding="utf-8")), name=r.model.name)
    try:
        return lookup.model(cat, r.model.name)
    except NotFoundError:
        raise InputError("model", Message("err.cannot_rebuild_s_architecture_to_estimate", name=r.model.name)) from None


def _workload_for(r: BenchResult) -> Any:
    return workload_for(r)  # the very workload calibration fits against


def _arch_or_none(cat: Catalog, r: BenchResult) -> ModelArch | None:
    try:
        return model_for_result(cat, r)
    except InputError:
        return None


class ComparisonRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    metric: str
    measured: float
    estimated: float | None
    error_pct: float | None
    comparable: bool = True  # False: measured and estimated count different things (process RSS); no error


# The estimator has no tf32 precision (`estimate.precision.weight_bytes_per_param`, `catalog.peaks.PEAK_FIELDS`): its fp32 is
# full-fp32 matmuls at the fp32 peak (`fp32_tflops`, CUDA cores), torch's default (set_float32_matmul_precision
# defaults to "highest", allow_tf32 off since 1.12: pytorch.org/docs/2.0/generated/torch.set_float32_matmul_precision
# .html, pytorch/pytorch#79537, read 2026-12-01). A tf32 run (the harness's `--precision tf32`: fp32 weights,
# float32_matmul_precision "high") is therefore compared with the TF32 roof, the dense TF32 tensor-core peak
# (`tf32_dense_tflops`, never the 2:4-sparse one) standing in for the fp32 peak, and is not calibrated.
# Which roof follows what torch actually used (`BenchResult.tf32`, read during the run; `roof_precision`): an fp32
# run with TF32 on (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1) takes the TF32 roof, a tf32 run with TF32 off
# (NVIDIA_TF32_OVERRIDE=0) the fp32 peak; a result that did not record it (before 2026-12-01) goes by its precision.


def compare_basis(
    cat: Catalog, r: BenchResult, overrides: tuple[EfficiencyFactor, ...] = ()
) -> tuple[Accelerator, tuple[EfficiencyFactor, ...], Message | None]:
    """The device and efficiency factors a result is estimated with, and the line that says how, where it differs
    from the catalog device (a tf32 run: the TF32 dense roof, without fp32 runs' compute factors)."""
    acc = device_for_result(cat, r)
    s = acc.specs
    fp32 = f"{s.fp32_tflops.value:g}" if s.fp32_tflops is not None else "-"
    named_tf32 = r.config.precision == "tf32"
    why = r.tf32.cause() if r.tf32 is not None else ""
    if r.roof_precision() != "tf32":
        if named_tf32:  # recorded TF32 off: its matmuls ran in full fp32, at the fp32 peak
            return acc, overrides, Message("cli.fb.tf32_off", device=acc.id, why=why, fp32=fp32)
        if r.config.precision == "fp32" and r.tf32 is not None and r.tf32.npu_matmul_allow_hf32:
            # Ascend's HF32 (torch_npu.npu.matmul.allow_hf32 on): the catalog publishes no HF32 peak for any Ascend
            # device, so the roof stays fp32 and the line says the run may have beaten it
            return acc, overrides, Message("cli.fb.hf32_on_fp32_roof", device=acc.id, fp32=fp32)
        return acc, overrides, None  # fp32 (TF32 off), bf16, fp16: the estimator's own precision and peak
    if s.tf32_dense_tflops is None:
        if named_tf32:
            return acc, overrides, Message("cli.fb.tf32_no_roof", device=acc.id, fp32=fp32)
        return acc, overrides, Message("cli.fb.tf32_on_no_roof", device=acc.id, why=why, fp32=fp32)
    roof = acc.model_copy(update={"specs": s.model_copy(update={"fp32_tflops": s.tf32_dense_tflops})})
    # a share of the fp32 CUDA-core peak says nothing of the TF32 tensor cores: calibrated fp32 compute factors go
    kept = tuple(f for f in overrides if not (f.metric == "matmul" and f.precision == "fp32"))
    tf32 = f"{s.tf32_dense_tflops.value:g}"
    if named_tf32:
        return roof, kept, Message("cli.fb.tf32_roof", device=acc.id, tf32=tf32, fp32=fp32)
    return roof, kept, Message("cli.fb.tf32_on_roof", device=acc.id, why=why, tf32=tf32, fp32=fp32)


def compare_result(cat: Catalog, r: BenchResult, overrides: tuple[EfficiencyFactor, ...] = ()) -> tuple[Estimate, list[ComparisonRow]]:
    if r.throughput is None:
        raise InputError("result", Message("err.has_no_throughput_measurement", r_id=r.id))
    acc, overrides, _ = compare_basis(cat, r, overrides)
    e = estimate(cat, model_for_result(cat, r), acc, _workload_for(r), overrides=overrides)
    t = r.throughput
    s = e.inference
    pairs = [
        ("prefill_tokens_per_s", t.prefill_tokens_per_s, s.prefill_tokens_per_s if s else None),
        ("decode_tokens_per_s", t.decode_tokens_per_s, s.decode_tokens_per_s if s else None),
        ("ttft_s", t.ttft_s, s.ttft_s if s else None),
        ("tpot_s", t.decode_step_latency_s, s.tpot_s if s else None),
        (f"peak_memory_bytes ({t.memory_kind})", float(t.peak_memory_bytes), e.memory.per_gpu_bytes),
    ]
    rss = t.memory_kind in NOT_COMPARABLE_MEMORY
    rows = [
        ComparisonRow(metric=k, measured=m, estimated=v,
                      error_pct=None if v is None or not m or (rss and i == 4) else (v - m) / m * 100,
                      comparable=not (rss and i == 4))
        for i, (k, m, v) in enumerate(pairs)
    ]
    return e, rows


def _spread_device(r: BenchResult) -> str:
    return r.accelerator or _host_id(r)  # the id device_for_result gives the result


def micro_spread_warnings(results: list[BenchResult], device: str | None = None) -> list[Message]:
    """One warning per microbenchmark whose runs on the same host and device (same kind, precision and size)
    differ by more than MICRO_SPREAD_LIMIT: calibration fits their median without knowing which was disturbed."""
    groups: dict[tuple[str, str, str, str, int], list[tuple[float, str]]] = {}
    for r in results:
        if r.micro is None:
            continue
        dev = _spread_device(r)
        if device is not None and dev != device:
            continue
        for mm in r.micro.matmul:
            groups.setdefault((r.backend.host, dev, "matmul", mm.roof_precision(), mm.n), []).append((mm.tflops, r.id))
        if r.micro.bandwidth is not None:
            b = r.micro.bandwidth
            groups.setdefault((r.backend.host, dev, "copy", "", b.buffer_bytes), []).append((b.bytes_per_s / GB, r.id))
    out: list[Message] = []
    for (host, dev, kind, precision, size), vals in sorted(groups.items()):
        if len({rid for _, rid in vals}) < 2:
            continue
        lo, hi = min(vals), max(vals)
        if lo[0] <= 0 or hi[0] / lo[0] <= MICRO_SPREAD_LIMIT:
            continue
        bench = (Message("cli.bench.micro_matmul", precision=precision, n=size) if kind == "matmul"
                 else Message("cli.bench.micro_copy", mib=size / 2**20))
        out.append(Message("cli.cal.spread", device=dev, host=host or "?", bench=bench, ratio=hi[0] / lo[0],
                           lo=lo[0], lo_run=lo[1], hi=hi[0], hi_run=hi[1], unit="TFLOPS" if kind == "matmul" else "GB/s",
                           runs=len(vals), limit=MICRO_SPREAD_LIMIT))
    return out


def _ids(ids: list[str]) -> str:
    return f"{', '.join(ids[:3])}{' …' if len(ids) > 3 else ''}"


def _tf32_note(dev: str, runs: list[str], micro: list[str]) -> Message:
    """One line for a device's tf32 measurements, none of which calibrates (see compare_basis)."""
    what = [*([Message("cli.cal.tf32_runs", ids=_ids(runs))] if runs else []),
            *([Message("cli.cal.tf32_micro", ids=_ids(micro))] if micro else [])]
    return Message("cli.cal.tf32_note", device=dev, what=what)


def _reject(rejected: list[str], rejected_i18n: list[Message] | None, msg: Message) -> None:
    """`rejected` keeps the English line (calibrate --json, the record); `rejected_i18n` the message to show."""
    from suanli.i18n import render

    rejected.append(render(msg, "en", "cli"))
    if rejected_i18n is not None:
        rejected_i18n.append(msg)


def calibrate_results(
    cat: Catalog, results: list[BenchResult], rejected: list[str] | None = None,
    rejected_i18n: list[Message] | None = None,
) -> list[EfficiencyFactor]:
    """Fit decode-bandwidth and prefill/matmul efficiency per device from stored results (median over runs).
    Implausible fits are left out and described in `rejected` (English) and `rejected_i18n` (messages)."""
    if rejected is None:
        rejected = []
    by_dev: dict[str, list[BenchResult]] = {}
    accs: dict[str, Accelerator] = {}
    tf32_runs: dict[str, list[str]] = {}
    tf32_micro: dict[str, list[str]] = {}
    for r in results:
        if r.throughput is None and r.micro is None:
            continue
        acc = device_for_result(cat, r)
        if "tf32" in (r.config.precision, r.roof_precision()):  # the whole run: speeds and microbenchmarks
            tf32_runs.setdefault(acc.id, []).append(r.id)  # (compare_basis); an fp32 run that ran TF32 too
            continue
        if r.micro is not None and any(m.roof_precision() == "tf32" for m in r.micro.matmul):
            tf32_micro.setdefault(acc.id, []).append(r.id)  # an fp32/bf16 run's extra tf32 GEMM (cuda default)
        hf32 = hf32_skip(r)  # an Ascend run with HF32 on or not recorded: fit_efficiency leaves its fp32 matmuls out
        if hf32 is not None and (r.accuracy is None or r.accuracy.passed):
            _reject(rejected, rejected_i18n, hf32)
        by_dev.setdefault(acc.id, []).append(r)
        accs[acc.id] = acc
    for dev in sorted({*tf32_runs, *tf32_micro}):
        _reject(rejected, rejected_i18n, _tf32_note(dev, tf32_runs.get(dev, []), tf32_micro.get(dev, [])))
    out: list[EfficiencyFactor] = []
    today = dt.date.today().isoformat()
    for dev, rs in sorted(by_dev.items()):
        # the fitter matches results by their own device key (--accelerator, else the device name)
        keys = {device_key(r) for r in rs}
        factors_all = []
        for key in sorted(keys):
            peaks: DevicePeaks = peaks_from_accelerator(accs[dev]).model_copy(update={"device": key})
            factors_all.extend(fit_efficiency(rs, peaks, lambda x: _arch_or_none(cat, x)).factors)
        for f in factors_all:
            if f.metric not in _METRIC_MAP or f.precision == "tf32":
                continue  # tf32: named once above
            if accs[dev].family == "host" and f.metric == "matmul":
                continue  # the stand-in's peak is this very microbenchmark: the ratio is 1 by construction
            if not MIN_PLAUSIBLE <= f.value <= MAX_PLAUSIBLE:
                _reject(rejected, rejected_i18n, Message(
                    "cli.cal.implausible", device=dev, metric=f.metric, precision=f.precision, value=f.value,
                    lo=str(MIN_PLAUSIBLE), hi=str(MAX_PLAUSIBLE), ids=", ".join(f.result_ids[:3])))
                continue
            metric, engine = _METRIC_MAP[f.metric]
            out.append(EfficiencyFactor(
                id=f"cal-{dev}-{f.metric}-{f.precision}", metric=metric, device=dev, precision=f.precision,  # type: ignore[arg-type]
                engine=engine, value=min(max(f.value, 1e-6), 1.0), source=f"measured:{','.join(f.result_ids[:5])}",
                note=f"measured {f.measured_at:%Y-%m-%d} on {dev}: median of {f.n} run(s) "
                     f"(range {f.min:.3g}–{f.max:.3g}); {f.commands[0] if f.commands else ''}; fitted {today}",
            ))
        if any(f.device == dev and f.metric == "decode_bandwidth" for f in out):
            # the measured efficiencies already contain the engine's per-step overhead: do not add it twice
            out.append(EfficiencyFactor(
                id=f"cal-{dev}-step-overhead", metric="decode_step_overhead_s", device=dev, engine="hf", value=0.0,
                source=out[-1].source, note="folded into the measured decode and prefill efficiencies",
            ))
    return out
