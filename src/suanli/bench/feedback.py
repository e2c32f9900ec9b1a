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

from suanli.bench.calibrate import DevicePeaks, device_key, fit_efficiency, peaks_from_accelerator, workload_for
from suanli.bench.home import calibration_path
from suanli.bench.results import BenchResult
from suanli.catalog import lookup
from suanli.catalog.hf_config import from_hf_config
from suanli.catalog.schema import Accelerator, Catalog, EfficiencyFactor, ModelArch
from suanli.errors import InputError, NotFoundError
from suanli.estimate.estimate import Estimate, estimate
from suanli.i18n import Message

__all__ = [
    "ComparisonRow",
    "calibration_path",
    "calibrate_results",
    "compare_result",
    "device_for_result",
    "load_calibration",
    "model_for_result",
    "save_calibration",
]

# a measured share of peak outside this range means a mislabelled run or a machine busy with other work
MIN_PLAUSIBLE = 0.02
MAX_PLAUSIBLE = 1.5
_METRIC_MAP = {"decode_bandwidth": ("decode_bandwidth", "*"), "prefill_mfu": ("matmul", "hf"), "matmul": ("matmul", "*")}




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
        "memory_bandwidth_gb_per_s": {"value": r.micro.bandwidth.bytes_per_s / 1e9, "source": src, "note": note},
    }
    for mm in r.micro.matmul:
        key = {"fp32": "fp32_tflops", "bf16": "bf16_dense_tflops", "fp16": "fp16_dense_tflops"}.get(mm.precision)
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


def compare_result(cat: Catalog, r: BenchResult, overrides: tuple[EfficiencyFactor, ...] = ()) -> tuple[Estimate, list[ComparisonRow]]:
    if r.throughput is None:
        raise InputError("result", Message("err.has_no_throughput_measurement", r_id=r.id))
    acc = device_for_result(cat, r)
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
    rows = [
        ComparisonRow(metric=k, measured=m, estimated=v, error_pct=None if v is None or not m else (v - m) / m * 100)
        for k, m, v in pairs
    ]
    return e, rows


def _tf32_note(dev: str, metric: str, result_ids: list[str]) -> str:
    # the estimator has no tf32 precision: its fp32 is full-fp32 matmuls at the fp32 peak (fp32_tflops), torch's
    # default (torch.set_float32_matmul_precision defaults to "highest"; allow_tf32 False since 1.12: pytorch.org/docs/
    # 2.0/generated/torch.set_float32_matmul_precision.html, pytorch/pytorch#79537, read 2026-12-01). A share of the
    # TF32 peak applied to the fp32 peak gives back a fraction of the measured speed, and the peak ratio (~7x on an
    # H100) would claim TF32 speed for plain fp32, so a tf32 run's compute factors are not stored as fp32.
    why = ("a fp32 decode-bandwidth factor was measured by fp32 runs" if metric == "decode_bandwidth" else
           "it is a share of the TF32 tensor-core peak, and the estimator's fp32 runs at the fp32 peak "
           "(torch's default, TF32 off)")
    return (f"{dev}: the tf32 {metric} of {', '.join(result_ids[:3])} was not stored as fp32: {why}; "
            "run with --precision fp32 (or bf16) to calibrate those")


def calibrate_results(
    cat: Catalog, results: list[BenchResult], rejected: list[str] | None = None
) -> list[EfficiencyFactor]:
    """Fit decode-bandwidth and prefill/matmul efficiency per device from stored results (median over runs).
    Implausible fits are left out and described in `rejected`."""
    if rejected is None:
        rejected = []
    by_dev: dict[str, list[BenchResult]] = {}
    accs: dict[str, Accelerator] = {}
    for r in results:
        if r.throughput is None and r.micro is None:
            continue
        acc = device_for_result(cat, r)
        by_dev.setdefault(acc.id, []).append(r)
        accs[acc.id] = acc
    out: list[EfficiencyFactor] = []
    today = dt.date.today().isoformat()
    for dev, rs in sorted(by_dev.items()):
        # the fitter matches results by their own device key (--accelerator, else the device name)
        keys = {device_key(r) for r in rs}
        factors_all = []
        for key in sorted(keys):
            peaks: DevicePeaks = peaks_from_accelerator(accs[dev]).model_copy(update={"device": key})
            factors_all.extend(fit_efficiency(rs, peaks, lambda x: _arch_or_none(cat, x)).factors)
        cal_factors = factors_all
        fp32_metrics = {f.metric for f in cal_factors if f.precision == "fp32"}
        for f in cal_factors:
            if f.metric not in _METRIC_MAP:
                continue
            if f.precision == "tf32" and (f.metric != "decode_bandwidth" or f.metric in fp32_metrics):
                rejected.append(_tf32_note(dev, f.metric, f.result_ids))
                continue
            if accs[dev].family == "host" and f.metric == "matmul":
                continue  # the stand-in's peak is this very microbenchmark: the ratio is 1 by construction
            if not MIN_PLAUSIBLE <= f.value <= MAX_PLAUSIBLE:
                rejected.append(
                    f"{dev}: measured {f.metric} ({f.precision}) {f.value:.3g} of peak is outside "
                    f"[{MIN_PLAUSIBLE}, {MAX_PLAUSIBLE}] and was not used; check results {', '.join(f.result_ids[:3])} "
                    "(a wrong --accelerator, or a machine busy with other work)"
                )
                continue
            metric, engine = _METRIC_MAP[f.metric]
            precision = {"tf32": "fp32"}.get(f.precision, f.precision)
            out.append(EfficiencyFactor(
                id=f"cal-{dev}-{f.metric}-{precision}", metric=metric, device=dev, precision=precision,  # type: ignore[arg-type]
                engine=engine, value=min(max(f.value, 1e-6), 1.0), source=f"measured:{','.join(f.result_ids[:5])}",
                note=f"measured {f.measured_at:%Y-%m-%d} on {dev}: median of {f.n} run(s) "
                     f"(range {f.min:.3g}–{f.max:.3g}); {f.commands[0] if f.commands else ''}; fitted {today}"
                     + ("; tf32 runs: decode reads the same fp32 bytes, TF32 or not" if f.precision == "tf32" else ""),
            ))
        if any(f.device == dev and f.metric == "decode_bandwidth" for f in out):
            # the measured efficiencies already contain the engine's per-step overhead: do not add it twice
            out.append(EfficiencyFactor(
                id=f"cal-{dev}-step-overhead", metric="decode_step_overhead_s", device=dev, engine="hf", value=0.0,
                source=out[-1].source, note="folded into the measured decode and prefill efficiencies",
            ))
    return out
