"""One estimate as both interfaces make it: the packaged error bands and the user's calibration file
(`suanli calibrate` writes it) applied for the device, so `suanli estimate --json` and POST /api/estimate
return the same numbers. `EstimateJson` types `Estimate.contract()` (the API's response model)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suanli.catalog.schema import Accelerator, Catalog, EfficiencyFactor, ModelArch
from suanli.estimate.estimate import ErrorBand, Estimate, estimate
from suanli.estimate.workload import Workload
from suanli.i18n import Message, render

if TYPE_CHECKING:
    from suanli.views.estimate_shapes import EstimateJson, MemoryVerdictJson

__all__ = ["EstimateJson", "MemoryVerdictJson", "calibrated", "checkpoint", "estimate_json", "memory_check", "memory_messages", "calibration_factors", "calibration_for", "calibration_note", "calibration_rows",
           "calibration_sha256",
           "default_engine", "engine_default_note", "estimate_with_calibration", "with_migration_calibration",
           "with_notes"]


# the API's shapes of an estimate's JSON live in `suanli.views.estimate_shapes`, loaded when first asked for (PEP 562)
_SHAPES = ("DiffusionSpeedJson", "EmptyJson", "EstimateDevice", "EstimateJson", "EstimateMemory", "EstimateModel",
           "EstimateTime", "FirstServeHoursJson", "InferenceScalingJson", "InferenceSpeedJson", "MemoryVerdictJson",
           "SetupHoursJson", "TrainingScalingJson", "TrainingSpeedJson")


def __getattr__(name: str) -> Any:
    if name in _SHAPES:
        from suanli.views import estimate_shapes

        return getattr(estimate_shapes, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _calibration_file(path: Path | None = None) -> Path:
    from suanli.bench.home import calibration_path

    return path or calibration_path()


def calibration_factors(path: Path | None = None) -> tuple[EfficiencyFactor, ...]:
    """Every calibrated efficiency factor stored for a device (none when there is no calibration file).
    The rest of suanli.bench is imported only when the file exists: `suanli estimate` starts fast."""
    p = _calibration_file(path)
    key = calibration_sha256(p)
    if key is None:
        return ()
    if key not in _LOADED:  # the API reads it per request: parsed once per content of the file
        from suanli.bench.feedback import load_calibration

        _LOADED.clear()
        _LOADED[key] = tuple(f for f in load_calibration(p) if f.device is not None)
    return _LOADED[key]


_LOADED: dict[str, tuple[EfficiencyFactor, ...]] = {}


def calibration_for(device_id: str, path: Path | None = None) -> tuple[EfficiencyFactor, ...]:
    """The calibrated efficiency factors stored for this device (none when there is no calibration file)."""
    return tuple(f for f in calibration_factors(path) if f.device == device_id)


def calibration_sha256(path: Path | None = None) -> str | None:
    """SHA-256 of the calibration file's bytes (None without one): part of the key of a cached plan answer."""
    import hashlib

    p = _calibration_file(path)
    try:
        return hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None
    except OSError:
        return None


def calibrated(cat: Catalog, path: Path | None = None) -> Catalog:
    """The catalog every estimating command (plan, compare, scenarios, tco, the API) computes with: the calibration
    file's factors as its `calibration`, which `estimate.efficiency` ranks exactly as the `overrides` that
    `estimate_with_calibration` passes (over a catalog factor of equal specificity, under a more specific one; the
    catalog's own bandwidth share where the kernel asks for it). Unchanged without a calibration file."""
    factors = calibration_factors(path)
    if not factors:
        return cat
    return cat.model_copy(update={"calibration": factors})


def calibration_note(cat: Catalog, devices: Iterable[str], path: Path | None = None) -> Message | None:
    """The assumption an answer that used calibrated factors states (as `estimate` labels each factor
    `measured:<result ids>`): which file, and the catalog's calibrated factors for the answer's devices. None when
    none applies (no calibration file, or none of its devices among them)."""
    wanted = set(devices)
    used = [f for f in cat.calibration if f.device in wanted]
    if not used:
        return None
    return Message("plan.assume.calibrated", path=str(_calibration_file(path)),
                   factors="; ".join(f"{f.device} {f.metric} {f.value:.3g} ({f.source})" for f in used))


def calibration_rows(rows: list[dict[str, Any]], cat: Catalog) -> list[dict[str, Any]]:
    """Rows of devices side by side (`compare_devices`), each with the calibration it used (`calibration_note`:
    `calibration`, `calibration_i18n`; null where none applied)."""
    out = []
    for r in rows:
        note = calibration_note(cat, [r["device"]])
        out.append({**r, "calibration": render(note) if note else None,
                    "calibration_i18n": note.to_json() if note else None})
    return out


def with_migration_calibration(out: dict[str, Any], cat: Catalog) -> dict[str, Any]:
    """A `migration_cost` answer with the calibration its derived saving used (`calibration_note` for the devices
    whose tokens/s it estimated: `calibration`, `calibration_i18n`; null where none applied or the saving was given),
    as plan and compare say it. `suanli migrate cost` and POST /api/migrate alike."""
    devices = [d for d, v in (out.get("derived") or {}).items() if isinstance(v, dict)]
    note = calibration_note(cat, devices)
    return {**out, "calibration": render(note) if note else None,
            "calibration_i18n": note.to_json() if note else None}


def estimate_with_calibration(cat: Catalog, m: ModelArch, acc: Accelerator, w: Workload,
                              calibration: Path | None = None) -> Estimate:
    from suanli.validate.bands import packaged_error_bands

    # a catalog from `calibrated` (the CLI's and the API's) already carries the file's factors: not twice
    overrides = () if cat.calibration else calibration_for(acc.id, calibration)
    # training without --framework: the framework `suanli plan` picks for the layout (estimate.assumed_framework)
    return estimate(cat, m, acc, w, packaged_error_bands(), overrides=overrides, assume_framework=True)


def memory_messages(cat: Catalog, e: Estimate,
                    bands: dict[str, ErrorBand] | None = None) -> tuple[Message | None, Message | None]:
    """(tight, short): the plan's memory-within-error warning on this estimate (`plan.known_error.memory_within_error`,
    None unless it fits with a headroom under the stack's known memory error) and, where the known bias exceeds that
    headroom, the plan's 'memory likely short' sentence (`memory_likely_short`). The one rule, from the
    plan; `bands`: the packaged error bands unless given."""
    from suanli.catalog import lookup
    from suanli.plan.known_error import memory_likely_short, memory_within_error  # not plan.search: start-up
    from suanli.validate.bands import packaged_error_bands

    m = e.memory
    if not m.fits or m.needed_bytes is None or m.usable_bytes is None:
        return None, None
    tight = memory_within_error(packaged_error_bands() if bands is None else bands,
                                lookup.stack(cat, e.device.stack), e.workload.task, m.needed_bytes, m.usable_bytes,
                                e.dies_per_card)
    return tight, memory_likely_short(tight)


def memory_check(cat: Catalog, e: Estimate, bands: dict[str, ErrorBand] | None = None) -> dict[str, Any]:
    """The memory-tight fields of an estimate's JSON (`EstimateJson`: fits_tight, likely_short, the headroom and the
    validated error and bias it is judged against, the plan's sentences), by the plan's functions
    (`memory_messages`, `plan.known_error.memory_headroom_pct`, `error_rule`, `estimate.pooled_bias`)."""
    from suanli.estimate.estimate import pooled_bias
    from suanli.plan.known_error import error_rule, fit_label, memory_group, memory_headroom_pct
    from suanli.validate.bands import packaged_error_bands

    b = packaged_error_bands() if bands is None else bands
    tight, short = memory_messages(cat, e, b)
    m = e.memory
    group = memory_group(e.workload.task)
    limit, _ = error_rule(b, e.device.stack, group, True)
    pb = pooled_bias(b, e.device.stack, group)
    return {
        "fits_tight": tight is not None, "likely_short": short is not None, "memory_group": group,
        "memory_headroom_pct": (memory_headroom_pct(m.needed_bytes, m.usable_bytes)
                                if m.needed_bytes is not None and m.usable_bytes else None),
        "memory_error_pct": limit, "memory_bias_pct": pb.bias_pct if pb is not None else None,
        "memory_warning": render(tight) if tight is not None else None,
        "memory_warning_i18n": tight.to_json() if tight is not None else None,
        "memory_likely_short": render(short) if short is not None else None,
        "memory_likely_short_i18n": short.to_json() if short is not None else None,
        **fit_label(tight if m.fits else None, m.fits),
    }


def checkpoint(e: Estimate, asked: str | None = None) -> str:
    """The Hugging Face id the estimate's job downloads, by plan's rule (`catalog.lookup.checkpoint_id`): training
    (pretrain, full, lora, qlora) an -Instruct/-Chat preset names its base checkpoint unless `asked` (the name the
    user typed) is the tuned one's; inference the preset's id. `suanli estimate` (text and --json) and POST
    /api/estimate show it where `suanli plan` shows its `model`."""
    from suanli.catalog import lookup

    return lookup.checkpoint_id(e.model, e.workload.task, asked)


def estimate_json(cat: Catalog, e: Estimate, bands: dict[str, ErrorBand] | None = None,
                  asked: str | None = None) -> dict[str, Any]:
    """`EstimateJson`: the estimate's contract with its memory check (`memory_check`) — `suanli estimate --json`
    and POST /api/estimate alike; the notes beside their messages (`notes_i18n`), so ?lang= renders them as the CLI's
    text does. `model.id` is the checkpoint the job downloads (`checkpoint`, for the model name `asked`),
    `model.preset` the catalog preset."""
    out = {**e.contract(), **memory_check(cat, e, bands)}
    out["model"] = {**out["model"], "id": checkpoint(e, asked), "preset": e.model.id}
    out["memory"] = {**out["memory"], "notes_i18n": list(e.memory.notes_i18n)}
    out["notes_i18n"] = list(e.notes_i18n)
    return out


def engine_default_note(cat: Catalog, acc: Accelerator, m: ModelArch, task: str) -> Message | None:
    """The note of an estimate that took the stack's default engine (no engine named): language-model inference
    only. The one note `suanli estimate` (text and --json) and POST /api/estimate print (`with_notes`)."""
    if task != "inference" or m.kind != "llm":
        return None
    from suanli.i18n import both

    stack = next((s for s in cat.stacks if s.id == acc.stack), None)
    return Message("est.note.engine_default", engine=default_engine(cat, acc, task), field="engine",
                   stack=both(stack.name, stack.name_zh) if stack is not None else acc.stack)


def with_notes(e: Estimate, notes: Iterable[Message | None]) -> Estimate:
    """`e` with `notes` (None skipped) before its own: English in `notes`, the messages in `notes_i18n`."""
    new = [n for n in notes if n is not None]
    return e.model_copy(update={"notes": [render(n) for n in new] + list(e.notes),
                                "notes_i18n": [n.to_json() for n in new] + list(e.notes_i18n)})


def default_engine(cat: Catalog, acc: Accelerator, task: str) -> str:
    """The engine an estimate uses when none is named: for inference the one most teams serve with on the
    device's stack (the stack's data), else transformers (`hf`). `suanli estimate` and POST /api/estimate alike."""
    if task != "inference":
        return "hf"
    from suanli.catalog import lookup
    from suanli.estimate.capability import default_engine as stack_default

    return str(stack_default(lookup.stack(cat, acc.stack)))
