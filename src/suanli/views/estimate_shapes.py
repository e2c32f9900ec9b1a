"""The JSON shape of one estimate: `EstimateJson` types `Estimate.contract()` with its memory check
(`views.estimates.estimate_json`), the API's response model for POST /api/estimate. `suanli.views.estimates` gives
these names when first asked for: a CLI estimate builds its JSON as a dict and never defines them (defining the
fourteen classes took ~3 ms of its start-up, `Shape`'s defer_build notwithstanding)."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from suanli.estimate.efficiency import Efficiency
from suanli.estimate.estimate import ErrorBand, FrameworkChoice
from suanli.estimate.workload import Workload
from suanli.views.shape import MessageJson, Shape

__all__ = ["DiffusionSpeedJson", "EmptyJson", "EstimateDevice", "EstimateJson", "EstimateMemory", "EstimateModel",
           "EstimateTime", "FirstServeHoursJson", "InferenceScalingJson", "InferenceSpeedJson", "MemoryVerdictJson",
           "SetupHoursJson", "TrainingScalingJson", "TrainingSpeedJson"]


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
    gpus: int = Field(description="the ranks: devices a framework sees (a card of several dies counts each die)")
    ranks: int | None = Field(None, description="a card of several dies (the Ascend 910C): the ranks, = gpus; absent "
                              "for a device of one die a card")
    cards: int | None = Field(None, description="a card of several dies: the cards rented for the ranks")
    dies_per_card: int | None = Field(None, description="a card of several dies: ranks a card gives (the 910C: 2; "
                                      "`catalog.ranks`)")


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
    fit_label: str | None = Field(None, description="the fit as the CLI's fits cell words it (plan.known_error.fit_word): "
                                  "'fits', 'fits (tight)' or 'likely short (known bias … vs headroom …)'; null where it "
                                  "does not fit or is not known")
    fit_label_i18n: MessageJson | None = Field(None, description="fit_label as a message, else null")


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
