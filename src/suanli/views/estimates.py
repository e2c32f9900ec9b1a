"""One estimate as both interfaces make it: the packaged error bands and the user's calibration file
(`suanli calibrate` writes it) applied for the device, so `suanli estimate --json` and POST /api/estimate
return the same numbers. `EstimateJson` types `Estimate.contract()` (the API's response model)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field

from suanli.catalog.schema import Accelerator, Catalog, EfficiencyFactor, ModelArch
from suanli.estimate.efficiency import Efficiency
from suanli.estimate.estimate import ErrorBand, Estimate, FrameworkChoice, estimate
from suanli.estimate.workload import Workload
from suanli.i18n import Message, render
from suanli.views.shape import MessageJson, Shape

__all__ = ["EstimateJson", "calibrated", "checkpoint", "estimate_json", "memory_check", "memory_messages", "calibration_factors", "calibration_for", "calibration_note", "calibration_rows",
           "calibration_sha256",
           "default_engine", "engine_default_note", "estimate_with_calibration", "with_migration_calibration",
           "with_notes"]


class EmptyJson(Shape):
    """Nothing of this kind for this estimate (e.g. no speed for the seeds' method or without the peaks)."""

    model_config = ConfigDict(extra="forbid")


class EstimateModel(Shape):
    id: str = Field(description="the Hugging Face checkpoint the job downloads, as plan names it "
                    "(`checkpoint`: training an -Instruct/-Chat preset starts from its base checkpoint)")
    preset: str | None = Field(None, description="the catalog preset the architecture comes from (its own id); "
                               "differs from `id` where training names the base checkpoint")
    params: int
    active_params: int
    nominal_params: float | None = Field(None, description="the name's size (7B = 7e9), method seed only")


class EstimateDevice(Shape):
    id: str
    name: str
    gpus: int


class EstimateMemory(Shape):
    per_gpu_bytes: float
    per_gpu_gb: float = Field(description="per_gpu_bytes / 1e9")
    per_gpu_gib: float = Field(description="per_gpu_bytes / 2**30")
    breakdown_bytes: dict[str, float] = Field(description="bytes per device by item (weights, kv_cache, …)")
    capacity_bytes: float | None
    usable_bytes: float | None = Field(None, description="what a workload may use: capacity × (1 − the stack's "
                                       "allocator fragmentation), or the engine's pre-allocated share")
    needed_bytes: float | None = Field(None, description="what the fit compares with usable_bytes: the breakdown "
                                       "less an engine's unused KV pool")
    fits: bool | None
    max_batch: int | None
    max_context: int | None
    trainable_params: int
    notes: list[str]
    notes_i18n: list[MessageJson | str] = Field(default_factory=list, description="notes as messages (a plain "
                                                "string where a note has none), rendered by ?lang=")


class InferenceSpeedJson(Shape):
    prefill_tokens_per_s: float
    decode_tokens_per_s: float
    output_tokens_per_s: float
    ttft_s: float = Field(description="TTFT if all `batch` requests arrive at once: a static batch of `batch` "
                          "prompts prefilled together (not what plan judges --ttft by: ttft_joining_s)")
    tpot_s: float | None = Field(description="TPOT of that static batch while it only decodes (one decode step, no "
                                 "new prompt interleaved; not what plan judges --tpot by: tpot_steady_s). null with "
                                 "one output token (--output 1: no gap between tokens, no TPOT; decode_step_s keeps "
                                 "the step)")
    decode_step_s: float = Field(description="one decode step of the batch, seconds (the kernel's figure: tpot_s "
                                 "where the request has two or more output tokens)")
    ttft_joining_s: float = Field(description="TTFT of one request joining a running batch of `batch` (continuous "
                                  "batching: the step in flight, then its own prefill); plan judges --ttft by this")
    tpot_steady_s: float | None = Field(description="TPOT a user sees when the batch is kept full by continuous "
                                        "batching: decode step + the batch's prefill spread over its output "
                                        "(Sarathi-Serve); plan judges --tpot by this. null with one output token "
                                        "(--output 1: no gap between tokens, no TPOT)")
    prefill_bound: str
    decode_bound: str
    efficiency: list[Efficiency]


class TrainingSpeedJson(Shape):
    train_tokens_per_s: float
    step_time_s: float
    tokens_per_step: int
    mfu: float
    model_flops_per_token: float
    hardware_flops_per_token: float
    efficiency: list[Efficiency]


class DiffusionSpeedJson(Shape):
    seconds_per_image: float
    images_per_s: float
    step_time_s: float
    latency_s: float
    steps: int
    resolution: int
    cfg: bool
    denoiser_flops_per_step: float
    text_encoder_s: float
    denoise_s: float
    vae_decode_s: float
    step_bound: str
    efficiency: list[Efficiency]


class InferenceScalingJson(Shape):
    efficiency: float | None = Field(description="share of a decode step not spent in tensor-parallel all-reduces")
    tp_comm_per_token_s: float


class TrainingScalingJson(Shape):
    efficiency: float
    compute_s: float
    dp_comm_s: float
    dp_exposed_s: float
    tp_comm_s: float
    ep_comm_s: float
    pp_bubble_s: float
    pp_p2p_s: float = Field(0.0, description="exposed pipeline point-to-point sends (interleaved: what the compute does not hide)")
    cp_comm_s: float = Field(0.0, description="exposed context-parallel key/value exchange (beyond the attention it overlaps)")
    intra_link: str | None
    inter_link: str | None
    bus_gb_per_s: float | None


class SetupHoursJson(Shape):
    environment_h: float
    download_h: float
    checkpoint_h: float
    lost_h: float = Field(description="expected work lost to interruptions: half a checkpoint interval and a restart each")


class FirstServeHoursJson(Shape):
    environment_h: float
    download_h: float = Field(description="the served checkpoint at the workload's download rate (else the catalog's)")
    load_h: float = Field(description="weights read into the cards at the catalog's weight_load_gb_per_s")


class EstimateTime(Shape):
    """Training: empty without `tokens`, set-up fields with them. LLM inference: the time to first serve always (as
    serving plans show it), hours and total_hours with `tokens`."""

    hours: float | None = None
    tokens: float | None = None
    compute_hours: float | None = None
    setup_hours: float | None = None
    setup_breakdown_hours: SetupHoursJson | None = None
    checkpoints: float | None = None
    checkpoint_interval_hours: float | None = Field(None, description="Young's interval: sqrt(2 x write time x MTBF)")
    expected_interruptions: float | None = None
    first_serve_hours: float | None = Field(None, description="inference: hours from renting to the first request "
                                            "served (environment, download, weight load), as serving plans count it")
    first_serve_breakdown_hours: FirstServeHoursJson | None = None
    total_hours: float | None = None


class MemoryVerdictJson(Shape):
    """The plan's memory-within-error check on one estimate (`memory_check`): the CLI's 'fits (tight)' / 'likely
    short', as the estimate (EstimateJson) and each compare row (api.responses.CompareRow) give it."""

    fits_tight: bool = Field(False, description="true when it fits with a headroom (memory_headroom_pct) under the "
                             "validated memory error of its stack (memory_error_pct): the CLI's 'fits (tight)', the "
                             "plan's memory-within-error warning (plan.search.memory_within_error)")
    likely_short: bool = Field(False, description="true when, besides, the known memory bias (memory_bias_pct, "
                               "negative: needs more than estimated) exceeds that headroom: the CLI's 'likely short', "
                               "a layout the plan ranks after those that pass")
    memory_warning: str | None = Field(None, description="the plan's memory-within-error warning when fits_tight, "
                                       "else null")
    memory_warning_i18n: MessageJson | None = Field(None, description="memory_warning as a message, else null")
    memory_likely_short: str | None = Field(None, description="the plan's 'memory likely short' sentence when "
                                            "likely_short, else null")
    memory_likely_short_i18n: MessageJson | None = Field(None, description="memory_likely_short as a message, "
                                                         "else null")


class EstimateJson(MemoryVerdictJson):
    """`Estimate.contract()`: the JSON of `suanli estimate --json` and POST /api/estimate."""

    model: EstimateModel
    device: EstimateDevice
    workload: Workload
    method: str
    memory: EstimateMemory
    speed: InferenceSpeedJson | TrainingSpeedJson | DiffusionSpeedJson | EmptyJson = Field(
        union_mode="left_to_right", description="by the workload's kind; {} when there is no speed estimate")
    time: EstimateTime
    scaling: InferenceScalingJson | TrainingScalingJson | EmptyJson = Field(union_mode="left_to_right")
    error_band: dict[str, ErrorBand] = Field(description="validated |relative error| by estimate group")
    framework: FrameworkChoice | None = Field(None, description="training: the framework the layout ran under "
                                              "(`workload.framework`) and how: chosen pinned (--framework) or assumed, "
                                              "the one `suanli plan` picks for this layout (rule fastest: the fastest "
                                              "of `candidates` that fits, full and pretrain; first: the first of them); "
                                              "null for inference, the seed method and layouts no framework runs")
    notes: list[str]
    notes_i18n: list[MessageJson | str] = Field(default_factory=list, description="notes as messages (a plain "
                                                "string where a note has none), rendered by ?lang=")
    runs: bool = Field(True, description="false when the configuration does not fit in memory: it never runs, and "
                       "speed, scaling and time are then what it would reach if it did (the CLI prints none)")
    memory_group: str | None = Field(None, description="the validated error group the fit is judged on: "
                                     "inference-memory or training-memory")
    memory_headroom_pct: float | None = Field(None, description="100 × (usable_bytes − needed_bytes) / usable_bytes: "
                                              "how much more the real need may be and still fit (negative: short by "
                                              "that share); null without the device's memory size")
    memory_error_pct: float | None = Field(None, description="the |error| a headroom is judged against: the stack's "
                                           "out-of-sample p90 |error| of memory_group (5+ cases; fewer: shrunk "
                                           "toward all stacks'), as the plan judges it; null where none is stored")
    memory_bias_pct: float | None = Field(None, description="the pooled median signed error of memory_group on the "
                                          "stack (negative: the estimate below the measured need); likely_short when "
                                          "−memory_bias_pct exceeds memory_headroom_pct; null where none is stored")


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
                                lookup.stack(cat, e.device.stack), e.workload.task, m.needed_bytes, m.usable_bytes)
    return tight, memory_likely_short(tight)


def memory_check(cat: Catalog, e: Estimate, bands: dict[str, ErrorBand] | None = None) -> dict[str, Any]:
    """The memory-tight fields of an estimate's JSON (`EstimateJson`: fits_tight, likely_short, the headroom and the
    validated error and bias it is judged against, the plan's sentences), by the plan's functions
    (`memory_messages`, `plan.known_error.memory_headroom_pct`, `error_rule`, `estimate.pooled_bias`)."""
    from suanli.estimate.estimate import pooled_bias
    from suanli.plan.known_error import error_rule, memory_group, memory_headroom_pct
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
