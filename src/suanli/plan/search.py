"""The planner: search device × cards × framework layout × precision × micro-batch, drop what does not fit or
breaks a constraint, rank the rest and explain the ranking.

One model of the world (issue 10): every configuration is evaluated by the estimator's own kernels
(`estimate.memory.training_memory` / `inference_memory`, `estimate.speed.training_step` / `inference_step`,
`estimate.setup.setup_hours`, `plan.cost.billed_cost`) over numpy arrays, so a plan re-estimated with
`suanli estimate` gives the same numbers. The search space is what a team can launch: the framework's layouts
(`frameworks.yaml`), the precisions the device and stack run (`estimate.capability`), the stack's serving
engines, and offers that can actually be rented for the job (`catalog.offers`)."""

from __future__ import annotations

import datetime as dt
import functools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from suanli.catalog import lookup
from suanli.catalog.offers import (
    can_rent,
    can_span_nodes,
    china_export_controlled,
    is_international,
    is_stale,
    max_cards,
    multi_node_gap,
    network_text,
    offer_age_months,
    unpriced_reason,
    usable_offers,
)
from suanli.catalog.ranks import dies_per_card, offer_in_ranks, rank_view, ranks_in, whole_cards
from suanli.catalog.schema import OFFER_KINDS, Accelerator, Catalog, Framework, ModelArch, Offer, SoftwareStack
from suanli.errors import EstimateError, InputError, PlanError, SuanliError, echoed, unknown_name
from suanli.estimate import arch
from suanli.estimate.capability import (
    capability_problems,
    default_engine,
    engines_alike,
    supports_fp8,
    supports_fp8_training,
)
from suanli.estimate.estimate import (LITTLE_EVIDENCE_CASES, LORA_TASKS, ErrorBand, check_ep_has_experts, context_refusal,
                                      evidence_message, job_hours, lora_evidence_message, lora_stack_band,
                                      moe_evidence_message, moe_stack_band, stack_band)
from suanli.catalog.offers import RENTABLE_KINDS, kinds_message, kinds_priced, rent_message
from suanli.plan.quality import (next_precision_up, offers_range, precision_up_loss, quantization_warnings,
                                 scheme_name, unvalidated_label)
from suanli.estimate.capability import (
    ALL_FRAMEWORK_TASKS,
    framework_order,
    framework_refusal,
    nf4_speed_warning,
    optimizer_zero_stages,
    pp_zero_runs,
    runs_pp,
    runs_task,
    tp_overlap_runs,
    tp_zero_runs,
    zero_runs,
)
from suanli.estimate.memory import (
    inference_memory,
    inference_memory_terms,
    needed_bytes,
    offload_host_bytes_per_node,
    prefill_chunk_tokens,
    preallocate_fraction,
    stack_fragmentation,
    training_memory,
    training_memory_terms,
    usable_memory_bytes,
    weights_bytes,
)
from suanli.estimate.precision import (default_precision, native_precision_note, peak_flops_per_s,
                                      unpublished_checkpoint_note)
from suanli.estimate.scaling import link_for, rented_inter_node_bytes_per_s
from suanli.plan.train_evidence import assumed_efficiencies, plan_training_notes
from suanli.plan.caveats import Rerun, card_warning, variant_warning
from suanli.plan.labels import replica_words, serving_label
from suanli.estimate.setup import (
    SLOW_DOWNLOAD_H,
    job_setup,
    offer_download_gbit_per_s,
    serve_setup_hours,
    setup_hours,
    setup_terms,
)
from suanli.estimate.speed import (
    inference_rates,
    inference_speed_terms,
    inference_step,
    joining_ttft_s,
    assumed_cpu_adam_s,
    served_tokens_per_s,
    StepLinks,
    steady_tpot_s,
    step_links,
    tpot_within,
    training_rates,
    training_speed_terms,
    training_step,
)
from suanli.estimate.tp_heads import SPLIT_HEADS_FRAMEWORKS, tp_heads_refusal, tp_heads_runs
from suanli.estimate.workload import RECOMPUTE, Workload, make_workload, optimizer_bytes_per_param
from suanli.i18n import Message, both, device_name_message, duration, render, t
from suanli.plan.known_error import (bias_evidence as _bias_evidence, demoted, error_rule, known_error as _known_error,
                                     latency_margin_pct, likely_missed as _likely_missed, margin_warned, memory_group,
                                     memory_headroom_pct, memory_likely_short, memory_within_error, pooled_evidence,
                                     risk_pct as _risk_pct, stack_name as _stack_name, warn_limit)
from suanli.plan.cost import (billed_cost, billing_note, cny_per_million_output_tokens, cost_assumptions, gross_of,
                              job_cost, offer_download_delta_h, period_billed_hours, subsidy_note)
from suanli.plan.request import PlanRequest, rate_from_users
from suanli.plan.sizes import (  # the search space's sizes (estimate's replica hint reads them without numpy)
    EP_SIZES,
    GPU_COUNTS,
    MICRO_BATCHES,
    NEED_TPS,
    PP_SIZES,
    TP_SIZES,
    VPP_SIZES,
    ZERO_STAGES,
)
from suanli.units import HOURS_PER_MONTH, HOURS_PER_WEEK, HOURS_PER_YEAR, UNIT_HOURS, GiB

if TYPE_CHECKING:  # migrate's package imports plan.cost: the type only
    from suanli.migrate.libraries import LibraryUse

__all__ = ["DEFAULT_SERVING_TPOT_S", "Layout", "Plan", "PlanResult", "fastest_layout", "fastest_layout_why", "recompute_off",
           "fewest_training_cards", "is_international", "memory_headroom_pct", "memory_within_error", "migration_weeks",
           "DEMOTION_COST_FACTOR",
           "capacity_configs", "error_rule", "latency_margin_pct", "margin_warned", "rate_thin", "warn_limit",
           "memory_likely_short", "plan", "pooled_evidence", "plan_workload", "round_down_rate", "serving_layout",
           "why_not_reasons", "calendar_hours", "calendar_counts"]

SERVE_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# concurrent users: besides the powers of two, the batch ceil(users / r) of each replica count r (vLLM's max_num_seqs
# takes any integer), at most this many of them (evenly picked among the distinct ones up to the largest batch)
MAX_USER_BATCHES = 64
SERVE_PRECISIONS = ("bf16", "fp8", "int8", "int4")
# the filters a configuration can fail before pricing (grid["fail"], a bit each): memory, then the request's limits
F_MEMORY, F_TPOT, F_TTFT, F_CARDS, F_RATE = 1, 2, 4, 8, 16
_LIMIT_BITS = (F_TPOT, F_TTFT, F_CARDS, F_RATE)
# assumed: a training plan whose job runs longer than a year is warned of (`plan.warn.long_job`) when no deadline was
# given — past a year the prices it was planned at are stale by the catalog's own rule (offers older than 12 months,
# `offers.DEFAULT_STALE_MONTHS`) and the hardware a generation old; no source sets a limit, so this one is ours
LONG_JOB_HOURS = HOURS_PER_YEAR


class Plan(BaseModel):
    model_config = ConfigDict(frozen=True)

    rank: int
    device: str
    device_name: str
    device_name_i18n: dict[str, Any] = {}  # the name as a message: the vendor's Chinese name in Chinese (`name_zh`)
    framework: str
    engine: str | None = None
    gpus: int
    tp: int
    pp: int
    dp: int
    ep: int = 1
    vpp: int = 1
    tp_comm_overlap: bool = False
    zero: int | None
    recompute: str | None
    precision: str
    micro_batch: int
    grad_accum: int | None
    optimizer: str | None = Field(None, description="training: adamw, or adamw8bit (bitsandbytes) where plain "
                                  "AdamW does not fit these cards")
    offload_optimizer: bool = Field(False, description="training: optimizer states and step on the host CPU "
                                    "(DeepSpeed ZeRO-Offload), where plain AdamW does not fit these cards")
    offload_host_bytes_per_node: float | None = Field(None, description="training with offload_optimizer: host RAM "
                                                      "per node it needs (DeepSpeed's estimator); no offer states it")
    replicas: int | None = None
    # a card of several dies (the Ascend 910C: 2): gpus, tp, pp, dp, ep and the memory count ranks (dies), `cards` the
    # cards rented (`catalog.ranks`); absent (None) for a device of one die a card, where gpus are the cards
    dies_per_card: int | None = None
    cards: int | None = None
    ttft_s: float | None = None
    tpot_s: float | None = None
    inter_node_gbit_per_s: float | None = None
    download_gbit_per_s: float | None = None
    flash_attention: bool = True
    memory_per_gpu_bytes: float
    memory_needed_bytes: float
    memory_usable_bytes: float
    memory_capacity_bytes: float
    tokens_per_s: float = Field(description="training: tokens/s trained; serving: output tokens/s the replicas make "
                                "at the batch each runs (micro_batch) with every slot busy — with a request rate at "
                                "or above load_output_tokens_per_s (the smallest batch that carries it), with "
                                "concurrent users above it where the plan's TTFT and TPOT beat the targets their "
                                "rate is derived from; a batch job (tokens): the rate it generates them at")
    load_output_tokens_per_s: float | None = Field(
        None, description="serving: the output tokens/s the plan is sized for, the bill's load: the request rate "
        "(given, or concurrent users' by Little's law, as the header says) × output tokens; a batch job (tokens): "
        "tokens_per_s; null for training")
    cny_per_million_output_tokens: float | None = Field(
        None, description="serving: cost_cny (the rent for the period, after any subsidy; migration share not "
        "included) per million output tokens served at load_output_tokens_per_s over compute_hours "
        "(`plan.cost.cny_per_million_output_tokens`); a batch job: per million of the tokens it generates; null "
        "for training")
    compute_hours: float
    setup_hours: float
    hours: float
    calendar_hours: float | None = Field(
        None, description="hours from the start until the job is done on the clock deadline_hours and objective "
        "fastest count (`calendar_hours`): the migration weeks at their midpoint (none for a stack in already_on), "
        "then set-up and compute (hours)")
    first_serve_hours: float | None = Field(
        None, description="serving: hours from renting to the first request served (environment, download of the "
        "served checkpoint at the offer's public bandwidth, weight load); billed (as setup_hours) only when the "
        "request sets a serving period (hours/days: the period is the rental, set-up takes its start, hours = the "
        "period, compute_hours = the serving hours) or tokens to generate (added to the hours)")
    cost_cny: float
    cost_cny_max: float
    subsidy: float = Field(0.0, description="share of the rent a local compute subsidy refunds (domestic devices; "
                           "0: none); cost_cny and cost_cny_max are after it")
    gross_cost_cny: float | None = Field(None, description="the rent before the subsidy (cost_cny without it)")
    offer: str
    offer_kind: str
    billing_unit: str
    migration_weeks: tuple[float, float]
    migration_one_off_cny: float
    migration_cost_cny: float
    total_cost_cny: float
    first_month_cash_cny: float | None = Field(
        None, description="with a budget: the first month's cash, its rent (pro rata beyond a month) + the whole "
        "migration_one_off_cny (`first_month_cash`); the budget checks total_cost_cny, rent + the migration share")
    scaling_efficiency: float | None
    # what a training plan's speed takes on trust (plan.train_evidence): None where it does not apply
    scaling_basis: str | None = Field(None, description="'assumed (bandwidth unpublished)': a multi-node plan whose "
                                      "offer publishes no inter-node bandwidth, scaled on the catalog's link row, or "
                                      "a multi-card plan on a device whose intra-node link figure is assumed")
    inter_node_link: str | None = Field(None, description="links.yaml row the inter-node scaling was taken from")
    inter_node_bus_gb_per_s: float | None = Field(None, description="that row's default bus GB/s per node, used in "
                                                   "place of the offer's unpublished figure")
    mfu: float | None = Field(None, description="training: implied end-to-end MFU (tokens/s x model FLOPs per "
                              "token / cards x dense peak)")
    comm_hidden_s: float | None = Field(None, description="communication per step assumed fully hidden by overlap")
    step_no_overlap_s: float | None = Field(None, description="the step with that communication exposed")
    training_bias_pct: float | None = Field(None, description="pooled signed training-throughput error (+: the "
                                            "estimate faster than measured; MoE cases for an MoE model)")
    hours_if_bias: float | None = Field(None, description="hours if that error holds")
    cost_if_bias_cny: float | None = Field(None, description="rent if that error holds")
    reason: str
    warnings: list[str]
    reason_i18n: dict[str, Any] = {}
    warnings_i18n: list[dict[str, Any]] = []


class PlanResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    request: PlanRequest
    model_id: str
    plans: list[Plan]
    pareto: list[dict[str, Any]]
    why_not: list[dict[str, Any]]
    configurations_evaluated: int
    search_seconds: float
    relax: list[str] = []
    assumptions: list[str] = []
    relax_i18n: list[dict[str, Any]] = []
    assumptions_i18n: list[dict[str, Any]] = []
    warnings: list[str] = []  # about the whole request (a reasoning model at the default output), not one plan
    warnings_i18n: list[dict[str, Any]] = []


def migration_weeks(cat: Catalog, stack: SoftwareStack, m: ModelArch, libraries: Sequence[LibraryUse] = (), *,
                    task: str) -> tuple[float, float, Message]:
    """Calendar weeks (low, high) the engineers take to move model `m` onto `stack` for `task`, with the reason (a
    message); person-weeks are these × the engineers (`cost.migration_tco`'s person_weeks). The rule is
    `migrate.effort`'s, the one `migrate check` charges by: the stack's adapted lists for the task (serving or
    training), the MoE/multimodal span, a library with no NPU build (`libraries`, `LibraryUse.blocks`) as a port, a
    stack with no list at the catalog's own range; the released checkpoint's dtype (`effort.checkpoint_uses`) counts
    as a library whether or not the caller passes it. A config.json model (`source` user-config) is matched by its
    aliases alone (`effort.model_names`). Unknown effort (a range missing from the catalog) is 0–0 weeks, said so."""
    from suanli.migrate.effort import checkpoint_uses, complex_arch, effort, listing, model_names, stack_lists
    from suanli.migrate.libraries import merge

    lst = listing(stack_lists(stack, model_names(m)), task)
    libraries = merge(checkpoint_uses(m, cat), libraries)  # the released checkpoint's dtype (FP8): migrate check's
    e = effort(stack, lst, complex_arch=complex_arch(m), blocking_libraries=[u.id for u in libraries if u.blocks],
               unknown_libraries=[u.id for u in libraries if u.unknown])
    lo, hi = e.weeks or (0.0, 0.0)
    return lo, hi, e.why


def calendar_hours(hours: Any, weeks: Any) -> Any:
    """The clock a deadline and objective fastest count (buyer review 2026-12-01, 3): the migration `weeks` (calendar
    weeks at their midpoint; 0 for a stack the team already runs, --already-on) come first, then the job's `hours`
    (set-up and compute) — a team on CUDA waits the weeks before a 910B job starts."""
    return hours + weeks * HOURS_PER_WEEK


def _weeks_mid(weeks: Sequence[Any]) -> float:
    """A device's migration weeks (low, high, …) at their midpoint, as the one-off cost and the calendar take them."""
    return (weeks[0] + weeks[1]) / 2


# ---------------------------------------------------------------------------------------------------- devices


@dataclass
class _Device:
    acc: Accelerator
    stack: SoftwareStack
    framework: Framework | None
    engine: str | None
    precisions: tuple[str, ...]
    capacity: float
    runtime: float
    fragmentation: float
    weeks: tuple[float, float, Message]
    offers: list[Offer]
    excluded: Message | None = None
    notes: list[str] = field(default_factory=list)
    unpriced: bool = False  # layouts only (fastest_layout): nodes assumed joinable, the network not published
    # training: every framework searched on this device with the precisions searched under it (`_framework_candidates`;
    # `framework` first), each grid row naming its own (grid["fw"]); empty: `framework` alone at `precisions`
    frameworks: tuple[tuple[Framework, tuple[str, ...]], ...] = ()
    # ranks (dies) a rented card gives (`catalog.ranks`): `acc` is one rank, `offers` count ranks; the plan says cards
    dies: int = 1
    card_offers: dict[str, Offer] = field(default_factory=dict)  # each offer as the catalog has it (in cards), by id

    def card_offer(self, offer: Offer) -> Offer:
        """`offer` (one of `offers`, counted in ranks) as the catalog has it, in cards: what a plan shows."""
        return self.card_offers.get(offer.id, offer)

    def cards(self, ranks: int) -> int:
        """The cards rented for `ranks` of this device's ranks (`catalog.ranks.whole_cards`: 16 dies of a 910C, 8)."""
        return whole_cards(ranks, self.dies)

    def said(self, msg_id: str) -> str:
        """`msg_id`, or on a card of several dies (the 910C) its `_dies` wording: counts of cards with their dies
        (`dies_kw`), tp in dies and memory per die."""
        return f"{msg_id}_dies" if self.dies > 1 else msg_id

    def dies_kw(self, key: str, ranks: int) -> dict[str, int]:
        """`{key: ranks}` for a `_dies` message (`said`) on a card of several dies; nothing for a one-die device, whose
        messages (and their JSON) are as they were."""
        return {key: ranks} if self.dies > 1 else {}

    def count_kw(self, ranks: int) -> dict[str, Any]:
        """`gpus` and `device` of a message's '{gpus}× {device}' for `ranks` ranks: the cards rented, and the device
        with those dies on a card of several (`plan.device_dies`, as a plan names it: '4× Huawei Ascend 910C (8 dies)'),
        its bare name then as `name` (a `_dies` message's other mentions of it)."""
        name = _device_name(self.acc)
        if self.dies == 1:
            return {"gpus": ranks, "device": name}
        return {"gpus": self.cards(ranks), "device": Message("plan.device_dies", device=name, ranks=ranks), "name": name}


def _framework_for(cat: Catalog, req: PlanRequest, stack: SoftwareStack) -> tuple[Framework | None, Message | None]:
    """The framework this plan assumes on `stack`: the pinned one, else the one most teams use for the task
    (`default_for`, the most stack-specific first), else any that runs the task there."""
    task = req.task
    if req.framework is not None:
        fw = next((f for f in cat.frameworks if f.id == req.framework), None)
        assert fw is not None  # checked in plan()
        if framework_refusal(fw, task, stack.id) is not None:  # the rule estimate applies (capability)
            return None, Message("why.fw_task", framework=fw.name, task=task, tasks=", ".join(fw.tasks))
        if stack.id not in fw.stacks:
            return None, Message("why.fw_stack", framework=fw.name, stack=_stack_name(stack))
        pins = _unrun_pins(fw, req, cat)
        if pins:
            return None, Message("why.fw_pins", framework=fw.name, task=task, pins=", ".join(pins))
        return fw, None
    # in the one preference order estimate shares (capability.framework_order: the task's default first)
    cands = [f for f in framework_order(cat.frameworks, task, stack.id) if _runs_pins(f, req, cat)]
    if task == "inference" and req.engine is not None:
        if cands and not any(f.engine == req.engine for f in cands):
            here = [f for f in framework_order(cat.frameworks, task, stack.id) if f.engine == req.engine]
            if here:  # the pinned engine runs here, only not with the pins (--ep on an engine without expert parallel)
                return None, Message("why.fw_pins", framework=here[0].name, task=task,
                                     pins=", ".join(_unrun_pins(here[0], req, cat)))
            # the stack has serving frameworks, only not the pinned engine: name the pin, not the stack
            return None, Message("why.engine_stack", engine=req.engine, stack=_stack_name(stack),
                                 engines=", ".join(sorted({f.engine or f.id for f in cands})))
        cands = [f for f in cands if f.engine == req.engine]
    if cands == [] and (task != "inference" or (req.ep or 1) > 1):
        pinned = [f for f in cat.frameworks if task in f.tasks and stack.id in f.stacks]
        if pinned:  # frameworks run the task here, none with the pinned layout (serving: no engine with --ep)
            return None, Message("why.fw_pins", framework=", ".join(f.name for f in pinned), task=task,
                                 pins=", ".join(sorted({x for f in pinned for x in _unrun_pins(f, req, cat)})))
    if cands:
        return cands[0], None
    return None, Message("why.no_framework", task=task, stack=_stack_name(stack))


# full fine-tuning and pre-training: every framework the stack runs the task with is searched (capability's rule)
_ALL_FRAMEWORK_TASKS = ALL_FRAMEWORK_TASKS
# a frameworks.yaml row's identity and provenance, not how it trains: two rows equal in everything else and in the
# efficiency rows naming them plan the same rows (NeMo and Megatron-LM both run Megatron-Core), so one is searched
_FW_IDENTITY = ("id", "name", "tasks", "stacks", "default_for", "source", "note", "engine")


# the fields of the memory-saving measures (`_optimizer_options`): a plain AdamW row does not depend on them, an
# offload row not on 8-bit AdamW's, an 8-bit row not on offload's
_MEASURE_FIELDS = {0: ("offload_zero_stages", "cpu_adam_s_per_param", "adamw8bit_stacks"),  # OPT_PLAIN
                   1: ("adamw8bit_stacks",), 2: ("offload_zero_stages", "cpu_adam_s_per_param")}  # offload, 8-bit
_SIG_CACHE: dict[tuple[int, str, int | None], tuple[Catalog, tuple[Any, ...]]] = {}


def _fw_signature(cat: Catalog, fw: Framework, opt: int | None = None) -> tuple[Any, ...]:
    """What decides the rows a framework plans: its capabilities (layouts, ZeRO, recompute, measures, gradient
    bytes), the efficiency rows that name it and the head-split rule (`tp_heads`); with `opt`, what decides its rows
    of that optimizer option only (LLaMA-Factory's and PEFT's plain AdamW rows are the same rows)."""
    key = (id(cat), fw.id, opt)
    hit = _SIG_CACHE.get(key)
    if hit is not None and hit[0] is cat:
        return hit[1]
    drop = _MEASURE_FIELDS.get(opt, ()) if opt is not None else ()
    caps = sorted((k, repr(v)) for k, v in fw.model_dump().items()
                  if k not in _FW_IDENTITY and k not in drop and not k.endswith("_source"))
    rows = tuple(sorted(e.id for e in cat.efficiency if fw.id in e.framework_ids))
    sig = (tuple(caps), rows, fw.id in SPLIT_HEADS_FRAMEWORKS)
    if len(_SIG_CACHE) > 4096:
        _SIG_CACHE.clear()
    _SIG_CACHE[key] = (cat, sig)
    return sig


def _framework_candidates(cat: Catalog, req: PlanRequest, acc: Accelerator, stack: SoftwareStack,
                          fw: Framework | None, precisions: tuple[str, ...]
                          ) -> tuple[tuple[Framework, tuple[str, ...]], ...]:
    """The frameworks searched on `stack` with their precisions: `fw` (`_framework_for`'s) first; for full
    fine-tuning and pre-training without --framework also every other framework that runs the task there with the
    pins (`_ALL_FRAMEWORK_TASKS`), one of any that would plan the same rows (`_fw_signature`), each at the
    precisions `fw` is searched at that it runs (the default's precision policy: full fine-tuning stays bf16 where
    DeepSpeed would, Megatron-LM's FP8 is searched where Megatron-LM is the default)."""
    if fw is None:
        return ()
    out = [(fw, precisions)]
    if req.framework is not None or req.task not in _ALL_FRAMEWORK_TASKS:
        return tuple(out)
    seen = {_fw_signature(cat, fw)}
    # after the default, in the preference order estimate shares (capability.framework_order), so that of equal
    # rows the earlier framework is planned (`_one_framework_per_layout`)
    for f in framework_order(cat.frameworks, req.task, stack.id):
        if (f is fw or req.task not in f.tasks or stack.id not in f.stacks or not _runs_pins(f, req)
                or framework_refusal(f, req.task, stack.id) is not None):
            continue
        sig = _fw_signature(cat, f)
        own = _precisions(cat, req, acc, stack, f)[0]
        if sig in seen or not (ps := tuple(p for p in precisions if p in own)):
            continue
        seen.add(sig)
        out.append((f, ps))
    return tuple(out)


def _serves_ep(cat: Catalog | None, fw: Framework) -> bool:
    """Serving: whether the engine `fw` launches serves MoE models expert-parallel (InferenceEngine.expert_parallel,
    cited there) — the engine's capability, not a training framework's `ep`."""
    e = next((x for x in cat.engines if x.id == fw.engine), None) if cat is not None and fw.engine else None
    return e is not None and e.expert_parallel


def _unrun_pins(fw: Framework, req: PlanRequest, cat: Catalog | None = None) -> list[str]:
    """The pinned dimensions (--tp/--pp/--vpp/--ep/--zero/--recompute/fp8) framework `fw` cannot run, as flags;
    serving's --ep by its engine (`_serves_ep`, from `cat`)."""
    out = []
    if (req.tp or 1) > 1 and not fw.tp:
        out.append(f"--tp {req.tp}")
    if (req.pp or 1) > 1 and not runs_pp(fw, req.task):
        out.append(f"--pp {req.pp}")
    # with data parallelism beside the pipeline / tensor parallelism (pinned cards: the replicas they leave)
    tp, pp = req.tp or 1, req.pp or 1
    dp = max(req.gpus // (tp * pp), 1) if req.gpus is not None else 2
    if req.zero is not None and req.zero in fw.zero_stages and not zero_runs(fw, tp, pp, dp, req.zero):
        ok = [z for z in fw.zero_stages if zero_runs(fw, tp, pp, dp, z)]
        with_ = "/".join(f for f, bad in (("--pp", not pp_zero_runs(fw, pp, dp, req.zero)),
                                          ("--tp", not tp_zero_runs(fw, tp, dp, req.zero))) if bad)
        out.append(f"--zero {req.zero} (with {with_}: ZeRO {', '.join(map(str, ok))} only)")
    if (req.vpp or 1) > 1 and not fw.vpp:
        out.append(f"--vpp {req.vpp}")
    if (req.ep or 1) > 1 and not (_serves_ep(cat, fw) if req.task == "inference" else fw.ep):
        out.append(f"--ep {req.ep}")
    if req.zero is not None and (r := framework_refusal(fw, req.task, "", req.zero)) is not None and r.id == "cap.fw.zero":
        out.append(f"--zero {req.zero}")
    if req.recompute is not None and req.recompute not in fw.recompute:
        out.append(f"--recompute {req.recompute}")
    if req.precision == ("fp8",) and req.task != "inference" and not fw.fp8:
        out.append("--precision fp8")
    return out


def _runs_pins(fw: Framework, req: PlanRequest, cat: Catalog | None = None) -> bool:
    """Whether framework `fw` can run the dimensions the user pinned (--tp/--pp/--ep/--zero/--recompute/fp8)."""
    return not _unrun_pins(fw, req, cat)


def _devices(cat: Catalog, m: ModelArch, req: PlanRequest, offers: tuple[Offer, ...], priced: bool = True
             ) -> list[_Device]:
    """The devices to search, each with its framework, engine, precisions and offers, or why it is excluded.
    `priced=False` (fastest_layout): prices aside, a device needs no offer."""
    out: list[_Device] = []
    stacks = {s.id: s for s in cat.stacks}
    wanted = {lookup.accelerator(cat, d).id for d in req.devices}
    vendors = sorted({a.vendor for a in cat.accelerators})
    for v in req.vendors:
        if v not in vendors:
            raise InputError("vendor", Message("err.is_not_one_of", value=echoed(v), allowed=', '.join(vendors)))
    for st in (*req.stacks, *req.already_on):
        if st not in stacks:
            raise InputError("stack", Message("err.is_not_one_of", value=echoed(st), allowed=', '.join(sorted(stacks))))
    by_device: dict[str, list[Offer]] = {}
    for o in offers:
        by_device.setdefault(o.device, []).append(o)
    inference = req.task == "inference"
    per_stack: dict[str, tuple[Any, ...]] = {}  # what depends on the device's stack only, once per stack
    for card in cat.accelerators:
        if wanted and card.id not in wanted:
            continue
        # the planner counts ranks: a card of several dies (the 910C) is searched die by die (catalog.ranks)
        acc, dies = rank_view(card), dies_per_card(card)
        stack = stacks[acc.stack]
        if stack.id not in per_stack:
            per_stack[stack.id] = (
                (0.0, 0.0, Message("migration.already_on", stack=_stack_name(stack))) if stack.id in req.already_on
                else migration_weeks(cat, stack, m, task=req.task),
                _framework_for(cat, req, stack))
        weeks, (fw, fw_reason) = per_stack[stack.id]
        engine = None
        if inference and fw is not None:
            engine = req.engine or fw.engine or default_engine(stack)
        precisions = _precisions(cat, req, acc, stack, fw)
        if _fastest_serving(req) and req.precision is None:  # fastest keeps the model's quality: its own precision
            own = default_precision(m, acc, stack, "inference")
            precisions = (tuple(p for p in precisions[0] if p == own), precisions[1])
        reason: Message | None = None
        if req.domestic_only and not acc.domestic:
            reason = Message("why.not_domestic", field="domestic_only")
        elif req.vendors and acc.vendor not in req.vendors:
            reason = Message("why.vendor_not_allowed", vendor=acc.vendor)
        elif req.stacks and acc.stack not in req.stacks:
            reason = Message("why.stack_not_allowed", stack=acc.stack)
        elif not req.allow_migration and weeks[1] > 0:
            reason = Message("why.migration_not_allowed", weeks_min=weeks[0], weeks_max=weeks[1], why=weeks[2])
        else:
            reason = _catalog_gaps(cat, m, req, acc, stack, fw, fw_reason, engine, precisions, by_device, priced)
        out.append(_Device(
            acc=acc, stack=stack, framework=fw, engine=engine, precisions=precisions[0],
            frameworks=_framework_candidates(cat, req, acc, stack, fw, precisions[0]) if not inference else (),
            capacity=(acc.specs.memory_gib.value if acc.specs.memory_gib else 0.0) * GiB,
            runtime=(stack.runtime_overhead_gib.value if stack.runtime_overhead_gib else 0.0) * GiB,
            fragmentation=stack_fragmentation(stack), weeks=weeks,
            offers=[offer_in_ranks(o, dies) for o in by_device.get(acc.id, [])],
            excluded=reason, unpriced=not priced, dies=dies,
            card_offers={o.id: o for o in by_device.get(acc.id, [])} if dies > 1 else {},
        ))
    return out


def _catalog_gaps(cat: Catalog, m: ModelArch, req: PlanRequest, acc: Accelerator, stack: SoftwareStack,
                  fw: Framework | None, fw_reason: Message | None, engine: str | None,
                  precisions: tuple[tuple[str, ...], Message], by_device: dict[str, list[Offer]], priced: bool
                  ) -> Message | None:
    """Every reason the catalog (or a pin) gives to leave `acc` out, most fundamental first (buyer review
    2026-12-01, issue 11: say exactly which figure is missing and that it is not public): no framework runs the
    task on its stack (or not with the pins), the model's heads do not split over the pinned tp, the stack cannot
    run the precision, then each unpublished figure (memory size, memory bandwidth, 16-bit peak), then no public
    price (`priced` only). One reason as itself, several as `why.all` (the JSON lists them: `why_not_reasons`);
    None when nothing rules it out."""
    gaps: list[Message] = []
    if fw_reason is not None:
        gaps.append(fw_reason)
    elif fw is not None and req.tp is not None and (heads := _tp_heads_refusal(m, fw, req.tp, engine, cat)):
        gaps.append(heads)
    if not precisions[0]:
        gaps.append(precisions[1])
    gaps += [Message(k) for k, v in (("why.no_memory_size", acc.specs.memory_gib),
                                     ("why.no_bandwidth", acc.specs.memory_bandwidth_gb_per_s)) if v is None]
    if precisions[0]:  # a 16-bit peak matters where the device runs a precision at all
        try:
            peak_flops_per_s(acc, "bf16")
        except EstimateError:
            gaps.append(Message("why.no_peak", precision="16-bit"))
    if priced and acc.id not in by_device:
        note = _both(lambda lg: unpriced_reason(cat, acc.id, lg))
        gaps.append(Message("why.unpriced", note=note) if note else _no_offer_reason(cat, acc.id, req))
    if not gaps:
        return None
    return gaps[0] if len(gaps) == 1 else Message("why.all", parts=gaps)


def why_not_reasons(reason: Message) -> list[Message]:
    """A why-not reason as the list of its reasons (`why.all`'s parts; else the one), in the order given."""
    parts = reason.params.get("parts") if reason.id == "why.all" else None
    return list(parts) if isinstance(parts, list | tuple) and parts else [reason]


def _device_name(acc: Accelerator) -> str | dict[str, str]:
    """The device's name in a message: the vendor's Chinese name in Chinese output where the catalog has one."""
    return both(acc.name, acc.name_zh)


def _both(note: Any) -> dict[str, str] | None:
    """A catalog note in both languages (`note(lang)`), for a message parameter the renderer picks from."""
    en, zh = note("en"), note("zh")
    return None if en is None else {"en": en, "zh": zh or en}


def _no_offer_reason(cat: Catalog, device: str, req: PlanRequest) -> Message:
    anywhere = [o for o in cat.offers if o.device == device]
    if not anywhere:
        return Message("why.no_price")
    kinds = sorted({o.kind for o in anywhere})
    regions = sorted({"international" if is_international(o.region) else "cn" for o in anywhere})

    def both(prefix: str, *values: str) -> dict[str, str]:  # region and kind codes in words in Chinese
        from suanli.i18n import messages

        zh = messages("zh")
        return {"en": "/".join(values), "zh": "/".join(zh.get(f"{prefix}.{v}", v) for v in values)}

    return Message("why.no_offer_region", kinds=both("price_kind", *req.offer_kinds),
                   region=both("price_region", req.region), have_kinds=both("price_kind", *kinds),
                   have_regions=both("price_region", *regions))


def default_serve_precisions(acc: Accelerator, stack: SoftwareStack) -> tuple[str, ...]:
    """The precisions a serving plan searches when --precision is not given: the model's release precision (bf16, or
    the FP8 checkpoint's fp8, both kept: `default_precision` picks) and one 8-bit scheme — fp8 where the device and
    stack run FP8 (`supports_fp8`), else int8 (W8A8 on Ascend, stacks.yaml int8_scheme). Never int4: its accuracy is
    not measured (quality.quantization_warnings), so a buyer asks for it (--precision int4 or any)."""
    return ("bf16", "fp8") if supports_fp8(acc, stack) else ("bf16", "int8")


def _precisions(cat: Catalog, req: PlanRequest, acc: Accelerator, stack: SoftwareStack,
                fw: Framework | None) -> tuple[tuple[str, ...], Message]:
    """Precisions to search on this device (capability rules from the catalog), or () and why not."""
    if req.task == "qlora":
        cands: tuple[str, ...] = ("nf4",)
    elif req.task == "inference":
        cands = SERVE_PRECISIONS if req.precision else default_serve_precisions(acc, stack)
    else:
        cands = ("bf16", "fp8") if fw is not None and fw.fp8 and supports_fp8_training(cat, acc, stack) else ("bf16",)
    if req.precision is not None and req.task != "qlora":
        cands = tuple(p for p in cands if p in req.precision) or req.precision
    ok = []
    why: Message | None = None
    for p in cands:
        errors, _ = capability_problems(acc, stack, req.task, "bf16" if p == "nf4" else p, None)
        if errors:
            why = why or Message("why.capability", text=errors[0])
        elif p == "fp8" and req.task == "inference" and not supports_fp8(acc, stack):
            why = why or Message("why.capability", text=f"no source says {stack.name} runs FP8 on {acc.name}")
        elif p == "fp8" and req.task != "inference" and not supports_fp8_training(cat, acc, stack):
            why = why or Message("why.no_fp8_training", family=acc.family, stack=_stack_name(stack))
        else:
            ok.append(p)
    return tuple(ok), why or Message("why.no_priced")


# ---------------------------------------------------------------------------------------------------- training


def _train_workload(req: PlanRequest, precision: str, **layout: Any) -> Workload:
    return make_workload(task=req.task, precision=precision, seq=req.seq, lora_rank=req.lora_rank,
                         lora_targets=req.lora_targets, tokens=req.tokens, **layout)


def _in_ranks(req: PlanRequest, dies: int) -> PlanRequest:
    """`req` on a card of `dies` dies: its card counts (`gpus`, `max_gpus`, typed in cards) in the ranks the grid
    counts (`catalog.ranks.ranks_of`: a 910C's `--gpus 8` is 16 ranks); one die a card: `req` as it is."""
    if dies == 1:
        return req
    return req.model_copy(update={"gpus": None if req.gpus is None else ranks_in(req.gpus, dies),
                                  "max_gpus": ranks_in(req.max_gpus, dies)})


def _flash(stack: SoftwareStack) -> bool:
    """Whether plans on this stack count activations with a fused (flash) attention kernel: only where a source
    says the stack has one (stacks.yaml flash_attention); otherwise the attention scores are counted."""
    return bool(stack.flash_attention is not None and stack.flash_attention.value)


def _tp_heads_refusal(m: ModelArch, fw: Framework, tp: int, engine: str | None = None,
                      cat: Catalog | None = None) -> Message | None:
    """Why a pinned tensor-parallel size cannot run `m` on `fw` (training) or `engine` (serving): the head rule
    `suanli estimate` applies too (tp_heads.tp_heads_refusal); None where it runs."""
    if engine is None:
        return tp_heads_refusal(m, tp, framework=fw.id, runner=fw.name, candidates=TP_SIZES)
    name = next((e.name for e in cat.engines if e.id == engine), engine) if cat is not None else engine
    return tp_heads_refusal(m, tp, engine=engine, runner=name, candidates=TP_SIZES)


def _offload_dp1_zero(fw: Framework, pinned: int | None) -> int:
    """The ZeRO stage an optimizer offload runs at on one data-parallel replica (-1: none): DeepSpeed's ZeRO-Offload
    "enables large models with up to 13 billion parameters to be efficiently trained on a single GPU", its tutorial's
    config at stage 2 (deepspeed.ai/tutorials/zero-offload, read 2026-12-01; ZeRO-Offload, Ren et al. 2021, arXiv
    2101.06840: "over 13 billion parameters on a single GPU"). Stage 2 where the framework offloads at it, else its
    lowest offload stage; a pinned --zero is that stage when the framework offloads at it."""
    stages = fw.offload_zero_stages
    if pinned is not None:
        return pinned if pinned in stages else -1
    return 2 if 2 in stages else (min(stages) if stages else -1)


def _layouts(req: PlanRequest, fw: Framework, moe: bool, layers: int,
             m: ModelArch | None = None, offload: bool = False) -> dict[str, np.ndarray]:
    """The framework's layouts (gpus × tp × pp × vpp × ep × zero × recompute × micro-batch), pins applied, generic
    validity pruned before any arithmetic (vidur's is_valid pruning). Virtual pipeline stages only where the
    framework runs the interleaved schedule, pp > 1 and the layers split into pp × vpp equal chunks. `offload` (the
    optimizer offloaded): a ZeRO stage runs without data parallelism too (`_offload_dp1_zero`)."""
    def pick(values: tuple[Any, ...], allowed: bool | tuple[Any, ...], pin: Any) -> list[Any]:
        vals = [v for v in values if (v in allowed if isinstance(allowed, tuple) else (allowed or v == 1))]
        return [v for v in vals if pin is None or v == pin] if pin is not None else vals

    gpu_counts = [req.gpus] if req.gpus is not None else [g for g in GPU_COUNTS if g <= req.max_gpus]
    tps = pick(TP_SIZES, fw.tp, req.tp)
    pps = [p for p in pick(PP_SIZES, runs_pp(fw, req.task), req.pp) if p <= max(layers, 1)]
    vpps = [req.vpp] if req.vpp is not None and fw.vpp else pick(VPP_SIZES, fw.vpp, req.vpp)
    eps = pick(EP_SIZES, fw.ep and moe, req.ep)
    zeros = [z for z in ZERO_STAGES if z in fw.zero_stages and (req.zero is None or z == req.zero)]
    recs = [RECOMPUTE.index(r) for r in RECOMPUTE if r in fw.recompute and (req.recompute is None or r == req.recompute)]
    axes = [gpu_counts, tps, pps, vpps, eps, zeros, recs, list(MICRO_BATCHES)]
    if any(len(a) == 0 for a in axes):
        return {k: np.zeros(0) for k in ("gpus", "tp", "pp", "vpp", "ep", "zero", "rec", "b")}
    # the product of the axes in order (gpus slowest, micro-batch fastest), each rule applied as soon as the axes it
    # reads are in: the rows kept, and their order, are the whole product's, without building it
    g = np.asarray(gpu_counts, dtype=float)
    rows: dict[str, np.ndarray] = {"g": g}
    rows = _axis(rows, "tp", tps)
    rows = _axis(rows, "pp", pps)
    g, tp, pp = rows["g"], rows["tp"], rows["pp"]
    valid = np.mod(g, tp * pp) == 0
    if m is not None:
        valid &= tp_heads_runs(m, tp, framework=fw.id)  # whole heads and KV heads per rank (tp_heads)
    rows = _axis(_rows(rows, valid), "vpp", vpps)
    pp, vpp = rows["pp"], rows["vpp"]
    valid = (vpp == 1) | ((pp > 1) & (np.mod(max(layers, 1), pp * vpp) == 0))
    if req.vpp is None:
        # more virtual stages shrink both the bubble and the extra activations (1 + (p − 1)/(p·v)) while the kernel
        # hides their sends, so v = 2 is dominated wherever v = 4 splits the layers: searched only where it does not
        valid &= ~((vpp == 2) & (np.mod(max(layers, 1), pp * 4) == 0))
    rows = _axis(_rows(rows, valid), "ep", eps)
    g, tp, pp, ep = rows["g"], rows["tp"], rows["pp"], rows["ep"]
    dp = g / (tp * pp)
    valid = np.mod(dp, ep) == 0
    valid &= (ep == 1) | (np.mod(m.moe.num_experts if m is not None and m.moe else 1, ep) == 0)  # whole experts a rank
    rows = _axis(_rows(rows, valid), "zero", zeros)
    g, tp, pp, zero = rows["g"], rows["tp"], rows["pp"], rows["zero"]
    dp = g / (tp * pp)
    # ZeRO shards nothing over one replica, so dp 1 runs ZeRO 0 — except to offload the optimizer, which DeepSpeed
    # runs through a ZeRO stage on one GPU too (`_offload_dp1_zero`); one stage there (they shard nothing alike)
    valid = (zero == 0) | (dp > 1) | ((zero == _offload_dp1_zero(fw, req.zero)) if offload else False)
    valid &= zero_runs(fw, tp, pp, dp, zero)  # the ZeRO stages the framework runs beside pipeline / tensor parallelism
    rows = _axis(_axis(_rows(rows, valid), "rec", recs), "b", list(MICRO_BATCHES))
    g, tp, pp, b = rows["g"], rows["tp"], rows["pp"], rows["b"]
    dp = g / (tp * pp)
    rows = _rows(rows, b * dp <= max(req.global_batch, 1))  # a step holds at most the global batch
    return {"gpus": rows["g"], "tp": rows["tp"], "pp": rows["pp"], "vpp": rows["vpp"], "ep": rows["ep"],
            "zero": rows["zero"].astype(int), "rec": rows["rec"].astype(int), "b": rows["b"]}


def _axis(rows: dict[str, np.ndarray], name: str, values: list[Any]) -> dict[str, np.ndarray]:
    """Each row once per value of the next axis `name` (the product's order: the new axis varies fastest)."""
    n = len(values)
    out = {k: np.repeat(v, n) for k, v in rows.items()}
    out[name] = np.tile(np.asarray(values, dtype=float), rows["g"].shape[0])
    return out


def _rows(rows: dict[str, np.ndarray], valid: np.ndarray) -> dict[str, np.ndarray]:
    keep = np.nonzero(valid)[0]
    return {k: v[keep] for k, v in rows.items()}


# optimizer options searched per layout (grid["opt"]): the plain AdamW, then the memory-saving measures teams use when it
# does not fit: DeepSpeed ZeRO-Offload (states and step on the host CPU; frameworks.yaml offload_zero_stages) and
# bitsandbytes' 8-bit AdamW (CUDA, ZeRO 0; adamw8bit_stacks). A measure is kept only on a device and card count where
# no plain layout fits with room (`_keep_fallbacks_of`: one that fits only within the known memory error and that the
# pooled bias says is likely short, `_memory_fails`, does not count), so it never displaces a plainer plan that fits
# on the same cards (it may still beat more cards of it)
OPT_PLAIN, OPT_OFFLOAD, OPT_8BIT = 0, 1, 2
_OPT_WORKLOAD: dict[int, dict[str, Any]] = {OPT_PLAIN: {}, OPT_OFFLOAD: {"offload_optimizer": True},
                                            OPT_8BIT: {"optimizer": "adamw8bit"}}


def _optimizer_options(fw: Framework, stack: SoftwareStack, req: PlanRequest) -> list[int]:
    if req.task not in ("full", "pretrain"):  # LoRA's adapter states are small: nothing to save there
        return [OPT_PLAIN]
    # the rule estimate applies (capability.optimizer_zero_stages): offload where the framework offloads, 8-bit
    # AdamW on its adamw8bit_stacks
    return ([OPT_PLAIN] + ([OPT_OFFLOAD] if optimizer_zero_stages(fw, stack.id, offload=True) else [])
            + ([OPT_8BIT] if optimizer_zero_stages(fw, stack.id, False, "adamw8bit") else []))


def _keep_fallbacks(grid: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Drop the memory-saving rows (offload, 8-bit) of a device and card count on which a plain layout fits."""
    return _keep_fallbacks_of([grid])[0]


def _keep_fallbacks_of(parts: list[dict[str, np.ndarray]], bands: dict[str, ErrorBand] | None = None,
                       req: PlanRequest | None = None, devs: list[_Device] | None = None) -> list[dict[str, np.ndarray]]:
    """`_keep_fallbacks` over the grid the parts make together, part by part (the rows kept are the same; each part
    is copied once, before it is concatenated). With `bands` a plain layout that fits only within the known memory
    error and is likely short (`_memory_fails`, the evidence step's memory check) does not count as fitting: the
    measures stay searched on that card count (buyer review 2026-12-03: 8× H800 plain AdamW at 66.8 of 67.7 GiB,
    demoted, left only 4 cards with offload, 4 of the 8 paid idle)."""
    keys = [p["dev"] * 1_000_000 + p["gpus"] for p in parts]
    plain = []
    for k, p in zip(keys, parts):
        ok = (p["opt"] == OPT_PLAIN) & p["fits"]
        if bands and req is not None and devs is not None and ok.any():
            ok[ok] = ~_memory_fails(bands, req, devs, p["dev"][ok], p["mem"][ok], p["usable"][ok])
        plain.append(k[ok])
    plain_fits = np.unique(np.concatenate(plain)) if plain else np.zeros(0)
    out = []
    for k, p in zip(keys, parts):
        keep = (p["opt"] == OPT_PLAIN) | ~np.isin(k, plain_fits)
        out.append(p if keep.all() else {name: v[keep] for name, v in p.items()})
    return out


def _concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    keys = parts[0].keys() if parts else []
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}


def _train_grid(cat: Catalog, m: ModelArch, req: PlanRequest, devs: list[_Device],
                bands: dict[str, ErrorBand] | None = None) -> tuple[dict[str, np.ndarray], int]:
    """Training configurations, device × framework × precision × optimizer option × layout, through the estimator's
    kernels; the memory-saving measures only where no plain layout fits with room (`_keep_fallbacks_of`, `bands`)."""
    # (framework, precision, flash, optimizer option, the framework's place among the device's: 0 its default)
    groups: dict[tuple[str, str, bool, int, int, int], list[int]] = {}  # … and the device's dies (cards in ranks)
    for i, d in enumerate(devs):
        if d.excluded is None and d.framework is not None:
            done: set[tuple[Any, ...]] = set()  # several frameworks searched: each distinct set of rows once
            for rank, (f, precisions) in enumerate(d.frameworks or ((d.framework, d.precisions),)):
                for p in precisions:
                    for opt in _optimizer_options(f, d.stack, req):
                        if d.frameworks:
                            if (sig := (_fw_signature(cat, f, opt), p, opt)) in done:
                                continue
                            done.add(sig)
                        groups.setdefault((f.id, p, _flash(d.stack), opt, rank, d.dies), []).append(i)
    parts: list[dict[str, np.ndarray]] = []
    n_grid = 0
    fws = {f.id: f for f in cat.frameworks}
    fw_index = {f.id: j for j, f in enumerate(cat.frameworks)}
    # what does not depend on the group, once: each device's node size, whether an offer spans nodes, its networks
    # (padded with NaN to one table), runtime, capacity and fragmentation
    per_node_all = np.array([d.acc.max_cards_per_node for d in devs], dtype=float)
    spans_all = np.array([d.unpriced or any(can_span_nodes(o) for o in d.offers) for d in devs], dtype=bool)
    nets = [_networks(d) for d in devs]
    n_nets = np.array([len(n) for n in nets], dtype=int)
    net_table = np.full((len(devs), int(n_nets.max(initial=1))), np.nan)
    for j, n_ in enumerate(nets):
        net_table[j, :len(n_)] = n_
    runtime_all = np.array([d.runtime for d in devs])
    cap_all = np.array([d.capacity for d in devs])
    frag_all = np.array([d.fragmentation for d in devs])
    # what depends on the framework and optimizer option only (not the precision or the device): the layouts, the
    # tensor-parallel overlap per device; on the workload only: its terms; on the workload and device: its rates
    layouts: dict[tuple[str, int, int], dict[str, np.ndarray]] = {}
    overlaps: dict[str, np.ndarray] = {}
    terms_of: dict[tuple[str, str, bool, int], tuple[Any, ...]] = {}
    rates_of: dict[tuple[tuple[str, str, bool, int], int], Any] = {}
    # each device's default framework's rows first (a stable sort: one framework keeps its order), so that of equal
    # rows the default is planned (the ranking's sorts are stable)
    for (fw_id, precision, flash, opt, _, dies), idx in sorted(groups.items(), key=lambda g: g[0][4]):
        fw = fws[fw_id]
        lay = layouts.get((fw_id, opt, dies))
        if lay is None:  # the request's cards in the group's ranks (a 910C: 2 a card)
            lay = _layouts(_in_ranks(req, dies), fw, m.moe is not None, m.num_layers or 0, m, offload=opt == OPT_OFFLOAD)
            if opt != OPT_PLAIN:  # offload with the ZeRO stages the framework offloads at; 8-bit states unsharded only
                z_ok = np.isin(lay["zero"], optimizer_zero_stages(fw, "", offload=True) if opt == OPT_OFFLOAD else (0,))
                lay = {k: v[z_ok] for k, v in lay.items()}
            layouts[(fw_id, opt, dies)] = lay
        n_lay = lay["gpus"].shape[0]
        n_grid += n_lay * len(idx)
        if n_lay == 0:
            continue
        wkey = (fw_id, precision, flash, opt)
        if wkey not in terms_of:
            w = _train_workload(req, precision, flash_attention=flash, framework=fw_id,  # framework: its train_mfu row
                                **_OPT_WORKLOAD[opt])
            mt = training_memory_terms(m, w, cat)
            terms_of[wkey] = (w, mt, training_speed_terms(m, w, cat),
                              setup_terms(cat, m, req.task, mt.trainable, optimizer_bytes_per_param(w)))
        w, mt, st, terms = terms_of[wkey]
        # rows: each device of the group × each layout (device-major), as indices into devs and the layouts
        di = np.repeat(np.array(idx), n_lay)
        li = np.tile(np.arange(n_lay), len(idx))
        per_node = per_node_all[di]
        gpus, tp_ = lay["gpus"][li], lay["tp"][li]
        ok = (tp_ <= per_node) & ((gpus <= per_node) | (np.mod(gpus, per_node) == 0))
        # a multi-node job needs an offer whose nodes have an inter-node fabric (or a cluster)
        ok &= (gpus <= per_node) | spans_all[di]
        sel = np.nonzero(ok)[0]
        di, li = di[sel], li[sel]
        # a multi-node row is evaluated once per network its device's spanning offers publish (the rented
        # network caps the link data: scaling.rented_inter_node_bytes_per_s) and priced only on those offers
        multi = gpus[sel] > per_node_all[di]
        reps = np.where(multi, n_nets[di], 1)
        row = np.repeat(np.arange(di.shape[0]), reps)
        within = np.arange(row.shape[0]) - np.repeat(np.cumsum(reps) - reps, reps)
        di, li = di[row], li[row]
        net = np.where(multi[row], net_table[di, within], np.nan)
        L = {k: v[li] for k, v in lay.items()}
        tp, pp, vpp, ep, zero, rec, b = L["tp"], L["pp"], L["vpp"], L["ep"], L["zero"], L["rec"], L["b"]
        dp = L["gpus"] / (tp * pp)
        ga = np.ceil(req.global_batch / (b * dp))
        mem = training_memory(mt, tp, pp, dp, ep, zero, rec, b, ga, vpp=vpp)
        needed = sum(mem.values()) + runtime_all[di]
        cap = cap_all[di]
        usable = usable_memory_bytes(cap, frag_all[di], None)
        fits = needed <= usable
        in_group = set(idx)
        for i in in_group:
            if (wkey, i) not in rates_of:
                rates_of[(wkey, i)] = _try(lambda: training_rates(cat, devs[i].acc, w)[0])
        rates = _stack_rates([rates_of[(wkey, i)] if i in in_group else None for i in range(len(devs))], di)
        rates["inter_bw"] = rented_inter_node_bytes_per_s(rates["inter_bw"], net)
        # the framework's tensor-parallel communication overlap, where it has one and the device's link runs it
        # (capability.tp_overlap_runs: Transformer Engine's userbuffers need an NVLink domain), is assumed switched on
        if fw_id not in overlaps:
            overlaps[fw_id] = np.array([tp_overlap_runs(fw, d.acc) for d in devs])
        overlap = overlaps[fw_id][di]
        k = training_step(st, tp, pp, dp, ep, zero, rec, b, ga, rates, vpp=vpp, tp_overlap=overlap,
                          offload=opt == OPT_OFFLOAD)
        compute_h = job_hours(float(req.tokens or 0), k["tokens_per_s"])
        per_node = per_node_all[di]
        nodes = np.ceil(L["gpus"] / per_node)
        su = setup_hours(terms, compute_h, nodes, L["gpus"])
        parts.append({
            "dev": di, "gpus": L["gpus"], "tp": tp, "pp": pp, "vpp": vpp, "dp": dp, "ep": ep, "zero": zero, "rec": rec,
            "b": b, "ga": ga, "mem": needed, "usable": usable, "cap": cap, "fits": fits,
            "fail": np.where(fits, 0, F_MEMORY), "tok_s": k["tokens_per_s"], "compute_h": compute_h, "setup_h": su["total_h"],
            "hours": compute_h + su["total_h"], "scaling": k["scaling"],
            "prec": np.full(di.shape, SERVE_PRECISIONS.index(precision) if precision in SERVE_PRECISIONS else -1),
            "replicas": np.zeros(di.shape), "ttft": np.full(di.shape, np.nan), "tpot": np.full(di.shape, np.nan),
            "net": net, "dl_bytes": np.full(di.shape, terms.download_bytes), "dl_h": su["download_h"],
            "dl_gbit": np.full(di.shape, np.nan), "billed": np.ones(di.shape), "first_h": np.full(di.shape, np.nan),
            "opt": np.full(di.shape, opt),
            "fw": np.full(di.shape, fw_index[fw_id]),  # the framework the row runs (index into cat.frameworks)
            # host RAM per node the offloaded optimizer needs (the estimate's kernel); no offer states its host memory
            "host_b": (offload_host_bytes_per_node(mt.trainable, L["gpus"], per_node, zero)
                       if opt == OPT_OFFLOAD else np.zeros(di.shape)),
        })
    if not parts:
        return _empty(), n_grid
    return _concat(_keep_fallbacks_of(parts, bands, req, devs)), n_grid


def _searched(d: _Device) -> list[Framework]:
    """The frameworks searched on `d` (`_framework_candidates`; its one framework where it has no list)."""
    return [f for f, _ in d.frameworks] if d.frameworks else ([d.framework] if d.framework is not None else [])


def _row_device(cat: Catalog, d: _Device, grid: dict[str, np.ndarray], i: int) -> _Device:
    """`d` as grid row `i` runs it: with the framework the row was searched under (grid["fw"]) as its framework."""
    if "fw" not in grid or i >= grid["fw"].shape[0]:
        return d
    fw = cat.frameworks[int(grid["fw"][i])]
    return d if d.framework is fw else replace(d, framework=fw)


# the columns a layout is (with the network): rows alike in all of them are one layout under several frameworks
_LAYOUT_COLUMNS = ("dev", "gpus", "tp", "pp", "vpp", "ep", "zero", "rec", "b", "opt", "prec")


def _layout_code(cols: list[np.ndarray]) -> np.ndarray | None:
    """One int64 per row, equal where the rows are equal in every column: each column's whole values in mixed radix
    (value − the column's least, times the spans of the columns after it). None where a column holds a fraction or
    a non-finite value, or the spans' product passes 2^62 (the caller then compares the columns themselves). One
    sort of one integer instead of a lexsort of twelve columns (the MoE Megatron plan: ~20 ms of ~100)."""
    code = np.zeros(cols[0].shape[0], dtype=np.int64)
    room = 1
    for c in cols:
        lo, hi = float(c.min()), float(c.max())
        if not (math.isfinite(lo) and math.isfinite(hi)):
            return None
        span = int(hi - lo) + 1
        room *= span
        if room > 2**62 or not bool((c == np.floor(c)).all()):
            return None
        code = code * span + (c - lo).astype(np.int64)
    return code


def _one_framework_per_layout(grid: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """One row per device and layout (cards, tp, pp, vpp, ep, ZeRO, recompute, micro-batch, optimizer option,
    precision, network) where several frameworks run it: the fastest that fits, ties to the earlier framework (the
    grid holds each device's frameworks in capability.framework_order), the first where none fits — the rule
    `suanli estimate` assumes a framework by (estimate.assumed_framework), so a plan's layout re-estimated without
    --framework runs under the plan's framework."""
    n = int(grid["dev"].shape[0])
    if n < 2 or "fw" not in grid:
        return grid
    cols = [grid[k] for k in _LAYOUT_COLUMNS] + [np.nan_to_num(grid["net"], nan=-1.0)]
    group: np.ndarray | None = _layout_code(cols)  # rows alike in every column share a code
    if group is not None:
        codes = np.sort(group)
        if bool((codes[1:] != codes[:-1]).all()):  # every layout under one framework
            return grid
    else:  # a column no code holds: sort by the columns (the first one primary), a new group where any changes —
        # np.unique(axis=0) gives the same groups but sorts a structured view, ~10× slower
        keys = np.stack([c.astype(float) for c in cols], axis=1)
        by_keys = np.lexsort(keys.T[::-1])
        ordered = keys[by_keys]
        group = np.empty(n, dtype=int)
        group[by_keys] = np.cumsum(np.r_[True, np.any(ordered[1:] != ordered[:-1], axis=1)]) - 1
        if int(group.max()) + 1 == n:  # every layout under one framework
            return grid
    fits = grid["fits"].astype(bool)
    tok = np.where(fits & np.isfinite(grid["tok_s"]), grid["tok_s"], -np.inf)
    order = np.lexsort((np.arange(n), -tok, ~fits, group))  # per layout: fitting first, fastest, earliest
    g = group[order]
    keep = np.sort(order[np.r_[True, g[1:] != g[:-1]]])
    return {k: v[keep] for k, v in grid.items()}


def _networks(d: _Device) -> list[float]:
    """The distinct inter-node networks (Gbit/s per node; NaN = not published) of a device's spanning offers."""
    out: list[float] = []
    for o in d.offers:
        if can_span_nodes(o):
            g = o.inter_node_gbit_per_s.value if o.inter_node_gbit_per_s else float("nan")
            if not any((math.isnan(g) and math.isnan(x)) or g == x for x in out):
                out.append(g)
    return out or [float("nan")]


def _empty() -> dict[str, np.ndarray]:
    keys = ("dev", "gpus", "tp", "pp", "vpp", "dp", "ep", "zero", "rec", "b", "ga", "mem", "usable", "cap", "fits", "fail", "tok_s",
            "compute_h", "setup_h", "hours", "scaling", "prec", "replicas", "ttft", "tpot", "net", "dl_bytes", "dl_h",
            "dl_gbit", "billed", "first_h", "opt", "host_b", "fw", *_AT_MOST_KEYS)
    out = {k: np.zeros(0) for k in keys}
    out["dev"] = out["dev"].astype(int)
    out["fits"] = out["fits"].astype(bool)
    out["fail"] = out["fail"].astype(int)
    return out


def _try(f: Any) -> Any:
    try:
        return f()
    except EstimateError:
        return None  # a device without the rates it needs gets NaN times: never fits the ranking


_RATE_KEYS = ("peak", "eff", "bw", "e_mm", "e_bw", "e_stream", "overhead", "sm_count", "intra_bw", "intra_lat",
              "inter_bw", "inter_lat", "cards_per_node", "linear_call_s", "intra_half", "inter_half", "moe_routed_s",
              "cpu_adam_s", "h2d_bw")


def _stack_rates(rows: list[dict[str, float] | None], di: np.ndarray) -> dict[str, np.ndarray]:
    """Per-configuration device rates: each device's scalar rates gathered by device index."""
    nan = [np.nan] * len(_RATE_KEYS)
    table = np.array([[r.get(k, np.nan) for k in _RATE_KEYS] if r is not None else nan for r in rows],
                     dtype=float).reshape(len(rows), len(_RATE_KEYS))
    gathered = np.take(np.ascontiguousarray(table.T), di, axis=1)  # one gather: a row per rate, each contiguous
    return {k: gathered[j] for j, k in enumerate(_RATE_KEYS)}


# ---------------------------------------------------------------------------------------------------- serving


def _serve_batches(req: PlanRequest, tps: list[int]) -> np.ndarray:
    """The concurrent batches searched: `SERVE_BATCHES`, and with concurrent users the batch ceil(users / r) for each
    replica count r (r = gpus / tp when the count is pinned), so that r replicas hold every user without the next
    power of two's extra replica (50 users: 3 × b17, not 4 × b16); at most `MAX_USER_BATCHES` of them, evenly
    picked, none above the largest of `SERVE_BATCHES`. Unpinned, r runs over every count up to the users, whatever
    --max-gpus: the batches searched do not depend on the card limit, so a larger limit searches a superset and never
    finds a dearer best plan (task C 2026-12-03: 2,000 users of Qwen2.5-72B on 910Bs, max_gpus 200 found 25 × b80,
    ¥377,500; 512 picked other batches and found 26 × b77, ¥392,500)."""
    base = np.array(SERVE_BATCHES, dtype=float)
    if not req.concurrent_users:
        return base
    r = (np.array([req.gpus // t for t in tps], dtype=float) if req.gpus is not None
         else np.arange(1, req.concurrent_users + 1, dtype=float))
    extra = np.setdiff1d(np.unique(np.ceil(req.concurrent_users / r[r > 0])), base)
    extra = extra[extra <= base[-1]]
    if extra.size > MAX_USER_BATCHES:
        extra = extra[np.unique(np.linspace(0, extra.size - 1, MAX_USER_BATCHES).round().astype(int))]
    return np.sort(np.concatenate([base, extra]))


def _served_tok_s(st: Any, tp: np.ndarray, b: np.ndarray, rates: dict[str, np.ndarray], output: int,
                  ep: Any = 1.0, links: StepLinks | None = None) -> np.ndarray:
    """Output tokens/s one replica serves in steady state with `b` requests in flight: each request costs the card
    its own prefill and `output` tokens of decode, so b requests per prefill of b prompts + (output − 1) decode steps
    (`inference_step`'s total_s, `estimate`'s output_tokens_per_s and compare's capacity: one figure), never more than
    the layout's full batch gives. `ep`: the replicas sharing one set of routed experts (`inference_step`). `links`:
    `step_links(st, tp, ep, rates)`, computed once by a caller that steps the same layouts at many batches."""
    return np.asarray(served_tokens_per_s(b, output, inference_step(st, tp, ep, b, rates, links=links)["total_s"]))


_AT_MOST_KEYS = ("max_b", "max_rps", "max_tpot", "max_ttft", "max_mem", "comf_b", "comf_rps", "comf_thin",
                 "next_fail", "next_tpot", "next_ttft", "next_mem")


def _serve_checks(st: Any, mt: Any, tp: np.ndarray, b: np.ndarray, rates: dict[str, np.ndarray],
                  pool: np.ndarray | None, runtime: np.ndarray, usable: np.ndarray, req: PlanRequest, steady: bool,
                  limits: dict[str, np.ndarray] | None = None, fail_only: bool = False,
                  ep: Any = 1.0, links: StepLinks | None = None) -> dict[str, Any]:
    """The one serving predicate: each configuration at `b` requests in flight per replica through the inference
    kernels, its failed targets as bits (F_MEMORY: does not fit or has no speed; F_TPOT: the TPOT — `steady`, the
    steady-state one (`steady_tpot_s`), else the decode step — over --tpot (`tpot_within`); F_TTFT: the joining TTFT
    over --ttft) in `fail`, and with `limits` (`_warn_limits`) the margins plan warns of in `thin` (same bits: TPOT or
    TTFT margin, memory headroom under the stack's known error, `margin_warned`). Plan's rows at the batch each
    replica runs (`_serve_grid`) and the capacity search (`_serve_at_most`: the largest batch, the largest one
    without a warning) both call it, so "serve at most N req/s" is the rate plan serves (task D 2026-12-01).
    `fail_only` (the capacity search's bisection, which reads `fail` and `thin` alone): the joining TTFT only where
    --ttft judges it (else None). `links`: as `_served_tok_s`'s."""
    k = inference_step(st, tp, ep, b, rates, links=links)
    needed = needed_bytes(inference_memory(mt, tp, 1.0, ep, b, pool)) + runtime
    per_replica = np.asarray(served_tokens_per_s(b, req.output, k["total_s"]))
    tpot = steady_tpot_s(k["step_s"], k["prefill_s"], req.output) if steady else k["step_s"]
    ttft: Any = (joining_ttft_s(st, tp, ep, b, rates, k["step_s"], links=links)  # requests join the running batch
                 if not fail_only or req.ttft_s is not None else None)
    fail = np.where((needed <= usable) & np.isfinite(per_replica), 0, F_MEMORY)
    if req.tpot_s is not None:
        # one output token: no TPOT applies, a batch job's decode step included (fb33107's rule, `tpot_within`)
        fail |= np.where(tpot_within(tpot, req.tpot_s, req.output), 0, F_TPOT)
    if req.ttft_s is not None:
        fail |= np.where(ttft <= req.ttft_s, 0, F_TTFT)
    out: dict[str, Any] = {"k": k, "mem": needed, "per_replica": per_replica, "tpot": tpot, "ttft": ttft,
                           "fail": fail}
    if limits is not None:
        thin = np.zeros(np.shape(fail), dtype=int)
        for bit, target, est in ((F_TPOT, req.tpot_s if req.output > 1 else None, tpot), (F_TTFT, req.ttft_s, ttft)):
            if target:
                thin |= np.where(margin_warned(latency_margin_pct(est, target), limits[str(bit)]), bit, 0)
        thin |= np.where(margin_warned(memory_headroom_pct(needed, usable), limits[str(F_MEMORY)]), F_MEMORY, 0)
        out["thin"] = thin
    return out


def _warn_limits(bands: dict[str, ErrorBand], devs: list[_Device], di: np.ndarray,
                 req: PlanRequest) -> dict[str, np.ndarray] | None:
    """Per configuration, the margin (%) under which plan warns (`warn_limit`) on its TPOT (key str(F_TPOT)), TTFT
    (str(F_TTFT)) and memory headroom (str(F_MEMORY)); NaN where it never does. None without bands."""
    if not bands:
        return None
    out = {str(bit): np.full(di.shape, np.nan) for bit in (F_TPOT, F_TTFT, F_MEMORY)}
    for j in np.unique(di):
        stack = devs[int(j)].stack.id
        for bit, group, memory in ((F_TPOT, "decode-speed", False), (F_TTFT, "prefill-speed", False),
                                   (F_MEMORY, memory_group(req.task), True)):
            limit = warn_limit(bands, stack, group, memory)
            out[str(bit)][di == j] = np.nan if limit is None else limit
    return out


def _largest_batch(ok: Any, shape: tuple[int, ...]) -> np.ndarray:
    """The largest whole batch up to SERVE_BATCHES' last for which `ok(batch)` holds, per configuration (each
    check only gets worse as the batch grows: bisection); 0 where not even batch 1 does."""
    lo, hi = np.zeros(shape), np.full(shape, float(SERVE_BATCHES[-1]))
    while np.any(lo < hi):
        open_ = lo < hi
        mid = np.maximum(np.ceil((lo + hi) / 2), 1.0)
        good = ok(mid)
        lo = np.where(open_ & good, mid, lo)
        hi = np.where(open_ & ~good, mid - 1, hi)
    return lo


def _serve_at_most(st: Any, mt: Any, tp: np.ndarray, rates: dict[str, np.ndarray], replicas: np.ndarray,
                   pool: np.ndarray | None, runtime: np.ndarray, usable: np.ndarray,
                   req: PlanRequest, limits: dict[str, np.ndarray] | None = None,
                   di: np.ndarray | None = None, ep: Any = 1.0) -> dict[str, np.ndarray]:
    """The most requests/s each configuration's replicas serve within the request's targets, by plan's own row check
    (`_serve_checks`, steady-state TPOT): the largest whole batch up to SERVE_BATCHES' last that passes it (`max_b`),
    served at replicas × b / total_s(b) (`max_rps`: a rate up to it is served, `_run_batch` finds a batch no larger;
    just above it plan finds none on that tp); `plan`'s rate hint, its why-not and compare's capacity quote it. With
    `limits` (the bands', `_warn_limits`), also the largest batch at which plan attaches no margin warning
    (`comf_b`, `comf_rps`: up to that rate plan warns of no thin margin, above it it does) and the margins thin at
    the next batch (`comf_thin`, bits). max_b 0: not even batch 1 meets them. What binds the batch at max_b: the
    targets batch max_b + 1 fails (`next_fail`, bits; 0 where max_b is SERVE_BATCHES' last, the largest searched) and
    its TPOT, TTFT and memory (`next_tpot`, `next_ttft`, `next_mem`), with concurrent users only (NaN else): their
    quote names it (`_users_quote`). `di`: the device of each row — the batch searched is no input here, so rows
    that differ only in it are searched once. `ep`: expert-parallel replicas sharing the routed experts."""
    ep = np.broadcast_to(np.asarray(ep, dtype=float), tp.shape)
    if di is not None and tp.size:
        n = tp.shape[0]
        _, u, inv = np.unique(np.stack([di.astype(float), tp, ep]), axis=1, return_index=True, return_inverse=True)
        inv = inv.reshape(-1)
        if u.size < n:
            def sub(v: Any) -> Any:
                return v[u] if isinstance(v, np.ndarray) and v.shape[:1] == (n,) else v

            one = _serve_at_most(st, mt, tp[u], {k_: sub(v) for k_, v in rates.items()}, np.ones(u.size),
                                 sub(pool), sub(runtime), sub(usable), req,
                                 None if limits is None else {k_: sub(v) for k_, v in limits.items()}, ep=ep[u])
            out_ = {k_: v[inv] for k_, v in one.items()}
            out_["max_rps"] = np.where(out_["max_b"] > 0, out_["max_rps"] * replicas, 0.0)
            out_["comf_rps"] = np.where(out_["comf_b"] > 0, out_["comf_rps"] * replicas, 0.0)
            return out_

    links = step_links(st, tp, ep, rates)  # the layouts' links, whatever the batch searched

    def at(bb: np.ndarray, lim: dict[str, np.ndarray] | None = None, fail_only: bool = False) -> dict[str, Any]:
        return _serve_checks(st, mt, tp, bb, rates, pool, runtime, usable, req, True, lim, fail_only, ep, links)

    def easy(bb: np.ndarray) -> np.ndarray:
        c_ = at(bb, limits, fail_only=True)
        return np.asarray((c_["fail"] == 0) & (c_["thin"] == 0))

    lo = _largest_batch(lambda bb: np.asarray(at(bb, fail_only=True)["fail"] == 0), tp.shape)
    b = np.maximum(lo, 1.0)
    c = at(b)
    rps = np.where(lo > 0, replicas * c["per_replica"] / req.output, 0.0)
    out = {"max_b": lo, "max_rps": rps, "max_tpot": c["tpot"], "max_ttft": c["ttft"], "max_mem": c["mem"],
           **{k_: np.full(tp.shape, np.nan) for k_ in ("next_fail", "next_tpot", "next_ttft", "next_mem")}}
    if req.concurrent_users:  # the batch just past the largest that passes: what binds the users' quote
        top = float(SERVE_BATCHES[-1])
        nx = at(np.minimum(lo + 1, top))
        out.update({"next_fail": np.where(lo < top, nx["fail"], 0).astype(float), "next_tpot": nx["tpot"],
                    "next_ttft": nx["ttft"], "next_mem": nx["mem"]})
    if limits is None:
        return {**out, "comf_b": lo, "comf_rps": rps, "comf_thin": np.zeros(tp.shape)}
    clo = _largest_batch(easy, tp.shape)
    cb = np.maximum(clo, 1.0)
    crps = np.where(clo > 0, replicas * at(cb)["per_replica"] / req.output, 0.0)
    nxt = at(np.minimum(clo + 1, np.maximum(lo, 1.0)), limits)["thin"]
    return {**out, "comf_b": clo, "comf_rps": crps, "comf_thin": np.where(clo < lo, nxt, 0).astype(float)}


def round_down_rate(x: float, digits: int = 3) -> float:
    """`x` rounded down to `digits` significant figures (a rate lowered to it is still served)."""
    if not math.isfinite(x) or x <= 0:
        return x
    step = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return float(f"{math.floor(x / step * (1 + 1e-12)) * step:.{digits}g}")  # 44.8, not 44.800000000000004


def capacity_configs(grid: dict[str, np.ndarray]) -> np.ndarray:
    """The one place that decides "serve at most N req/s on G cards of D, at tp T, batch B": the capacity
    configuration (grid index) of each device on each card count, highest rate first — of its configurations with a
    serve-at-most rate (`_serve_at_most`, plan's own row check `_serve_checks` at the largest batch), the highest
    (equal rates: the earlier in grid order), over every tp and precision searched. No evidence step: plan serves any
    rate up to it on that configuration (the evidence step warns or demotes, never refuses), and none above it on
    those cards, so the quote is the largest rate plan returns the configuration for (task D 2026-12-01: the quote
    said 48.0 where plan served 48.48); where plan would warn of a thin margin below it, the quote says from which
    rate (`comf_rps`, `_rate_thin`). Plan's "serve at most" (`_capacity_rates`), `serving_capacity` and compare's
    capacity row all take it from here; the quoted rate is rounded down (`round_down_rate`)."""
    ok = np.nonzero((grid["max_b"] >= 1) & (grid["max_rps"] > 0))[0]
    if not ok.size:
        return ok
    ok = ok[np.lexsort((ok, -grid["max_rps"][ok]))]  # highest rate first, equal rates in grid order
    key = np.stack([grid["dev"][ok].astype(float), grid["gpus"][ok].astype(float)])
    _, first = np.unique(key, axis=1, return_index=True)
    return ok[np.sort(first)]


def capacity_user_configs(grid: dict[str, np.ndarray], rentable: np.ndarray | None = None) -> np.ndarray:
    """"Hold at most N concurrent users on G cards of D", the users' counterpart of `capacity_configs` and the same
    rule: each user keeps a request in flight, so N users take N slots of the running batches, replicas × batch, and
    plan accepts N users on a configuration exactly when the batch ⌈N / replicas⌉ passes its row check
    (`_serve_checks`: memory, TPOT, TTFT; the rate the users send, N ÷ (TTFT + output × TPOT), is then carried too,
    as a batch's total time is within output × its steady-state TPOT). So the most is replicas × `max_b`, the largest
    batch that passes (`_serve_at_most`); per device and card count the configuration with the most, over every tp
    and precision searched (equal counts: the earlier in grid order). Plan's why-not and relax hint and compare's
    `max_users` all take it from here (task H 2026-12-01: plan said 32 users on 8 RTX 4090s, compare showed tp4 × 2
    holding 48 within 50 ms). `rentable` (a mask, `_rentable`): only the configurations an offer rents count (task C
    2026-12-03: plan's hint said 128 users on 8 H20s, the sampled batch 16 of tp1, beside tp2's 232 that no 1-card
    offer rents; compare said tp1's 192)."""
    users = grid["replicas"] * grid["max_b"]
    ok = np.nonzero((grid["max_b"] >= 1) & np.isfinite(users) & (True if rentable is None else rentable))[0]
    if not ok.size:
        return ok
    ok = ok[np.lexsort((ok, -users[ok]))]  # most users first, equal counts in grid order
    key = np.stack([grid["dev"][ok].astype(float), grid["gpus"][ok].astype(float)])
    _, first = np.unique(key, axis=1, return_index=True)
    return ok[np.sort(first)]


def _users_quote(grid: dict[str, np.ndarray], i: int, req: PlanRequest, dies: int = 1) -> Message | None:
    """What holds the users on configuration `i`'s device and card count to `cap_users` (`capacity_user_configs`),
    with its numbers: the slots (tp × replicas × batch) and the limit the next batch per replica misses — TPOT,
    TTFT, memory, or the largest batch searched. None where no batch meets the targets."""
    j = int(grid["cap_users_i"][i]) if "cap_users_i" in grid else -1
    if j < 0:
        return None
    batch, nxt, bits = int(grid["max_b"][j]), int(grid["max_b"][j]) + 1, int(grid["next_fail"][j])
    if bits & F_MEMORY:
        limit = Message("users.limit.memory", batch=nxt, need_gib=float(grid["next_mem"][j]) / GiB,
                        usable_gib=float(grid["usable"][j]) / GiB)
    elif bits & F_TPOT:
        limit = Message("users.limit.tpot", batch=nxt, ms=float(grid["next_tpot"][j]) * 1000, field="tpot_s",
                        limit_ms=round((req.tpot_s or 0.0) * 1000, 3))
    elif bits & F_TTFT:
        limit = Message("users.limit.ttft", batch=nxt, ms=float(grid["next_ttft"][j]) * 1000, field="ttft_s",
                        limit_ms=round((req.ttft_s or 0.0) * 1000, 3))
    else:
        limit = Message("users.limit.batch", batch=batch)
    replicas = int(grid["replicas"][j])
    # the precision it is at, named: plan's most is over every precision searched, compare's at its row's (buyer
    # review 2026-12-01, 7: plan's 152 users were int8, compare's 128 bf16, both "plan's figure")
    # an expert-parallel layout names its groups (`labels.replica_words`; a card of `dies` dies, the 910C, in dies)
    tp, ep = int(grid["tp"][j]), int(grid["ep"][j]) if "ep" in grid else 1
    layout = {"layout": replica_words(replicas, tp, ep, dies=dies)} if ep > 1 else {}
    return Message("users.slots_ep" if layout else "users.slots", **layout, tp=tp, replicas=replicas, batch=batch,
                   slots=replicas * batch, precision=SERVE_PRECISIONS[int(grid["prec"][j])], limit=limit)


def _rentable(grid: dict[str, np.ndarray], devs: list[_Device], instance: int | None = None) -> np.ndarray:
    """Serving: per configuration, whether a usable offer of its device rents it — its replica (an expert-parallel
    group: tp × ep ranks) within the largest instance one offer holds (`_one_instance`'s rule: replicas never span
    nodes). `instance`: that largest instance in ranks where the devices carry no offers (compare's one-device grid,
    priced on its own offers); a device with no usable offer (and no `instance`): every configuration."""
    largest = np.array([instance or _largest_instance(d) for d in devs], dtype=float)[grid["dev"]]
    return np.asarray((largest <= 0) | (grid["tp"] * grid["ep"] <= largest))


def _capacity_rates(bands: dict[str, ErrorBand], req: PlanRequest, devs: list[_Device],
                    grid: dict[str, np.ndarray], instance: int | None = None) -> dict[str, np.ndarray]:
    """Per configuration, the serve-at-most rate (requests/s) of its device on its card count, its capacity
    configuration's (`capacity_configs`), NaN where none serves within the targets (`cap_rps`); the rate up to which
    plan warns of no thin margin there (`cap_comf`), the margins thin above it (`cap_thin`, bits) and the known error
    (%) the first of them is under (`cap_limit`, `warn_limit`). With concurrent users, the most users plan accepts
    on the device's card count (`cap_users`: `capacity_user_configs`) and the configuration that holds them
    (`cap_users_i`, −1: none), over the configurations an offer rents (`_rentable`, `instance` as there)."""
    rentable = _rentable(grid, devs, instance)
    cap = {key: np.full(grid["dev"].shape, np.nan) for key in ("cap_rps", "cap_comf", "cap_thin", "cap_limit")}
    cap["cap_thin"][:] = 0
    cap["cap_users"], cap["cap_users_i"] = np.full(grid["dev"].shape, np.nan), np.full(grid["dev"].shape, -1)
    if req.concurrent_users:
        js = capacity_user_configs(grid, rentable)
        at = _config_of_rows(grid, js)
        rows = at >= 0
        cap["cap_users"][rows] = (grid["replicas"][js] * grid["max_b"][js])[at[rows]]
        cap["cap_users_i"][rows] = js[at[rows]]
    js = capacity_configs(grid)
    at = _config_of_rows(grid, js)
    rows = at >= 0
    limits = np.full(js.shape, np.nan)
    for n, j in enumerate(js):
        thin = int(grid["comf_thin"][j])
        if thin:
            group, memory = _THIN_GROUPS[_first_bit(thin)]
            limit = warn_limit(bands, devs[int(grid["dev"][j])].stack.id, memory_group(req.task) if memory else group,
                               memory)
            limits[n] = np.nan if limit is None else limit
    for key, v in (("cap_rps", grid["max_rps"][js]), ("cap_comf", grid["comf_rps"][js]),
                   ("cap_thin", grid["comf_thin"][js]), ("cap_limit", limits)):
        cap[key][rows] = v[at[rows]]
    return cap


def _config_of_rows(grid: dict[str, np.ndarray], configs: np.ndarray) -> np.ndarray:
    """Per configuration, the position in `configs` (one configuration per device and card count, as
    `capacity_configs` gives them) of the one on its device and card count; −1 where none is (a NaN card count
    equals none). One pass over the grid, not a mask per configuration."""
    at = np.full(grid["dev"].shape, -1)
    if not configs.size:
        return at
    _, inv = np.unique(np.stack([grid["dev"].astype(float), grid["gpus"].astype(float)]), axis=1, return_inverse=True)
    inv = inv.reshape(-1)
    pos = np.full(int(inv.max()) + 1, -1)
    pos[inv[configs]] = np.arange(configs.size)
    at = pos[inv]
    at[np.isnan(grid["gpus"])] = -1
    return at


# a thin margin's bit (`_serve_checks`' thin): the validated group its known error is of, memory or not, in this order
_THIN_GROUPS = {F_TPOT: ("decode-speed", False), F_TTFT: ("prefill-speed", False), F_MEMORY: ("", True)}


def _first_bit(bits: int) -> int:
    """The first of `_THIN_GROUPS`' bits set in `bits` (TPOT, then TTFT, then memory)."""
    return next(b for b in _THIN_GROUPS if bits & b)


def _rate_at_most(grid: dict[str, np.ndarray], i: int, req: PlanRequest) -> float:
    """The "serve at most N req/s" of configuration `i`'s device on its card count: its capacity configuration's
    rate (`cap_rps`, `_capacity_rates`: the rate compare's capacity row serves), rounded down to 3 significant
    figures so that the rate quoted is served; where none serves within the targets, the row's own rate."""
    best = float(grid["cap_rps"][i])
    return round_down_rate(best) if best > 0 else float(grid["tok_s"][i]) / req.output


def rate_thin(max_rps: float, comf_rps: float, thin: int, limit: float | None, task: str) -> Message | str:
    """The clause a "serve at most N req/s" quote adds where plan, on the capacity configuration, warns of a thin
    margin below N (`_serve_checks`' thin, `margin_warned`): "above Y req/s the TPOT margin is under the known
    decode-speed error of L %" (Y rounded down), or that it warns at any rate; "" where it warns of none up to N."""
    if not thin or limit is None or not math.isfinite(limit) or not comf_rps < max_rps:
        return ""
    group, memory = _THIN_GROUPS[_first_bit(thin)]
    kw = dict(margin=Message(f"rate.margin.{'memory' if memory else group}"),
              group=Message(f"band.{memory_group(task) if memory else group}"), limit=limit)
    if not comf_rps > 0:
        return Message("rate.thin_always", **kw)
    return Message("rate.thin", rps=round_down_rate(comf_rps), **kw)


def _rate_thin(grid: dict[str, np.ndarray], i: int, req: PlanRequest) -> Message | str:
    """`rate_thin` for configuration `i`'s device on its card count (`_capacity_rates`)."""
    if "cap_comf" not in grid or not float(grid["cap_rps"][i]) > 0:
        return ""
    return rate_thin(float(grid["cap_rps"][i]), float(grid["cap_comf"][i]), int(grid["cap_thin"][i]),
                     float(grid["cap_limit"][i]), req.task)


_RUN_BATCH_ROUNDS = 8  # concurrent users: rounds of "more replicas, so a smaller batch each" for the rate they send


def _run_batch(st: Any, tp: np.ndarray, b: np.ndarray, rates: dict[str, np.ndarray], replicas: np.ndarray,
               users: float, need_tok_s: float, output: int, pinned: bool,
               ep: Any = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The batch each replica runs, no more than the searched `b`, and the replicas (a pinned count stays):
    concurrent users spread over the replicas, min(b, ⌈users / replicas⌉) each, with replicas added (at most
    `_RUN_BATCH_ROUNDS` rounds) while their steady-state throughput at that batch (`_served_tok_s`: every prompt's
    prefill counted) is short of the rate the users send; a request rate alone, the smallest batch whose steady-state
    throughput meets the replica's share of it —
    by Little's law (L = λW, Little 1961, doi:10.1287/opre.9.3.383) the requests in flight at that rate — found by
    bisection over whole batches; a batch job (no rate) keeps its batch full. `ep`: replicas come in groups of ep
    that share the routed experts (`inference_step`), so replicas added are whole groups."""
    ok = np.isfinite(replicas) & (replicas > 0)
    r = np.where(ok, replicas, 1.0)
    links = step_links(st, tp, ep, rates)  # the layouts' links, whatever the batch tried
    if users > 0:
        run = np.minimum(b, np.ceil(users / r))
        for _ in range(0 if pinned or need_tok_s <= 0 else _RUN_BATCH_ROUNDS):
            per_replica = _served_tok_s(st, tp, run, rates, output, ep, links)
            more = np.maximum(r, np.ceil(np.ceil(need_tok_s / per_replica) / ep) * ep)
            more = np.where(np.isfinite(more), more, r)
            if np.array_equal(more, r):
                break
            r = more
            run = np.minimum(b, np.ceil(users / r))
    elif need_tok_s > 0:
        lo, run = np.ones(b.shape), b.copy()
        while np.any(lo < run):
            mid = np.floor((lo + run) / 2)
            enough = r * _served_tok_s(st, tp, mid, rates, output, ep, links) >= need_tok_s
            open_ = lo < run
            run = np.where(open_ & enough, mid, run)
            lo = np.where(open_ & ~enough, mid + 1, lo)
    else:
        run = b
    return np.where(ok, run, b), np.where(ok, r, replicas)


def _steady_serving(req: PlanRequest) -> bool:
    """Whether a serving request's TPOT is the steady-state one (`steady_tpot_s`: a rate or concurrent users keep the
    batch full, prefill chunks interleaved with the decode steps) or a batch job's decode step: the one rule plan's
    rows and the variant re-estimate (`caveats.variant_outcome`) judge --tpot by."""
    return (req.requests_per_s or 0) * req.output > 0 or (req.concurrent_users or 0) > 0


def _serve_eps(cat: Catalog, req: PlanRequest, m: ModelArch, engine: str) -> list[int]:
    """Expert-parallel sizes a serving plan searches: the pinned --ep (the engine's capability checked with the pins,
    `_serves_ep`); for an MoE model on an engine that serves expert-parallel (InferenceEngine.expert_parallel) each of
    EP_SIZES that divides its experts (the node rule in `_serve_grid` keeps a group of tp × ep cards in one node);
    else 1."""
    if m.moe is None:
        return [1]
    if req.ep:
        return [req.ep]
    e = next((x for x in cat.engines if x.id == engine), None)
    if e is None or not e.expert_parallel:
        return [1]
    return [x for x in EP_SIZES if m.moe.num_experts % x == 0]


def _spanning_networks(devs: list[_Device]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per device: whether a job or replica may span its nodes (an offer that can, `can_span_nodes`, or no prices:
    nodes assumed joinable), how many distinct networks its spanning offers publish, and those networks (Gbit/s per
    node, NaN-padded to one table; `_networks`)."""
    spans = np.array([d.unpriced or any(can_span_nodes(o) for o in d.offers) for d in devs], dtype=bool)
    nets = [_networks(d) for d in devs]
    n_nets = np.array([len(n) for n in nets], dtype=int)
    table = np.full((len(devs), int(n_nets.max(initial=1))), np.nan)
    for j, n_ in enumerate(nets):
        table[j, :len(n_)] = n_
    return spans, n_nets, table


def _serve_group_placed(tp: np.ndarray, ep: np.ndarray, per_node: np.ndarray, spans: np.ndarray) -> np.ndarray:
    """Where a serving replica's cards sit (buyer review F 3): the tensor-parallel group always within one node, and
    the expert-parallel group (ep replicas of tp cards sharing the routed experts) within one node too, or across
    whole nodes where the device has an offer whose nodes join over a network (`can_span_nodes`; single cards never
    combine). That is the published two-node layout: vLLM-Ascend's DeepSeek-R1 W8A8 on 2 Atlas 800 A2 (64G × 8)
    nodes runs tp 4 × data-parallel 4 with --enable-expert-parallel, 2 data-parallel ranks a node, tp inside a node
    and the expert group across both (vllm-project/vllm-ascend docs/source/tutorials/models/DeepSeek-R1.md, 5.2
    Multi-Node Data Parallel Deployment); a tp all-reduce across nodes runs every layer over the network."""
    group = tp * ep
    return (tp <= per_node) & ((group <= per_node) | (spans & (np.mod(group, per_node) == 0)))


def _fit_tp(mt: Any, devs: list[_Device], idx: np.ndarray, eps: np.ndarray, prealloc: float | None,
            pooled: bool) -> np.ndarray:
    """devices `idx` × expert-parallel sizes `eps`: the smallest of NEED_TPS at which one batch-1 replica fits a card
    (NaN: none), by the fits rule every serving row takes (`usable_memory_bytes`, the runtime reserve)."""
    cap = np.array([devs[i].capacity for i in idx], dtype=float)[:, None]
    frag: Any = np.array([devs[i].fragmentation for i in idx])[:, None]  # per device, as the rows take it
    usable = usable_memory_bytes(cap, frag, prealloc)
    runtime = np.array([devs[i].runtime for i in idx], dtype=float)[:, None]
    pool = cap * prealloc if pooled and prealloc is not None else None
    shape = (idx.shape[0], eps.shape[0])
    out = np.full(shape, np.nan)
    for tp_try in reversed(NEED_TPS):
        m1 = inference_memory(mt, np.full(shape, float(tp_try)), 1.0, np.broadcast_to(eps, shape), np.ones(shape),
                              None if pool is None else np.broadcast_to(pool, shape))
        out = np.where(needed_bytes(m1) + runtime <= usable, tp_try, out)
    return out


def _serve_grid(cat: Catalog, m: ModelArch, req: PlanRequest, devs: list[_Device],
                bands: dict[str, ErrorBand] | None = None,
                width_ranks: int | None = None) -> tuple[dict[str, np.ndarray], int]:
    """Serving, vectorized like training: device × precision × tp × concurrent batch through the same
    inference kernels, then the replicas needed for the request rate. A replica (its expert-parallel group) spans
    at most the card limit, or `width_ranks` ranks where that is more (`_wide_grid`: the rows wider than the limit
    fail on F_CARDS, every other bit as a larger limit gives it)."""
    arch.require_llm(m, "serving plans")
    groups: dict[tuple[str, str, bool, int], list[int]] = {}  # … and the device's dies (cards in ranks)
    for i, d in enumerate(devs):
        if d.excluded is None and d.engine is not None:
            for p in d.precisions:
                groups.setdefault((p, d.engine, _flash(d.stack), d.dies), []).append(i)
    need_tok_s = (req.requests_per_s or 0) * req.output
    horizon = req.setup_billed
    spans_all, n_nets, net_table = _spanning_networks(devs)
    parts: list[dict[str, np.ndarray]] = []
    n = 0
    for (precision, engine, flash, dies), idx in groups.items():
        rq = _in_ranks(req, dies)  # the request's cards in the group's ranks (a 910C: 2 a card)
        tps = [t for t in TP_SIZES if (rq.tp is None or t == rq.tp) and (rq.gpus is None or rq.gpus % t == 0)]
        batches = _serve_batches(rq, tps)
        w = make_workload(task="inference", precision=precision, input=req.input, output=req.output, engine=engine,
                          flash_attention=flash)
        prealloc = preallocate_fraction(cat, engine)
        mt = inference_memory_terms(m, w, prealloc is not None, prefill_chunk_tokens(cat, engine))
        st = inference_speed_terms(m, w)
        eps = _serve_eps(cat, req, m, engine)
        lay = np.array(np.meshgrid(np.array(idx), tps, eps, batches, indexing="ij")).reshape(4, -1)
        di, tp, ep, b = lay[0].astype(int), lay[1].astype(float), lay[2].astype(float), lay[3].astype(float)
        n += di.shape[0]
        per_node = np.array([d.acc.max_cards_per_node for d in devs], dtype=float)[di]
        # a tp the engine refuses (attention heads not divisible, tp_heads) is no configuration; an expert-parallel
        # group (ep replicas of tp cards sharing the routed experts) sits in one node, and pinned cards hold whole groups
        widest = max(rq.card_limit, width_ranks or 0)
        keep = np.nonzero(_serve_group_placed(tp, ep, per_node, spans_all[di]) & (tp * ep <= widest)
                          & tp_heads_runs(m, tp, engine=engine) & ((rq.gpus or 0) % (tp * ep) == 0))[0]
        di, tp, ep, b = di[keep], tp[keep], ep[keep], b[keep]
        # a group wider than a node is evaluated once per network its device's spanning offers publish (the rented
        # network caps the link data, as training's rows: scaling.rented_inter_node_bytes_per_s) and priced only on
        # those offers (`can_rent`)
        multi = tp * ep > per_node[keep]
        reps = np.where(multi, n_nets[di], 1)
        row = np.repeat(np.arange(di.shape[0]), reps)
        within = np.arange(row.shape[0]) - np.repeat(np.cumsum(reps) - reps, reps)
        di, tp, ep, b = di[row], tp[row], ep[row], b[row]
        net = np.where(multi[row], net_table[di, within], np.nan)
        cap = np.array([d.capacity for d in devs])[di]
        pool = cap * prealloc if prealloc is not None else None
        runtime = np.array([d.runtime for d in devs])[di]
        usable = usable_memory_bytes(cap, np.array([d.fragmentation for d in devs])[di], prealloc)
        # the smallest tensor-parallel group one batch-1 replica fits in at each device and ep searched (NaN: none up
        # to the last of NEED_TPS), by the same memory, whatever the card limit (buyer review 2026-12-02, task H1):
        # why-not names it where no instance holds it, as a replica never spans nodes
        fit_tp = _fit_tp(mt, devs, np.array(idx), np.array(eps, dtype=float), prealloc, pool is not None)
        at_ep = np.searchsorted(np.array(eps, dtype=float), ep)
        need_tp = fit_tp[np.searchsorted(np.array(idx), di), at_ep] * ep  # the cards of one expert-parallel group
        # each device's smallest replica: the fewest cards, then a plain one (ep 1) before experts shared
        small = np.argmin(np.where(np.isfinite(fit_tp), (fit_tp * 1000 + 1) * np.array(eps), np.inf), axis=1)
        row_dev = np.searchsorted(np.array(idx), di)
        small_ep = np.array(eps, dtype=float)[small][row_dev]
        small_tp = fit_tp[row_dev, small[row_dev]]
        rates = _stack_rates([_try(lambda: inference_rates(cat, d.acc, w)[0]) if i in idx else None
                              for i, d in enumerate(devs)], di)
        rates["inter_bw"] = rented_inter_node_bytes_per_s(rates["inter_bw"], net)
        # the replicas a configuration takes if each ran the searched batch b (its upper bound) full
        links = step_links(st, tp, ep, rates)  # the rows' layouts' links, whatever their batch
        per_full = _served_tok_s(st, tp, b, rates, req.output, ep, links)
        # concurrent users (README): each always has a request in flight, so the replicas hold them all at once:
        # replicas × batch ≥ users (one slot of the running batch per user), besides the rate they send
        users = float(req.concurrent_users or 0)
        if rq.gpus is not None:  # exactly gpus cards: gpus / tp replicas, whose throughput must meet the rate
            replicas = rq.gpus / tp
        elif need_tok_s > 0:  # whole expert-parallel groups of ep replicas
            replicas = np.ceil(np.maximum(np.ceil(need_tok_s / per_full), np.ceil(users / b)) / ep) * ep
        else:
            replicas = ep.copy()
        # the batch each replica really runs once the users / the rate are spread over the replicas: memory,
        # TPOT, TTFT and throughput are all this batch's (one model of the world), through the same kernels
        b, replicas = _run_batch(st, tp, b, rates, replicas, users, need_tok_s, req.output, rq.gpus is not None, ep)
        # steady state: every request's prompt is prefilled on the replica too, so b requests per prefill of b
        # prompts + (output − 1) steps (estimate's output_tokens_per_s), a rate or a batch job alike: never more than
        # the full batch's capacity. Serving a rate (or users), a user's TPOT carries the prefill chunks interleaved
        # with the decode steps (`steady_tpot_s`: estimate's tpot_steady_s); a batch job prefills its batch once,
        # then decodes (TPOT = step). Each filter a configuration fails, one bit each (why-not and relax hints name
        # the one that binds): `_serve_checks`, the predicate the capacity search (`_serve_at_most`) calls too
        c = _serve_checks(st, mt, tp, b, rates, pool, runtime, usable, req, _steady_serving(req), ep=ep, links=links)
        k, needed, per_replica, ttft, tpot, fail = c["k"], c["mem"], c["per_replica"], c["ttft"], c["tpot"], c["fail"]
        # the rate and the users' slots at the batch run (a configuration without speeds fails on memory alone,
        # unless the card count is pinned)
        held = (replicas * per_replica >= need_tok_s) & (replicas * b >= users)
        fail |= np.where(held | ((rq.gpus is None) & ~np.isfinite(per_replica)), 0, F_RATE)
        if need_tok_s > 0:
            hours = np.full(di.shape, req.serving_hours)
        else:
            hours = job_hours(float(req.tokens or 0), per_replica * replicas)
        gpus = replicas * tp
        fail |= np.where(gpus <= rq.card_limit, 0, F_CARDS)
        ok = fail == 0
        # the most requests/s each configuration serves within the targets (a rate, or the cards pinned: compare)
        # and with the bands the most it serves before plan warns of a thin margin (`comf_rps`); with concurrent
        # users its largest batch is also the most users it holds (replicas × max_b, `_capacity_rates`' cap_users)
        most = (_serve_at_most(st, mt, tp, rates, replicas, pool, runtime, usable, req,
                               _warn_limits(bands or {}, devs, di, req), di, ep)
                if need_tok_s > 0 or rq.gpus is not None
                else {k_: np.full(di.shape, np.nan) for k_ in _AT_MOST_KEYS})
        # time to first serve: each instance downloads the served checkpoint and loads it (catalog rates; the
        # offer's public bandwidth replaces the download rate in _price). Billed only over a horizon the request
        # sets: tokens to generate add it to the hours (a job); a stated serving period is the rental, and the
        # set-up takes its start (serving hours = period − set-up); the assumed month's ranking does not move
        ckpt = np.full(di.shape, weights_bytes(m, precision))
        first = serve_setup_hours(job_setup(cat), ckpt)
        billed = np.full(di.shape, 1.0 if horizon else 0.0)
        setup_h = first["total_h"] * billed
        if req.setup_in_period:
            total_h = period_billed_hours(hours, setup_h)  # the period, or the set-up where it is longer
            hours = total_h - setup_h  # the serving hours
        else:
            total_h = hours + setup_h
        parts.append({
            "dev": di, "gpus": gpus, "tp": tp, "pp": np.ones(di.shape), "dp": replicas, "ep": ep,
            "zero": np.zeros(di.shape, dtype=int), "rec": np.zeros(di.shape, dtype=int), "b": b, "ga": np.ones(di.shape),
            "mem": needed, "usable": usable, "cap": cap, "fits": ok, "fail": fail, "tok_s": per_replica * replicas,
            "compute_h": hours + 0.0 * ckpt, "setup_h": setup_h, "hours": total_h,
            "scaling": (k["step_s"] - k["tp_comm_s"]) / k["step_s"],
            "prec": np.full(di.shape, SERVE_PRECISIONS.index(precision)), "replicas": replicas,
            "ttft": ttft, "tpot": tpot, "net": net, "dl_bytes": ckpt,
            "dl_h": first["download_h"], "dl_gbit": np.full(di.shape, np.nan), "billed": billed,
            "first_h": first["total_h"], "need_tp": need_tp, "small_tp": small_tp, "small_ep": small_ep, **most,
            # the decode step's roofline at the batch run, the kernel's own verdict (estimate's `decode_bound`)
            "dc_compute": np.asarray(k["decode_compute_bound"], dtype=bool) & np.ones(di.shape, dtype=bool),
        })
    return (_concat(parts) if parts else _empty()), n


# ---------------------------------------------------------------------------------------------------- pricing


def _price(devs: list[_Device], grid: dict[str, np.ndarray], sel: np.ndarray, req: PlanRequest, today: dt.date,
           one_off: np.ndarray) -> dict[str, np.ndarray]:
    """Each configuration's offer, chosen among the usable ones (those that can rent it) through `billed_cost`,
    each offer on its own hours (an offer that publishes its public bandwidth downloads the model at it:
    `plan.cost.offer_download_delta_h`). The choice, in order: a fresh price before a stale one (`is_stale` at
    `req.stale_months`: a stale offer prices a configuration only when no fresh one can rent it); for
    fastest-within-budget, one within the budget; then by the objective: cheapest and best-value the lowest cost
    (ties: sooner done), fastest the soonest done (a training job or tokens to generate: hours; ties: lower cost) —
    but serving a period (a request rate, `_serves_period`) is fastest by TPOT, which the offer does not change, so
    there fastest takes the lowest cost too.
    Returns cost, cost at the range's top, offer index into the device's offers (−1: none can rent it), the hours
    its download adds against the catalog's rate, and its download rate in Gbit/s (NaN: the catalog's rate)."""
    dev = grid["dev"][sel]
    gpus, tp = grid["gpus"][sel], grid["tp"][sel]
    group = tp * grid["ep"][sel]  # serving: the cards one instance must hold, a replica or an expert-parallel group
    base_h, dl_bytes, dl_h = grid["hours"][sel], grid["dl_bytes"][sel], grid["dl_h"][sel]
    billed_all, first_all = grid["billed"][sel], grid["first_h"][sel]
    in_period = req.setup_in_period
    n = sel.shape[0]
    fastest = req.objective in ("fastest", "fastest-within-budget") and not _serves_period(req)
    best_keys = [np.full(n, 2.0), np.full(n, np.inf), np.full(n, np.inf), np.full(n, np.inf)]
    best = np.full(n, np.inf)
    best_max = np.full(n, np.inf)
    best_o = np.full(n, -1)
    best_d = np.zeros(n)
    best_g = np.full(n, np.nan)
    # every offer that prices a row: how many, the range (lowest cost, highest cost at a range's top) and the
    # cheapest's and dearest's indices — the plan says them beside its own offer (`quality.offers_range`; buyer
    # review F 7: tco lists them all)
    n_ok, lo, hi = np.zeros(n, dtype=np.int64), np.full(n, np.inf), np.full(n, -np.inf)
    lo_o, hi_o = np.full(n, -1), np.full(n, -1)
    row_net = grid["net"][sel]
    serving = bool(np.any(grid["replicas"][sel] > 0)) if n else False
    dom = np.array([d.acc.domestic for d in devs])[dev] if devs else np.zeros(0, dtype=bool)
    sub = np.where(dom, req.subsidy, 0.0)
    # each device's rows, once (ascending, as np.nonzero(dev == i) gives them)
    order = np.argsort(dev, kind="stable")
    first_dev, starts = np.unique(dev[order], return_index=True)
    rows_of = dict(zip(first_dev.tolist(), np.split(order, starts[1:])))
    for k in range(max((len(d.offers) for d in devs), default=0)):
        rows = [d.offers[k] if k < len(d.offers) else None for d in devs]
        # the one rentability rule (`catalog.offers.can_rent`: spanning nodes, `max_cards`, the network a
        # multi-node training row was evaluated on), per device on its rows; compare uses it too
        ok = np.zeros(n, dtype=bool)
        for i, (o, d) in enumerate(zip(rows, devs)):
            on = rows_of.get(i)
            if o is not None and on is not None:
                ok[on] = can_rent(o, d.acc.max_cards_per_node, gpus[on], group[on], serving, row_net[on])
        # a row this offer cannot rent keeps its best (its keys, (2, inf, inf, inf), never sort before another's):
        # the rest on the rows it can rent
        r = np.nonzero(ok)[0]
        if r.size == 0:
            continue
        dev_r = dev[r]

        def col(f: Any) -> np.ndarray:
            return np.array([f(o) if o is not None else np.nan for o in rows], dtype=float)[dev_r]

        price = col(lambda o: o.price_cny.value)
        pmax = col(lambda o: (o.price_cny_max or o.price_cny).value)
        unit_h = col(lambda o: UNIT_HOURS[o.billing_unit])
        min_units = col(lambda o: o.min_units)
        cards = col(lambda o: o.cards)
        min_cards = col(lambda o: o.min_cards_per_order or 0)
        stale = col(lambda o: float(is_stale(o, today, req.stale_months)))
        gbit = col(lambda o: offer_download_gbit_per_s(o) or np.nan)
        billed, first_h, gpus_r = billed_all[r], first_all[r], gpus[r]
        own = ~np.isnan(gbit) & (dl_bytes[r] > 0)
        delta = offer_download_delta_h(dl_bytes[r], dl_h[r], gbit)  # the offer's own download rate (one function)
        hours = base_h[r] + delta * billed  # serving without a horizon: the set-up is not billed
        if in_period:  # a stated serving period is the rental: the offer's download moves the first serve only
            hours = period_billed_hours(req.serving_hours, first_h + delta)  # compare bills the period so too
        c = billed_cost(price, unit_h, min_units, cards, gpus_r, hours, sub[r], min_cards)
        cm = billed_cost(pmax, unit_h, min_units, cards, gpus_r, hours, sub[r], min_cards)
        fin = np.isfinite(c)
        n_ok[r] += fin
        top = np.where(np.isfinite(cm), cm, c)
        lo_o[r] = np.where(fin & (c < lo[r]), k, lo_o[r])
        hi_o[r] = np.where(fin & (top > hi[r]), k, hi_o[r])
        lo[r] = np.where(fin, np.minimum(lo[r], c), lo[r])
        hi[r] = np.where(fin, np.maximum(hi[r], top), hi[r])
        # when the job is done / serving starts (the period is the same for every offer: its first serve decides)
        done = np.where((billed > 0) & (not in_period), hours, hours + first_h + delta)
        over = np.zeros(r.size)
        if req.objective == "fastest-within-budget" and req.budget_cny is not None:
            over = (c + migration_share(one_off[r], hours, req.migration_months) > req.budget_cny).astype(float)
        keys = [stale, over, done if fastest else c, c if fastest else done]
        better = _lex_less(keys, [b[r] for b in best_keys])
        for a, b in zip(keys, best_keys):
            b[r] = np.where(better, a, b[r])
        best[r] = np.where(better, c, best[r])
        best_max[r] = np.where(better, cm, best_max[r])
        best_o[r] = np.where(better, k, best_o[r])
        best_d[r] = np.where(better, delta, best_d[r])
        best_g[r] = np.where(better, np.where(own, gbit, np.nan), best_g[r])
    return {"cost": best, "cost_max": best_max, "offer": best_o, "dl_delta_h": best_d, "dl_gbit": best_g,
            "n_offers": n_ok, "lo": lo, "hi": hi, "lo_offer": lo_o, "hi_offer": hi_o}


def _lex_less(a: list[np.ndarray], b: list[np.ndarray]) -> np.ndarray:
    """Element-wise: key tuple `a` sorts strictly before key tuple `b` (first key first; equal keys fall through)."""
    less = np.zeros(a[0].shape, dtype=bool)
    tie = np.ones(a[0].shape, dtype=bool)
    for x, y in zip(a, b):
        less |= tie & (x < y)
        tie &= x == y
    return less


# ---------------------------------------------------------------------------------------------------- plan


def _pinned_tp_pp(req: PlanRequest) -> tuple[int, int]:
    """The request's pinned tp and pp (pp only in training; 1 where not pinned): their product is the ranks a
    layout's group takes, which `--gpus` cards must split into (`_check_gpus_split`)."""
    return req.tp or 1, (req.pp or 1) if req.task != "inference" else 1


def _check_gpus_split(cat: Catalog, req: PlanRequest, gpus: int) -> None:
    """`--gpus` counts cards, the pinned tp × pp ranks (README, "The catalog": a 910C card is two dies, each a rank),
    so `--gpus 2 --tp 4` runs on two 910C cards (4 dies) and on no one-die card. Refused, one line naming the field,
    only where no device the request allows (`devices`, else the catalog's) splits its ranks (`_in_ranks`) into the
    pinned tp × pp (`gpus`: the request's cards); a device that cannot while another can is left to its why-not row."""
    tp, pp = _pinned_tp_pp(req)
    allowed = [lookup.accelerator(cat, x) for x in req.devices] or list(cat.accelerators)
    dies = sorted({dies_per_card(a) for a in allowed})
    if any(ranks_in(gpus, n) % (tp * pp) == 0 for n in dies):
        return
    several = [a for a in allowed if dies_per_card(a) > 1]
    if several:  # a card of several dies among them: its dies said too (tp and pp count them)
        a = several[0]
        raise InputError("gpus", Message("err.cards_do_not_split_into_the_dies", req_gpus=gpus,
                                         ranks=ranks_in(gpus, dies_per_card(a)), device=_device_name(a),
                                         v=tp, v2=pp))
    raise InputError("gpus", Message("err.cards_do_not_split_into_the", req_gpus=gpus, v=tp, v2=pp))


def plan(cat: Catalog, m: ModelArch, req: PlanRequest, today: dt.date | None = None,
         error_bands: dict[str, ErrorBand] | None = None, *, precision_up: bool = True) -> PlanResult:
    """Ranked plans for `req` on model `m`, best first, with a Pareto front of cost against time. `today`
    (default: the clock) dates the prices: one older than `req.stale_months` prices a configuration only where no
    fresh offer can rent it, and warns with its date. `error_bands` (`suanli validate --write`'s, as estimates quote
    them): each plan says the evidence for its stack and warns where its latency margin is within that error.
    `precision_up` False: no second search for a precision the request left out (`_precision_up_unsearched`,
    `_int4_tip`): the one those make themselves."""
    today = today or dt.date.today()
    t0 = time.perf_counter()
    training = req.task != "inference"
    if m.kind != "llm":  # diffusion: estimate gives seconds per image, scenarios prices image serving
        refused = Message("err.plan_needs_llm", model=m.id, kind=Message(f"model.kind.{m.kind}"))
        raise InputError("model", render(refused), refused)
    fw_ids = [f.id for f in cat.frameworks]
    if req.framework is not None and req.framework not in fw_ids:
        raise InputError("framework", unknown_name("framework", req.framework, fw_ids)[1])  # errors' one helper
    engines = [e.id for e in cat.engines]
    if req.engine is not None and req.engine not in engines:
        raise InputError("engine", unknown_name("engine", req.engine, engines)[1])
    if req.vpp is not None and req.vpp > 1 and training:
        if req.pp == 1:
            raise InputError("vpp", Message("err.virtual_pipeline_stages_need_pipeline_parallelism"))
        if req.pp and m.num_layers and m.num_layers % (req.pp * req.vpp) != 0:
            raise InputError("vpp", Message("err.layers_do_not_split_into_pp", model_num_layers=m.num_layers, w_pp=req.pp, w_vpp=req.vpp))
    for name, pin, allowed in (("tp", req.tp, TP_SIZES), ("pp", req.pp, PP_SIZES), ("ep", req.ep, EP_SIZES)):
        if pin is not None and pin not in allowed:
            raise InputError(name, Message("err.is_not_one_of_2", pin=pin, names_list=', '.join(map(str, allowed))))
    # estimate's rule, training too: a dense model has no experts to split (before: a training --ep on a dense model
    # searched nothing and told the buyer to try qlora, buyer review C)
    check_ep_has_experts(m, req.ep, lookup.checkpoint_id(m, req.task, req.model))
    if not training and (serve_ep := req.ep or 1) > 1 and m.moe is not None:  # serving: whole experts a rank
        if m.moe.num_experts % serve_ep != 0:
            raise InputError("ep", Message("err.ep_must_divide_experts", w_ep=serve_ep, model_id=m.id,
                                           num_experts=m.moe.num_experts,
                                           allowed=", ".join(str(e) for e in EP_SIZES if m.moe.num_experts % e == 0)))
    if req.gpus is not None:
        _check_gpus_split(cat, req, req.gpus)
    if req.precision == ("bf16",) and req.task == "qlora":
        raise InputError("precision", Message("err.qlora_quantizes_the_base_model_to"))
    # against the checkpoint the plan names: training the base (Qwen2.5-72B: 131,072), serving the tuned one (32,768)
    limit = lookup.context_of(m, req.task, req.model)
    if limit and not m.rope_scaling and (tokens := req.input + req.output if not training else req.seq) > limit:
        raise context_refusal(m, tokens, limit, lookup.checkpoint_id(m, req.task, req.model), training)
    if training and req.framework is None:
        runs = [f for f in cat.frameworks if req.task in f.tasks]
        if runs and not any(_runs_pins(f, req) for f in runs):
            least = min(runs, key=lambda f: len(_unrun_pins(f, req)))
            raise InputError("framework", Message("err.no_framework_in_the_catalog_runs", req_task=req.task, names_list=' and '.join(_unrun_pins(least, req)), least_name=least.name))
    offers = usable_offers(cat, req.region, req.offer_kinds, None if req.billing == "any" else req.billing)
    devs = _devices(cat, m, req, offers)
    grid, n_grid = (_train_grid(cat, m, req, devs, error_bands) if training
                    else _serve_grid(cat, m, req, devs, error_bands))
    if training:  # one framework per layout, the one estimate assumes
        grid = _one_framework_per_layout(grid)
    # a configuration whose speed cannot be estimated (an offload without the device's PCIe rate) is no plan: the
    # why-not says so (`why.measure_no_speed`)
    sel = np.nonzero(grid["fits"] & np.isfinite(grid["tok_s"]))[0]
    dev = grid["dev"][sel]
    weeks = np.array([_weeks_mid(d.weeks) for d in devs])[dev] if devs else np.zeros(0)
    assume = cost_assumptions(cat)  # the catalog's `assumptions:` (engineers, CNY per engineer-week)
    week_cny = req.engineer_cny_per_week if req.engineer_cny_per_week is not None else assume.engineer_cny_per_week.value
    one_off = weeks * assume.migration_engineers.value * week_cny
    priced = _price(devs, grid, sel, req, today, one_off)
    cost, cost_max, oi = priced["cost"], priced["cost_max"], priced["offer"]
    # hours and set-up are those of each configuration's chosen offer from here on (its download rate); a
    # serving plan without a horizon bills no set-up, its first serve moves all the same
    grid = dict(grid)
    d_h = priced["dl_delta_h"]
    billed = grid["billed"][sel]
    in_period = req.setup_in_period
    for key, add in (("hours", d_h * billed * (not in_period)), ("setup_h", d_h * billed), ("dl_h", d_h),
                     ("first_h", d_h)):
        grid[key] = grid[key].copy()
        grid[key][sel] += add
    if in_period:  # the stated period is what is rented; set-up takes its start, the rest is served
        grid["compute_h"] = grid["compute_h"].copy()
        grid["hours"][sel] = period_billed_hours(req.serving_hours, grid["setup_h"][sel])
        grid["compute_h"][sel] = grid["hours"][sel] - grid["setup_h"][sel]
    grid["dl_gbit"] = grid["dl_gbit"].copy()
    grid["dl_gbit"][sel] = priced["dl_gbit"]
    if not training:  # "serve at most N req/s" (why-not, relax) is the capacity configuration's rate, as compare's
        grid.update(_capacity_rates(error_bands or {}, req, devs, grid))
    calendar_h = calendar_hours(grid["hours"][sel], weeks)
    mig = migration_share(one_off, grid["hours"][sel], req.migration_months)
    total = cost + mig
    keep = np.isfinite(cost)
    if req.deadline_hours is not None and training:
        keep &= calendar_h <= req.deadline_hours
    if req.budget_cny is not None:
        keep &= total <= req.budget_cny
    k = sel[keep]
    cost_k, cost_max_k, oi_k, total_k, mig_k, one_k = cost[keep], cost_max[keep], oi[keep], total[keep], mig[keep], one_off[keep]
    hours_k = grid["hours"][k]
    # done: a job's hours; a serving plan without a horizon is done with its period, so its first serve decides;
    # on the deadline's clock (`calendar_hours`): after the migration weeks (buyer review 2026-12-01, 3: fastest
    # ranked a 910B first for a team on CUDA, 41 h of compute but 293 h with its migration)
    done_k = calendar_hours(np.where((grid["billed"][k] > 0) & (not in_period), hours_k, hours_k + grid["first_h"][k]),
                            weeks[keep])
    if req.objective == "cheapest":
        score = total_k + hours_k * 1e-9
    elif _fastest_serving(req):
        # serving a period: the fastest plan is the lowest latency, not the first to serve — the set-up differs little
        # between devices, so it fell back to cost (buyer review 2026-12-01): TPOT by its 5 % band (`_tpot_band`),
        # then cost, then TTFT (the order `_rank_order` makes; this score only has to follow it)
        score = TIE_TPOT_RATIO ** _tpot_band(grid["tpot"][k]) * (1.0 + total_k * 1e-12 + grid["ttft"][k] * 1e-9)
    elif req.objective in ("fastest", "fastest-within-budget"):
        score = done_k + total_k * 1e-12
    else:  # best-value: each axis relative to its best
        score = (total_k / max(total_k.min(initial=np.inf), 1e-9) + hours_k / max(hours_k.min(initial=np.inf), 1e-9)
                 if k.size else total_k)
    # the evidence checks, before the order: at an equal bill a layout that passes them, then one whose thinnest
    # margin falls shorter of its known error, ranks first (`_rank_order`)
    fails, short = _evidence_check(error_bands or {}, req, devs, grid, k, calendar_h[keep])
    order = _rank_order(req.objective, score, total_k, hours_k, done_k, grid, k, _serves_period(req), (fails, short))
    plans: list[Plan] = []
    # one layout per device: one that passes the evidence checks before one that fails at up to the factor's cost
    # (`evidence_pick`'s rule; its checks kept for the precision-up hint, which picks by it too)
    picked = _one_per_device(order, grid["dev"][k], fails, score)
    scores: list[float] = []
    planned: list[int] = []  # each plan's configuration (index into `k`), for the layout it passed over
    for j in picked:
        # candidates for the top: a demoted plan ranks on DEMOTION_COST_FACTOR x its score (`_demote`), so a plan
        # scoring beyond that factor times the top-th candidate's can take none of the first `top` places
        if len(plans) >= req.top and float(score[j]) > DEMOTION_COST_FACTOR * scores[req.top - 1]:
            break
        idx = int(k[j])
        d = devs[int(grid["dev"][idx])]
        scores.append(float(score[j]))
        planned.append(int(j))
        plans.append(_make_plan(len(plans) + 1, d, grid, idx, float(cost_k[j]), float(cost_max_k[j]),
                                d.offers[int(oi_k[j])], float(mig_k[j]), float(one_k[j]), float(total_k[j]),
                                req, training, cat, today))
    plans = [_evidence(cat, m, req, p, next(d for d in devs if d.acc.id == p.device), error_bands or {}) for p in plans]
    # the device's first layout in `order` that the evidence step replaced, said on the plan that replaced it, with
    # the check it fails (buyer review 2026-12-03, task N: 24 × 910B at ¥47,500 on the front, silently passed over)
    passed = _passed_over(order, grid["dev"][k], np.array(planned, dtype=np.int64))
    for n, j in enumerate(planned):
        if j in passed:
            b = passed[j]
            d = devs[int(grid["dev"][k[b]])]
            over = _make_plan(0, d, grid, int(k[b]), float(cost_k[b]), float(cost_max_k[b]), d.offers[int(oi_k[b])],
                              float(mig_k[b]), float(one_k[b]), float(total_k[b]), req, training, cat, today)
            plans[n] = _with_warning(plans[n], _passed_over_warning(cat, req, d, grid, int(k[b]), over, plans[n],
                                                                    error_bands or {}))
    # what the row's answer adds for a buyer (plan.quality): the offers that priced it and their range, and a serving
    # row below the checkpoint's release precision: the best plan on the device one precision up
    notes = _row_notes(cat, m, req, devs, grid, k, order, picked, priced, keep, cost_k, total_k, fails, score)
    if not training and req.precision is not None and precision_up:  # a precision up the request did not search
        _precision_up_unsearched(cat, m, req, today, error_bands, plans, notes)
    plans = [_with_extras(p, notes.get(p.device, [])) for p in plans]
    # a plan whose known bias (pooled toward all stacks' under 5 cases) exceeds its headroom ranks after the plans that
    # pass costing at most DEMOTION_COST_FACTOR times its cost, before dearer ones (buyer regression 2); then the top
    plans = _demote(plans, scores)[:req.top]
    if training:  # a block rented whole with idle cards: what the same search gives on all of it
        plans = [_whole_block_hint(cat, m, req, p, today, error_bands) for p in plans]
    pareto = _pareto(devs, grid, k, total_k, hours_k)
    elsewhere = _measures_elsewhere(cat, m, req, devs, grid, sel) if training else {}
    wide = functools.cache(lambda: _wide_grid(cat, m, req, devs, error_bands))  # the widths the card limit left out
    why = _why_not(cat, devs, grid, sel, keep, total, calendar_h, req, {p.device for p in plans}, elsewhere,
                   None if plans else wide())
    # nothing planned: the hint that answers the binding constraint first. Nothing fits in memory: a framework whose
    # optimizer offload / 8-bit AdamW fits; configurations fit and are priced but a deadline or budget removed them:
    # that limit's hint, the other framework's measure after it (it does not answer --deadline-hours 0.01)
    measures = [Message("relax.measure", fix=f) for f in list(elsewhere.values())[:1]]
    limits_bind = sel.size > 0 and bool(np.isfinite(total).any())
    relax = [] if plans else [*([] if limits_bind else measures),
                              *_relax(grid, sel, total, calendar_h, req, devs, cat, m, wide,
                                      ~_evidence_fails(error_bands or {}, req, devs, grid, sel, calendar_h)),
                              *(measures if limits_bind else [])]
    if not plans and not training and error_bands and precision_up:  # "raise max_gpus to N": does N pass?
        relax = [_cards_evidence(cat, m, req, today, error_bands, devs, wide() or grid, x)
                 if x.id in ("relax.cards", "relax.cards_dies") else x for x in relax]
    # nothing at the precisions searched: would int4 serve it? (a replica too big for any instance already names the
    # lower precisions whose weights fit)
    if not plans and not training and precision_up and not any(x.id == "relax.serve_too_big" and x.params.get("fix")
                                                               for x in relax):
        relax += _int4_tip(cat, m, req, today, error_bands, devs)
    assumptions = _assumptions(cat, req, devs, training, plans, m)
    warnings: list[Message] = []
    if not training and m.reasoning_output_tokens is not None and "output" not in req.model_fields_set:
        # a reasoning model writes its thinking before the answer: the default output undersizes KV, time and cost;
        # a warning of the whole result (printed under the header, top-level in the JSON) with the card's figure
        # (buyer review 10), only when output was not given (an explicit --output 256 is the user's), default kept
        warnings.append(Message("plan.warn.reasoning_output", model=m.id, typical=m.reasoning_output_tokens.value,
                                output=req.output, field="output"))
    return PlanResult(
        request=req,
        model_id=lookup.checkpoint_id(m, req.task, req.model),  # training: the base checkpoint of an -Instruct preset
        plans=plans,
        pareto=pareto,
        why_not=[{"device": d, "reason": render(r), "reason_i18n": r.to_json(),
                  "reasons": [render(x) for x in why_not_reasons(r)],
                  "reasons_i18n": [x.to_json() for x in why_not_reasons(r)]} for d, r in why],
        configurations_evaluated=n_grid,
        search_seconds=time.perf_counter() - t0,
        relax=[render(x) for x in relax],
        relax_i18n=[x.to_json() for x in relax],
        assumptions=[render(x) for x in assumptions],
        assumptions_i18n=[x.to_json() for x in assumptions],
        warnings=[render(x) for x in warnings],
        warnings_i18n=[x.to_json() for x in warnings],
    )


def _row_notes(cat: Catalog, m: ModelArch, req: PlanRequest, devs: list[_Device], grid: dict[str, np.ndarray],
               k: np.ndarray,
               order: np.ndarray, picked: np.ndarray, priced: dict[str, np.ndarray], keep: np.ndarray,
               cost_k: np.ndarray, total_k: np.ndarray, fails: np.ndarray,
               score: np.ndarray) -> dict[str, list[Message]]:
    """Per device planned: how many offers priced its row and their range, each end's offer and billing unit
    (`quality.offers_range`); serving below the checkpoint's release precision (bf16, or fp8 for an FP8 checkpoint),
    the layout the device is planned with at the next precision up that fits and is priced: the plan's own pick
    (`_one_per_device` on `order`, the evidence checks `fails` and `score`), so the hint is what --precision plans
    (buyer review 2026-12-01, 5: the first in `order` was a layout the evidence step demotes)."""
    out: dict[str, list[Message]] = {}
    n_off, lo, hi, lo_o, hi_o = (priced[x][keep] for x in ("n_offers", "lo", "hi", "lo_offer", "hi_offer"))
    release = m.native_dtype if m.native_dtype in SERVE_PRECISIONS else "bf16"
    dev_k, prec_k = grid["dev"][k], grid["prec"][k]
    for j in picked:
        d = devs[int(dev_k[j])]
        msgs: list[Message] = []
        if int(lo_o[j]) >= 0 and int(hi_o[j]) >= 0 and (msg := offers_range(
                int(n_off[j]), float(lo[j]), d.offers[int(lo_o[j])], float(hi[j]), d.offers[int(hi_o[j])])):
            msgs.append(msg)
        if req.task == "inference" and (spans := _replica_spans_nodes(cat, d, grid, int(k[j]))) is not None:
            msgs.append(spans)
        if req.task == "inference" and int(prec_k[j]) >= 0:
            on_dev = dev_k == dev_k[j]
            have = {SERVE_PRECISIONS[int(x)] for x in np.unique(prec_k[on_dev]) if int(x) >= 0}
            up = next_precision_up(SERVE_PRECISIONS[int(prec_k[j])], release, have)
            if up is not None:
                rows = order[(on_dev & (prec_k == SERVE_PRECISIONS.index(up)))[order]]
                b = int(_one_per_device(rows, dev_k, fails, score)[0])
                # what --precision <up> plans, judged as this plan is: where it fails the evidence checks this
                # plan passes, said (task C 2026-12-03: 6,000 qwen3-32b users on 910Bs, "at bf16: 192 × 910B,
                # ¥362,500" read as cheaper than the int8 plan of ¥422,500, which passes them; the bf16 one does not)
                short = bool(fails[b]) and not bool(fails[j])
                msgs.append(Message("plan.reason.precision_up_short" if short else "plan.reason.precision_up",
                                    precision=scheme_name(d.stack, up),
                                    gpus=int(grid["gpus"][k[b]]), device=_device_name(d.acc), cost=float(cost_k[b]),
                                    total=float(total_k[b]), ratio=float(total_k[b] / total_k[j]) if total_k[j] else 1.0,
                                    this=scheme_name(d.stack, SERVE_PRECISIONS[int(prec_k[j])]),
                                    loss=precision_up_loss(up, release)))
        out[d.acc.id] = msgs
    return out


def _int4_tip(cat: Catalog, m: ModelArch, req: PlanRequest, today: dt.date,
              error_bands: dict[str, ErrorBand] | None, devs: list[_Device]) -> list[Message]:
    """Serving that found no plan at the precisions searched, int4 not among them (the default: release precision
    and 8-bit, `default_serve_precisions`): the best plan the same request gives at int4 (its scheme on the stack,
    W4A16 on CUDA, W4A8 on Ascend; accuracy not measured) and the pin that asks for it, or nothing."""
    if "int4" in (req.precision or ()) or any("int4" in d.precisions for d in devs if d.excluded is None):
        return []
    try:
        got = plan(cat, m, req.model_copy(update={"precision": ("int4",), "top": 1}), today, error_bands,
                   precision_up=False).plans
    except SuanliError:
        return []
    if not got:
        return []
    q = got[0]
    acc = next(a for a in cat.accelerators if a.id == q.device)
    stack = next(s_ for s_ in cat.stacks if s_.id == acc.stack)
    return [Message("relax.at_int4", precision=scheme_name(stack, "int4"), gpus=q.gpus, device=_device_name(acc),
                    cost=q.cost_cny, total=q.total_cost_cny, pin=Message("relax.pin", field="precision", value="int4"))]


def _precision_up_unsearched(cat: Catalog, m: ModelArch, req: PlanRequest, today: dt.date,
                             error_bands: dict[str, ErrorBand] | None, plans: list[Plan],
                             notes: dict[str, list[Message]]) -> None:
    """Serving with --precision pinned below the release precision (int4 alone): the "one precision up" note
    (`plan.reason.precision_up`, `_row_notes`) of a device whose next precision up was not searched, from the plan of
    that device at it (the same request, that precision pinned, one search per precision, nearest first); added to
    `notes` in place."""
    release = m.native_dtype if m.native_dtype in SERVE_PRECISIONS else "bf16"
    asked = set(req.precision or ())
    want: dict[str, tuple[Plan, list[str]]] = {}
    for p in plans:
        if p.precision not in SERVE_PRECISIONS or any(x.id == "plan.reason.precision_up" for x in notes.get(p.device, [])):
            continue
        lo, hi = SERVE_PRECISIONS.index(release), SERVE_PRECISIONS.index(p.precision)
        ups = list(reversed(SERVE_PRECISIONS[lo:hi]))
        if ups and ups[0] not in asked:  # the nearest precision up was not searched
            want.setdefault(p.device, (p, [x for x in ups if x not in asked]))
    stacks = {s.id: s for s in cat.stacks}
    for up in reversed(SERVE_PRECISIONS):  # nearest first: int8 before fp8 before bf16
        ids = [d for d, (_, ups) in want.items() if up in ups]
        if not ids:
            continue
        try:
            got = plan(cat, m, req.model_copy(update={"precision": (up,), "devices": tuple(ids), "top": len(ids)}),
                       today, error_bands, precision_up=False).plans
        except SuanliError:
            continue
        for q in got:
            if q.device not in want or q.precision != up:
                continue
            p, _ = want.pop(q.device)
            acc = next(a for a in cat.accelerators if a.id == q.device)
            stack = stacks[acc.stack]
            notes.setdefault(p.device, []).append(Message(
                "plan.reason.precision_up", precision=scheme_name(stack, up), gpus=q.gpus, device=_device_name(acc),
                cost=q.cost_cny, total=q.total_cost_cny,
                ratio=q.total_cost_cny / p.total_cost_cny if p.total_cost_cny else 1.0,
                this=scheme_name(stack, p.precision), loss=precision_up_loss(up, release)))


def _replica_spans_nodes(cat: Catalog, d: _Device, grid: dict[str, np.ndarray], i: int) -> Message | None:
    """A serving row whose expert-parallel group is wider than a node (`_serve_group_placed`): how it sits — tp within
    each node, the experts across nodes over the offer's network — as the published two-node layout does; None for
    a replica within one node. The network: the offer's published rate per node, or, where it publishes none (an
    index quote), that it is not published and the figure the speed took instead (`scaling.rented_inter_node_bytes_
    per_s`: the device's inter-node link row, uncapped; buyer review 2026-12-03: it printed "? Gbit/s per node")."""
    tp, ep, per_node = int(grid["tp"][i]), int(grid["ep"][i]), d.acc.max_cards_per_node
    if tp * ep <= per_node:
        return None
    net = float(grid["net"][i])
    if np.isnan(net):
        link = link_for(cat, d.acc, "inter-node")
        # no cap without a published rate: the link row's own figure (`rented_inter_node_bytes_per_s`)
        rate = Message("plan.reason.net_unpublished", gb_s=float(link.bus_gb_per_s.value), link=link.id)
    else:
        rate = Message("plan.reason.net_published", gbit=net)
    return Message("plan.reason.replica_spans_nodes", cards=tp * ep, nodes=-(-tp * ep // per_node), tp=tp, ep=ep,
                   per_node=per_node, net=rate)


def _with_extras(p: Plan, extras: list[Message]) -> Plan:
    """The plan with `extras` appended to its ranking explanation (`plan.reason.with`), in both languages."""
    if not extras:
        return p
    reason = Message.from_json(p.reason_i18n) if p.reason_i18n else p.reason
    for x in extras:
        reason = Message("plan.reason.with", reason=reason, extra=x)
    return p.model_copy(update={"reason": render(reason),
                                "reason_i18n": reason.to_json() if isinstance(reason, Message) else p.reason_i18n})


# ties, stated (final buyer check 4, 5): plans whose objective ties (cost within a cent when cheapest; hours within a
# hundredth of a second, then cost within a cent, when fastest; serving a period, fastest: TPOT within 5 %, then cost
# within a cent, then TTFT within a microsecond) rank on the precision order of SERVE_PRECISIONS
# (bf16, fp8, int8, int4: at the same price the less quantized model, which loses no quality), then the evidence checks
# (`_evidence_check`: one that passes them before one demoted, then the one whose thinnest margin — TPOT, TTFT, deadline,
# memory — falls least short of its known error: the paid idle cards of a whole machine serve a replica where that buys
# margin; buyer review 2026-12-03, 13 × tp4 on 52 of 56 paid 910Bs at a 4 % TPOT margin before 14 × tp4 at 10 %), then
# fewer cards (fewer replicas where the margins are clean: whole-machine billing makes 1 and 5 cards of an 8-card
# machine cost the same), then lower TPOT, then lower TTFT, then the grid's order. Keys that do not depend on
# which other devices are searched, so a device's layout is the same with or without `--gpu <that device>`.
TIE_CNY = 0.01
TIE_HOURS = 1e-2 / 3600
TIE_LATENCY_S = 1e-6
TIE_MARGIN_PCT = 1e-6  # evidence shortfalls (points of %) this close tie (float noise)
# fastest serving a period: TPOTs within 5 % tie, broken by cost, then TTFT. 5 % is assumed (no source: about the
# spread of this model's own TPOT estimates, and less than a user notices), so a plan 1 % faster for 50x the rent no
# longer ranks first (buyer regression 2026-12-01: 50 B200 replicas at b1, ¥1.33 M a month, before ¥1,372 ones)
TIE_TPOT_RATIO = 1.05


def _tpot_or_none(tpot_s: Any) -> float | None:
    """A configuration's TPOT as a plan or layout quotes it: None where there is none (NaN: one output token has no
    inter-token gap, `steady_tpot_s`)."""
    return None if np.isnan(tpot_s) else float(tpot_s)


def _tpot_band(tpot_s: np.ndarray) -> np.ndarray:
    """Each TPOT's 5 % band (TIE_TPOT_RATIO): ⌊log(TPOT / 1 µs) / log 1.05⌋, a fixed geometric grid, so a device's
    layout does not depend on which other devices are searched (two TPOTs under 5 % apart can still straddle an edge);
    a missing TPOT is band 0."""
    t = np.maximum(np.nan_to_num(tpot_s, nan=TIE_LATENCY_S), TIE_LATENCY_S)
    return np.floor(np.log(t / TIE_LATENCY_S) / np.log(TIE_TPOT_RATIO) + 1e-9)


def calendar_counts(req: PlanRequest) -> bool:
    """Whether the request is decided on the calendar (`calendar_hours`: migration weeks, then set-up and compute): a
    training deadline keeps plans by it, and objective fastest of a job (not serving a period) ranks by it."""
    return ((req.deadline_hours is not None and req.task != "inference")
            or (req.objective in ("fastest", "fastest-within-budget") and not _serves_period(req)))


def _fastest_serving(req: PlanRequest) -> bool:
    """Objective fastest (or fastest-within-budget) serving a period (`_serves_period`): plans at the model's own
    precision (`default_precision`: bf16, fp8 for an FP8 checkpoint where the device runs it) unless --precision asks
    for another — quantization is a quality trade the buyer asks for — ranked by TPOT band, cost, TTFT."""
    return req.objective in ("fastest", "fastest-within-budget") and _serves_period(req)


def _serves_period(req: PlanRequest) -> bool:
    """Serving at a request rate (or concurrent users) over a period, not tokens to generate (a job): objective
    fastest ranks such plans by latency (TPOT, then TTFT), not by when they are done — a period ends when it ends."""
    return req.task == "inference" and bool(req.requests_per_s)


def _rank_order(objective: str, score: np.ndarray, total_k: np.ndarray, hours_k: np.ndarray, done_k: np.ndarray,
                grid: dict[str, np.ndarray], k: np.ndarray, period: bool = False,
                evidence: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Indices into `score` in ranking order: the objective first (rounded so that ties are ties; fastest: `done_k`,
    the calendar hours to done, migration weeks included; fastest serving a `period`: TPOT within 5 % (`_tpot_band`),
    then cost, then TTFT), then the stated tie-break (TIE_CNY, TIE_HOURS,
    TIE_LATENCY_S above): precision order (at the same price the less quantized model: quality before card count), then
    the evidence checks (`evidence`, `_evidence_check`: one that passes them, then the least short of its known error:
    the paid cards of a whole machine serve where that buys margin), then fewer cards, TPOT, TTFT."""
    cny = np.round(total_k / TIE_CNY)
    if objective == "cheapest":
        primary = [np.round(hours_k / TIE_HOURS), cny]
    elif objective in ("fastest", "fastest-within-budget") and period:
        primary = [np.round(np.nan_to_num(grid["ttft"][k], nan=0.0) / TIE_LATENCY_S), cny,
                   _tpot_band(grid["tpot"][k])]
    elif objective in ("fastest", "fastest-within-budget"):
        primary = [cny, np.round(done_k / TIE_HOURS)]
    else:  # best-value: the relative score, to a millionth
        primary = [np.round(score * 1e6)]
    tpot, ttft = np.nan_to_num(grid["tpot"][k], nan=0.0), np.nan_to_num(grid["ttft"][k], nan=0.0)
    # the evidence as one key: a demoted row after one that passes, then by its shortfall (none: no key to sort on)
    ev = [] if evidence is None or not (evidence[0].any() or evidence[1].any()) else [
        np.where(evidence[0], 1e12, 0.0) + np.round(evidence[1] / TIE_MARGIN_PCT)]
    # np.lexsort: the last key is the primary one; stable, so equal keys keep the grid's order
    return (np.lexsort((ttft, tpot, grid["gpus"][k], *ev, grid["prec"][k], *primary)) if k.size
            else np.argsort(score))


_DEMOTED_IDS = ("plan.reason.rank_demoted", "plan.reason.rank_demoted_factor")


def _demote(plans: list[Plan], scores: list[float]) -> list[Plan]:
    """Plans (in objective order, `scores` beside) re-ranked: a demoted one after the passing ones scoring at most
    DEMOTION_COST_FACTOR times its score, before the rest; each demoted one names the cheapest plan that passes."""
    late = [any(w.get("id") in _DEMOTED_IDS for w in _extras(p.reason_i18n)) for p in plans]
    key = [s * DEMOTION_COST_FACTOR if x else s for s, x in zip(scores, late)]
    ranked = [plans[i].model_copy(update={"rank": r}) for r, i in
              enumerate(sorted(range(len(plans)), key=lambda i: (key[i], late[i], i)), start=1)]
    sunk = {q.device for q, x in zip(plans, late) if x}
    passing = [p for p in ranked if p.device not in sunk]
    if not passing:  # no plan passes: none is ranked after another, so the ranking clause is dropped (final check 7)
        return [_without_rank(p) for p in ranked]
    if len(passing) == len(ranked):
        return ranked
    best = min(passing, key=lambda p: (p.total_cost_cny, p.rank))
    out = []
    for p in ranked:
        if p.device not in sunk or not p.reason_i18n:
            out.append(p)
            continue
        reason = Message("plan.reason.with", reason=Message.from_json(p.reason_i18n), extra=Message(
            "plan.reason.cheapest_passing", rank=best.rank, cost=best.total_cost_cny))
        out.append(p.model_copy(update={"reason": render(reason), "reason_i18n": reason.to_json()}))
    return out


def _extras(reason_i18n: dict[str, Any]) -> list[dict[str, Any]]:
    """Every message nested in a plan's reason (its 'with' extras and their parameters), as JSON."""
    out: list[dict[str, Any]] = []
    stack: list[Any] = [reason_i18n]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if "id" in v and "params" in v:
                out.append(v)
            stack += list(v.values())
        elif isinstance(v, list):
            stack += v
    return out


def migration_share(one_off_cny: Any, hours: Any, months: float) -> Any:
    """The one-off migration cost spread over `months` months of this workload: a job (or a serving period of
    up to a month) carries 1/months of it, a longer serving period its months' share, never more than all."""
    months_used = np.maximum(hours / HOURS_PER_MONTH, 1.0)
    return one_off_cny * np.minimum(months_used / months, 1.0)


def first_month_cash(cost_cny: float, hours: float, one_off_cny: float) -> float:
    """The cash a plan takes in its first month: the rent billed in it (the whole rent of a job or period of up to a
    month, else its month's pro-rata part) and the whole one-off migration, paid before the work runs — not the
    1/--migration-months share the budget checks (`migration_share`; README: budget on rent + migration share)."""
    return cost_cny * min(1.0, HOURS_PER_MONTH / hours if hours > 0 else 1.0) + one_off_cny


def _whole_block_hint(cat: Catalog, m: ModelArch, req: PlanRequest, p: Plan, today: dt.date,
                      error_bands: dict[str, ErrorBand] | None) -> Plan:
    """A training plan whose offer is a block rented whole (`min_cards_per_order` above its cards: the idle cards are
    paid) gets a hint with what `plan` itself finds on exactly all of the block's cards of that device (the request
    as asked, `--gpus` the block), where that finishes sooner: its hours and cost (task J1 2026-12-01: 64 of a
    256-card A100 block, 192 cards idle, never said that 256 cost the same and finish sooner). The search's card
    counts are GPU_COUNTS, so a block outside them gets no hint; `req.gpus` pinned or not alike."""
    o = next((x for x in cat.offers if x.id == p.offer), None)
    block = (o.min_cards_per_order or 0) if o is not None else 0
    if block <= p.gpus or block not in GPU_COUNTS:
        return p
    r = req.model_copy(update={"devices": (p.device,), "gpus": block, "max_gpus": max(req.max_gpus, block),
                               "top": 1})
    try:
        whole = plan(cat, m, r, today, error_bands).plans
    except SuanliError:
        return p
    if not whole or whole[0].hours >= p.hours:
        return p
    w = whole[0]
    hint = Message("plan.warn.whole_block_all", block=block, field="gpus", hours=duration(w.hours),
                   now=duration(p.hours), cost=w.total_cost_cny, framework=w.framework)
    at = next((k + 1 for k, x in enumerate(p.warnings_i18n) if x.get("id") == "plan.warn.whole_block"),
              len(p.warnings))  # right after the idle-block line
    return p.model_copy(update={"warnings": [*p.warnings[:at], render(hint), *p.warnings[at:]],
                                "warnings_i18n": [*p.warnings_i18n[:at], hint.to_json(), *p.warnings_i18n[at:]]})


def _default_mark(req: PlanRequest, name: str) -> Message | str:
    """' (default; --seq)' after a value the request did not give (its field named as the surface names it), else ''."""
    return "" if name in req.model_fields_set else Message("plan.assume.default_flag", field=name)


def _train_precisions(req: PlanRequest, devs: list[_Device]) -> list[Message]:
    """Training where fp8 was searched beside bf16 and no precision was asked: which devices and frameworks were
    searched at fp8 (`_precisions`: a framework with an FP8 recipe on a device with a measured FP8 training
    efficiency), as serving's precisions line says (buyer review 2026-12-02, task F.3: 8× H800 at fp8 unsaid)."""
    if req.precision is not None:
        return []
    on: dict[tuple[str, str], list[str]] = {}  # (name, Chinese name) -> frameworks searched at fp8 there
    for d in devs:
        if d.excluded is None:
            for fw, precs in d.frameworks or (((d.framework, d.precisions),) if d.framework else ()):
                if "fp8" in precs:
                    on.setdefault((d.acc.name, d.acc.name_zh or d.acc.name), []).append(fw.name)
    if not on:
        return []
    where = {"en": "; ".join(f"{en}: {', '.join(fws)}" for (en, _), fws in sorted(on.items())),
             "zh": "；".join(f"{zh}：{'、'.join(fws)}" for (_, zh), fws in sorted(on.items()))}
    return [Message("plan.assume.train_precisions", fp8_on=where, field="precision")]


def _assumptions(cat: Catalog, req: PlanRequest, devs: list[_Device], training: bool,
                 plans: tuple[Plan, ...] | list[Plan] = (), m: ModelArch | None = None) -> list[Message]:
    stacks = {d.stack.id: d.stack for d in devs}  # stacks named as their vendors write them in Chinese (name_zh)
    fws = sorted({(d.stack.name, d.stack.id, d.framework.name, tuple(f.name for f in _searched(d)[1:]))
                  for d in devs if d.framework is not None and d.excluded is None})
    mid = "plan.assume.framework" if req.framework else "plan.assume.framework_default"
    # full and pretrain: every framework the stack runs the task with was searched; each plan names its own
    out = [Message(mid, stack=_stack_name(stacks[i]), framework=f, field="framework") if not others
           else Message("plan.assume.frameworks_searched", stack=_stack_name(stacks[i]), framework=f,
                        others=", ".join(others), field="framework") for _, i, f, others in fws]
    if not training:
        engines = sorted({(d.stack.name, d.stack.id, d.engine) for d in devs if d.engine and d.excluded is None})
        out += [Message("plan.assume.engine", stack=_stack_name(stacks[i]), engine=e) for _, i, e in engines]
        searched = [p for p in SERVE_PRECISIONS if any(p in d.precisions for d in devs if d.excluded is None)]
        if searched:  # which precisions were searched: int4 only when asked (`default_serve_precisions`)
            out.append(Message("plan.assume.precisions_default" if req.precision is None else "plan.assume.precisions",
                               precisions=", ".join(searched), field="precision"))
        job = not req.requests_per_s  # tokens to generate: a job with its own hours, no serving period
        if not job:  # worded by whether the request gave the period or the default month stands
            given = req.hours is not None or req.days is not None
            out.append(Message("plan.assume.period_given" if given else "plan.assume.period",
                               hours=duration(req.serving_hours), field="hours"))
            # what TTFT the plan checks and how users became a rate (buyer review F 8)
            out.append(Message("plan.assume.ttft_mean", field="ttft_s", users_field="concurrent_users",
                               tpot_field="tpot_s"))
        js = job_setup(cat)
        if js.weight_load_gb_per_s is not None:
            out.append(Message("plan.assume.job_start" if job else "plan.assume.first_serve_in_period"
                               if req.setup_in_period
                               else "plan.assume.first_serve_billed" if req.setup_billed else "plan.assume.first_serve",
                               env=js.environment_minutes.value, gbit=js.download_gbit_per_s.value,
                               load=js.weight_load_gb_per_s.value, field="hours"))
    else:
        # the step the layout, memory and speed are worked out for: each marked where its default stood (2048, 64)
        out.append(Message("plan.assume.step", seq=req.seq, global_batch=req.global_batch,
                           step_tokens=req.seq * req.global_batch,
                           seq_default=_default_mark(req, "seq"), batch_default=_default_mark(req, "global_batch")))
        out += _train_precisions(req, devs)
        s = next((x for x in cat.setup if x.id == "default"), None)
        if s is not None:
            out.append(Message("plan.assume.setup", env=s.environment_minutes.value, gbit=s.download_gbit_per_s.value,
                               mtbf=s.gpu_hours_between_failures.value, write=s.checkpoint_write_gb_per_s.value))
    no_fa = sorted({(d.stack.name, d.stack.name_zh or d.stack.name) for d in devs if d.excluded is None and not _flash(d.stack)})
    if no_fa:
        out.append(Message("plan.assume.no_flash", stacks={"en": ", ".join(en for en, _ in no_fa),
                                                           "zh": "、".join(zh for _, zh in no_fa)}))
    offload = sorted({rate for p in plans
                      if p.offload_optimizer and (rate := assumed_cpu_adam_s(cat, p.framework)) is not None})
    if offload:  # a plan that offloads the optimizer is timed with the assumed CPU-Adam rate (frameworks.yaml)
        out.append(Message("plan.assume.cpu_adam", s=offload[0]))
    if m is not None:  # the assumed efficiency factors the plans' estimates use, serving and training alike
        out += assumed_efficiencies(cat, m, plans, req)
    for p in plans:  # a multi-node plan scaled on the catalog's link row: its offer publishes no bandwidth
        if p.scaling_basis is not None and p.inter_node_link is not None:  # (within a node: the plan's own warning)
            name = Message.from_json(p.device_name_i18n) if p.device_name_i18n else p.device_name
            out.append(Message("plan.assume.scaling_unpublished", rank=p.rank, gpus=p.gpus, device=name,
                               offer=p.offer, bus=p.inter_node_bus_gb_per_s or 0.0, link=p.inter_node_link or "?"))
    out.append(Message("plan.assume.migration", months=req.migration_months, field="migration_months"))
    if req.budget_cny is not None:  # which figure the budget checks (README: rent + migration share), said
        out.append(Message("plan.assume.budget", budget=req.budget_cny, months=req.migration_months,
                           field="migration_months"))
    out.append(Message("plan.assume.fresh", months=req.stale_months, field="stale_months"))
    # the kinds the plans were priced from, as the header says them (`offers.kinds_priced`: the requested and those
    # of the offers behind the plans, 'listing and contract' where an imported contract price set a bill)
    out.append(Message("plan.assume.prices", kinds=kinds_message(kinds_priced(req.offer_kinds,
                                                                              (p.offer_kind for p in plans))),
                       region=Message(f"price_region.{req.region}")))
    return out


class Layout(BaseModel):
    """The fastest training layout that fits exactly `gpus` cards of one device, prices aside (`fastest_layout`)."""

    model_config = ConfigDict(frozen=True)

    device: str
    framework: str
    engine: str | None = None
    gpus: int
    tp: int
    pp: int
    vpp: int = 1
    dp: int
    ep: int = 1
    zero: int | None
    recompute: str | None
    precision: str
    micro_batch: int
    grad_accum: int | None
    tp_comm_overlap: bool = False
    flash_attention: bool = True
    optimizer: str | None = None
    offload_optimizer: bool = False
    inter_node_gbit_per_s: float | None = None
    tokens_per_s: float
    memory_needed_bytes: float
    memory_usable_bytes: float
    tpot_s: float | None = None  # serving (`serving_layout`): the decode step and a joining request's TTFT
    ttft_s: float | None = None
    # serving capacity (`serving_capacity`): the rate plan serves at most on the configuration, the rate up to which it
    # warns of no thin margin there, and the clause saying so (`rate_thin`, as a message's JSON; None: no clause)
    max_requests_per_s: float | None = None
    comfortable_requests_per_s: float | None = None
    rate_thin_i18n: dict[str, Any] | None = None

    @property
    def label(self) -> str:
        """E.g. `tp2·pp1·dp4·z1·mb1·ga16 · recompute selective` (what `suanli validate --cases` prints)."""
        return render(self.label_message(), "en")

    def label_message(self) -> Message:
        """The label as compare's rows say it (`cmp.layout.training`): zh `… · 选择性重计算`, not `recompute selective`."""
        dims = (f"tp{self.tp}·pp{self.pp}" + (f"·vpp{self.vpp}" if self.vpp > 1 else "") + f"·dp{self.dp}"
                + (f"·ep{self.ep}" if self.ep > 1 else "") + f"·z{self.zero or 0}·mb{self.micro_batch}"
                + f"·ga{self.grad_accum or 1}")
        return Message("cmp.layout.training", dims=dims, recompute=self.recompute or "none")


def _unranked(v: Any) -> Any:
    """A reason (or one of its parameters) with each demotion ranking clause (`_DEMOTED_IDS`) made empty."""
    if isinstance(v, Message):
        return Message(v.id, {k: "" if isinstance(x, Message) and x.id in _DEMOTED_IDS else _unranked(x)
                              for k, x in v.params.items()})
    if isinstance(v, list):
        return [_unranked(x) for x in v]
    return v


def _without_rank(p: Plan) -> Plan:
    """Plan `p` whose ranking explanation no longer says it is ranked after the plans that pass (none passes)."""
    if not p.reason_i18n:
        return p
    reason = _unranked(Message.from_json(p.reason_i18n))
    return p.model_copy(update={"reason": render(reason), "reason_i18n": reason.to_json()})


def fastest_layout(cat: Catalog, m: ModelArch, req: PlanRequest, device: str) -> tuple[Layout | None, str]:
    """The layout `plan` would rank first with objective fastest on exactly `req.gpus` cards of `device`, prices
    aside: the same device rules, framework layouts and kernels (`_devices`, `_train_grid`), every offer filter
    ignored (nodes assumed joinable, the inter-node network not published: the link data's figure). Returns
    (layout, "") or (None, why nothing fits) in English. Training tasks only; `req.framework`/pins apply."""
    lay, why = fastest_layout_why(cat, m, req, device)
    return lay, render(why) if why is not None else ""


def recompute_off(cat: Catalog, framework: str | None, recompute: str | None) -> str | None:
    """The word that switches off the activation checkpointing `framework` runs by default (`Framework.recompute_off`:
    LLaMA-Factory's disable_gradient_checkpointing=true) where a training plan's `recompute` is not full: the plan's
    warning and its SkyPilot run (`plan.export`) say the same one; None where the framework checkpoints nothing unasked."""
    fw = next((f for f in cat.frameworks if f.id == framework), None)
    return fw.recompute_off if fw is not None and recompute != "full" else None


def fewest_training_cards(cat: Catalog, m: ModelArch, req: PlanRequest, device: str,
                          today: dt.date | None = None) -> int | None:
    """The fewest cards of `device` on which plan finds a training plan: the search `plan` runs (`_devices` on the
    request's usable offers, `_train_grid`, `_price`) over every count it searches (`req.gpus` ignored: GPU_COUNTS
    up to `req.max_gpus`), a configuration that fits with a speed (optimizer offload and 8-bit AdamW included where
    plan plans them, `_keep_fallbacks`) and that an offer can rent; None where there is none. `migrate cost`'s refusal
    at a count that does not fit names it (task K 2026-12-01)."""
    arch.require_llm(m, f"task {req.task}")
    if req.task == "inference":
        raise InputError("task", Message("err.fastest_layout_picks_training_layouts"))
    acc = lookup.accelerator(cat, device)
    r = req.model_copy(update={"devices": (acc.id,), "gpus": None, "domestic_only": False, "vendors": (),
                               "stacks": (), "allow_migration": True})
    offers = usable_offers(cat, r.region, r.offer_kinds, None if r.billing == "any" else r.billing)
    devs = _devices(cat, m, r, offers)
    if devs[0].excluded is not None:
        return None
    grid = _one_framework_per_layout(_train_grid(cat, m, r, devs)[0])  # the framework estimate assumes
    sel = np.nonzero(grid["fits"] & np.isfinite(grid["tok_s"]))[0]
    rented = _price(devs, grid, sel, r, today or dt.date.today(), np.zeros(sel.shape))["offer"] >= 0
    # in cards, as `--gpus` counts them (grid rows count ranks: a 910C's dies, `catalog.ranks`)
    return whole_cards(int(grid["gpus"][sel][rented].min()), devs[0].dies) if rented.any() else None


def fastest_layout_why(cat: Catalog, m: ModelArch, req: PlanRequest, device: str,
                       network_offers: Sequence[Offer] | None = None,
                       error_bands: dict[str, ErrorBand] | None = None,
                       measures: bool = False) -> tuple[Layout | None, Message | None]:
    """`fastest_layout` with its why as a `Message` (any language): when no plain AdamW layout fits but optimizer
    offload or 8-bit AdamW would (the planner plans those), the why says so. `network_offers`: a multi-node row is
    evaluated on these offers' inter-node networks (compare: one network at a time), as plan evaluates it.
    `error_bands`: the layout is chosen by plan's evidence step (`evidence_pick`): the fastest that passes the evidence
    checks where it takes at most DEMOTION_COST_FACTOR times the hours of the fastest (final buyer check 1).
    `measures`: the layout plan itself plans on these cards, optimizer offload or 8-bit AdamW where no plain AdamW
    layout fits (`_keep_fallbacks`; `migrate cost`: the job plan would run); else plain AdamW only (compare)."""
    r, devs, grid = _one_device_train_grid(cat, m, req, device, network_offers, error_bands if measures else None)
    d = devs[0]
    if grid is None:
        return None, d.excluded
    # the plain AdamW layouts only: compare and validate --cases lay out the stated job, not a memory-saving
    # fallback; with `measures` plan's own rows (a measure only where no plain layout fits these cards)
    plain = grid["opt"] == OPT_PLAIN
    sel = np.nonzero(grid["fits"] & np.isfinite(grid["tok_s"]) & (plain | measures))[0]
    if sel.size == 0:
        measure = np.nonzero(grid["fits"] & np.isfinite(grid["tok_s"]) & ~plain)[0]
        if measure.size and plain.any() and d.framework is not None:  # plain AdamW does not fit, a measure would
            j = int(np.argmin(np.where(plain, grid["mem"] - grid["usable"], np.inf)))
            k = int(measure[np.argsort(-grid["tok_s"][measure], kind="stable")[0]])
            fw_j, fw_k = _row_device(cat, d, grid, j).framework, _row_device(cat, d, grid, k).framework
            assert fw_j is not None and fw_k is not None
            return None, Message("why.plain_not_measure", gpus=int(r.gpus or 0), framework=fw_j.name,
                                 need_gib=grid["mem"][j] / GiB, usable_gib=grid["usable"][j] / GiB,
                                 measure=_measure_msg(int(grid["opt"][k]), fw_k),
                                 measure_gib=grid["mem"][k] / GiB)
        why = _why_not(cat, devs, grid, sel, np.zeros(0, dtype=bool), np.zeros(0), np.zeros(0), r, set(),
                       _measures_elsewhere(cat, m, r, devs, grid, sel))
        return None, why[0][1]
    # plan's objective fastest ranks by hours (set-up the same on a fixed device and card count): the most tokens/s,
    # equal speeds in plan's order (stable sort over the grid), then plan's evidence step
    i = _fastest_passing(error_bands, r, devs, grid, sel)
    return _train_row_layout(cat, d, grid, i, r), None


def _one_device_train_grid(cat: Catalog, m: ModelArch, req: PlanRequest, device: str,
                           network_offers: Sequence[Offer] | None, bands: dict[str, ErrorBand] | None
                           ) -> tuple[PlanRequest, list[_Device], dict[str, np.ndarray] | None]:
    """The training grid of exactly `req.gpus` cards of one device, prices and device filters aside, one framework
    per layout (the one estimate assumes), on `network_offers`' networks where given (`fastest_layout_why`): (request,
    devices, grid), the grid None where the device is excluded (its why: `devs[0].excluded`)."""
    if req.gpus is None:
        raise InputError("gpus", Message("err.fastest_layout_needs_the_card_count"))
    arch.require_llm(m, f"task {req.task}")
    if req.task == "inference":
        raise InputError("task", Message("err.fastest_layout_picks_training_layouts"))
    acc = lookup.accelerator(cat, device)
    r = req.model_copy(update={"devices": (acc.id,), "objective": "fastest", "domestic_only": False, "vendors": (),
                               "stacks": (), "allow_migration": True})
    devs = _devices(cat, m, r, (), priced=False)
    d = devs[0]
    if d.excluded is not None:
        return r, devs, None
    if network_offers is not None:
        d.offers = [offer_in_ranks(o, d.dies) for o in network_offers]  # only the networks (`_networks`); nodes
        # stay joinable (`unpriced`); counted in ranks as `_devices` counts a device's offers
    # the framework estimate assumes; with `bands` (`measures`) plan's own rule for where they are searched
    return r, devs, _one_framework_per_layout(_train_grid(cat, m, r, devs, bands)[0])


def leanest_training_layout(cat: Catalog, m: ModelArch, req: PlanRequest, device: str,
                            network_offers: Sequence[Offer] | None = None) -> Layout | None:
    """The layout plan's why-not describes when no plain AdamW layout fits exactly `req.gpus` cards of `device`: the
    one a framework runs needing the least memory over usable (`_why_not`'s "the leanest layout needs N GiB"), so
    compare's row shows that layout, not one no framework runs (buyer review 2026-12-03, task H: tp8 with ZeRO 0 for
    LLaMA-Factory, which has no tensor parallelism, "fitting" 72B LoRA on 8 × RTX 4090). None where the device is
    excluded or no layout splits the cards."""
    r, devs, grid = _one_device_train_grid(cat, m, req, device, network_offers, None)
    if grid is None or not grid["dev"].size:
        return None
    plain = grid["opt"] == OPT_PLAIN
    if not plain.any():
        return None
    j = int(np.argmin(np.where(plain, grid["mem"] - grid["usable"], np.inf)))
    return _train_row_layout(cat, devs[0], grid, j, r)


def _train_row_layout(cat: Catalog, d: _Device, grid: dict[str, np.ndarray], i: int, r: PlanRequest) -> Layout:
    """Training grid row `i` of device `d` as a `Layout` (under the framework the row was searched under)."""
    acc = d.acc
    fw = _row_device(cat, d, grid, i).framework  # every framework searched (full, pretrain): the row's
    tp = int(grid["tp"][i])
    return Layout(
        device=acc.id, framework=fw.id if fw else "", gpus=int(grid["gpus"][i]), tp=tp, pp=int(grid["pp"][i]),
        vpp=int(grid["vpp"][i]), dp=int(grid["dp"][i]), ep=int(grid["ep"][i]), zero=int(grid["zero"][i]),
        recompute=RECOMPUTE[int(grid["rec"][i])], precision=_precision_of(grid, i, r), micro_batch=int(grid["b"][i]),
        grad_accum=int(grid["ga"][i]), tp_comm_overlap=bool(fw is not None and tp_overlap_runs(fw, acc) and tp > 1),
        flash_attention=_flash(d.stack), optimizer=_optimizer_of(grid, i),
        offload_optimizer=int(grid["opt"][i]) == OPT_OFFLOAD,
        inter_node_gbit_per_s=None if np.isnan(grid["net"][i]) else float(grid["net"][i]),
        tokens_per_s=float(grid["tok_s"][i]), memory_needed_bytes=float(grid["mem"][i]),
        memory_usable_bytes=float(grid["usable"][i]),
    )


# compare's serving target when the request states neither a request rate nor a TPOT (the planner has no default
# TPOT): 200 ms per output token, the MLPerf Inference Server scenario's p99 bound for Llama-2-70B and Mixtral-8x7B
# (mlcommons/inference loadgen/mlperf.conf: llama2-70b.Server.tpot_latency = 200, ttft_latency = 2000; read 2026-12-01)
DEFAULT_SERVING_TPOT_S = 0.2


def _one_device_serve_grid(cat: Catalog, m: ModelArch, req: PlanRequest, device: str,
                           bands: dict[str, ErrorBand] | None = None, **update: Any
                           ) -> tuple[PlanRequest, list[_Device], dict[str, np.ndarray] | None, Message | None]:
    """The serving grid of exactly `req.gpus` cards of one device, prices and device filters aside (`update`
    overrides request fields; `bands`: the serve-at-most's comfortable rate, where plan warns of no thin margin):
    (request, devices, grid, None), or (request, devices, None, why it is excluded)."""
    if req.gpus is None:
        raise InputError("gpus", Message("err.serving_layout_needs_the_card_count"))
    acc = lookup.accelerator(cat, device)
    r = req.model_copy(update={"devices": (acc.id,), "domestic_only": False, "vendors": (), "stacks": (),
                               "allow_migration": True, **update})
    devs = _devices(cat, m, r, (), priced=False)
    if devs[0].excluded is not None:
        return r, devs, None, devs[0].excluded
    return r, devs, _serve_grid(cat, m, r, devs, bands)[0], None


def serving_layout(cat: Catalog, m: ModelArch, req: PlanRequest, device: str,
                   error_bands: dict[str, ErrorBand] | None = None) -> tuple[Layout | None, Message | None]:
    """The serving configuration `plan` searches (`_serve_grid`) on exactly `req.gpus` cards of `device`, prices
    aside: replicas × tp = gpus, a batch per replica from SERVE_BATCHES, the request's precision (else every one the
    planner serves at) and engine, and its targets applied (TPOT, TTFT, and the request rate the replicas must
    serve); of the configurations that meet them, the most output tokens/s (equal speeds in plan's order), by plan's
    evidence step with `error_bands` (`evidence_pick`, as `fastest_layout_why`). Returns (layout, None) or (None, why:
    the why-not line `plan` would give the device)."""
    if req.task != "inference":
        raise InputError("task", Message("err.serving_layout_lays_out_serving_fastest"))
    r, devs, grid, excluded = _one_device_serve_grid(cat, m, req, device, error_bands)
    if grid is None:
        return None, excluded
    d, acc = devs[0], devs[0].acc
    grid.update(_capacity_rates(error_bands or {}, r, devs, grid))  # "serve at most" = serving_capacity's rate
    sel = np.nonzero(grid["fits"] & np.isfinite(grid["tok_s"]))[0]
    if sel.size == 0:
        why = _why_not(cat, devs, grid, sel, np.zeros(0, dtype=bool), np.zeros(0), np.zeros(0), r, set())
        return None, why[0][1]
    i = _fastest_passing(error_bands, r, devs, grid, sel)
    return Layout(
        device=acc.id, framework=d.framework.id if d.framework else "", engine=d.engine, gpus=int(grid["gpus"][i]),
        tp=int(grid["tp"][i]), pp=1, dp=int(grid["replicas"][i]), ep=int(grid["ep"][i]), zero=None, recompute=None,
        precision=_precision_of(grid, i, r), micro_batch=int(grid["b"][i]), grad_accum=None,
        flash_attention=_flash(d.stack), tokens_per_s=float(grid["tok_s"][i]),
        memory_needed_bytes=float(grid["mem"][i]), memory_usable_bytes=float(grid["usable"][i]),
        tpot_s=_tpot_or_none(grid["tpot"][i]), ttft_s=float(grid["ttft"][i]),
    ), None


def serving_capacity(cat: Catalog, m: ModelArch, req: PlanRequest, device: str,
                     error_bands: dict[str, ErrorBand] | None = None) -> tuple[Layout | None, Message | None]:
    """The most a serving layout on exactly `req.gpus` cards of `device` carries within the request's TPOT (the
    steady-state one a rate is served at) and TTFT: of the configurations `serving_layout` searches, the capacity
    configuration (`capacity_configs`: the highest `_serve_at_most` rate over every tp, plan's own row check; with
    `error_bands` the rate above which plan warns of a thin margin, `rate_thin`), at that largest batch (plan's
    "serve at most N req/s" × output tokens/s, compare's capacity row); a rate up to it is served. Returns (layout, None) or (None, the why-not
    `serving_layout` gives)."""
    r, devs, grid, excluded = _one_device_serve_grid(cat, m, req, device, error_bands, requests_per_s=None,
                                                     concurrent_users=None,
                                                     tokens=None)
    if grid is None:
        return None, excluded
    d, acc = devs[0], devs[0].acc
    picked = capacity_configs(grid)
    if picked.size == 0:
        return serving_layout(cat, m, req, device, error_bands)
    i = int(picked[0])
    thin = _rate_thin({**grid, **_capacity_rates(error_bands or {}, r, devs, grid)}, i, r)
    return Layout(
        device=acc.id, framework=d.framework.id if d.framework else "", engine=d.engine, gpus=int(grid["gpus"][i]),
        tp=int(grid["tp"][i]), pp=1, dp=int(grid["replicas"][i]), ep=int(grid["ep"][i]), zero=None, recompute=None,
        precision=_precision_of(grid, i, r), micro_batch=int(grid["max_b"][i]), grad_accum=None,
        flash_attention=_flash(d.stack), tokens_per_s=float(grid["max_rps"][i]) * r.output,
        memory_needed_bytes=float(grid["max_mem"][i]), memory_usable_bytes=float(grid["usable"][i]),
        tpot_s=_tpot_or_none(grid["max_tpot"][i]), ttft_s=float(grid["max_ttft"][i]),
        max_requests_per_s=float(grid["max_rps"][i]), comfortable_requests_per_s=float(grid["comf_rps"][i]),
        rate_thin_i18n=thin.to_json() if isinstance(thin, Message) else None,
    ), None


def serving_users_capacity(cat: Catalog, m: ModelArch, req: PlanRequest, device: str,
                           error_bands: dict[str, ErrorBand] | None = None,
                           instance: int | None = None) -> tuple[int | None, Message | None]:
    """The most concurrent users plan accepts on exactly `req.gpus` cards of `device` within the request's targets
    (`capacity_user_configs` over every tp searched, or `req.tp`), and the slots and limit that hold them there
    (`_users_quote`, the message plan's why-not and relax hint carry): compare's `max_users`, one rule with plan's.
    `instance`: the most ranks one instance of the caller's usable offers holds, so only the layouts an offer rents
    count, as in plan (`_rentable`); None: every layout. (None, None) where no batch meets the targets or the device
    is excluded. `req` states `concurrent_users`."""
    r, devs, grid, _ = _one_device_serve_grid(cat, m, req, device, error_bands)
    if grid is None or not grid["dev"].size:
        return None, None
    grid.update(_capacity_rates(error_bands or {}, r, devs, grid, instance))
    quote = _users_quote(grid, 0, r, devs[0].dies)
    return (int(quote.params["slots"]), quote) if quote is not None else (None, None)


def leanest_serving_layout(cat: Catalog, m: ModelArch, req: PlanRequest, device: str) -> Layout | None:
    """The configuration plan's why-not describes when nothing fits exactly `req.gpus` cards of `device`: the one
    needing the least memory over usable (`_why_not`'s "the leanest layout needs N GiB"), so compare's row shows the
    layout its line names (buyer review 2026-12-02: 2×tp8 at 160 GiB beside a tp8·ep2 line of 83.6). None where the
    device is excluded or no replica was searched."""
    _, devs, grid, _ = _one_device_serve_grid(cat, m, req, device)
    if grid is None or not grid["dev"].size:
        return None
    j = int(np.argmin(grid["mem"] - grid["usable"]))
    if int(grid["replicas"][j]) < 1:
        return None
    d = devs[0]
    return Layout(device=d.acc.id, framework=d.framework.id if d.framework else "", engine=d.engine,
                  gpus=int(grid["gpus"][j]), tp=int(grid["tp"][j]), pp=1, dp=int(grid["replicas"][j]),
                  ep=int(grid["ep"][j]), zero=None, recompute=None, precision=_precision_of(grid, j, req),
                  micro_batch=int(grid["b"][j]), grad_accum=None, flash_attention=_flash(d.stack),
                  tokens_per_s=float(grid["tok_s"][j]), memory_needed_bytes=float(grid["mem"][j]),
                  memory_usable_bytes=float(grid["usable"][j]))


def plan_workload(p: Plan | Layout, req: PlanRequest) -> Workload:
    """The `suanli estimate` workload that reproduces plan `p` (tests re-estimate every plan with it)."""
    if req.task == "inference":
        return make_workload(task="inference", precision=p.precision, batch=p.micro_batch, input=req.input,
                             output=req.output, tp=p.tp, ep=p.ep, gpus=p.gpus, engine=p.engine,
                             flash_attention=p.flash_attention,
                             download_gbit_per_s=p.download_gbit_per_s if isinstance(p, Plan) else None)
    return _train_workload(req, p.precision, batch=p.micro_batch, gpus=p.gpus, tp=p.tp, pp=p.pp, vpp=p.vpp, ep=p.ep,
                           tp_comm_overlap=p.tp_comm_overlap,
                           zero=p.zero or 0, recompute=p.recompute or "none", grad_accum=p.grad_accum or 1,
                           framework=p.framework or None, optimizer=p.optimizer or "adamw",
                           offload_optimizer=p.offload_optimizer,
                           inter_node_gbit_per_s=p.inter_node_gbit_per_s, flash_attention=p.flash_attention,
                           download_gbit_per_s=p.download_gbit_per_s if isinstance(p, Plan) else None)


def _make_plan(rank: int, d: _Device, grid: dict[str, np.ndarray], i: int, cost: float, cost_max: float,
               offer: Offer, mig: float, one_off: float, total: float, req: PlanRequest, training: bool,
               cat: Catalog, today: dt.date) -> Plan:
    d = _row_device(cat, d, grid, i)  # the framework this row was searched under
    gpus = int(grid["gpus"][i])  # ranks: a 910C's dies (`catalog.ranks`)
    cards, shown = whole_cards(gpus, d.dies), d.card_offer(offer)  # what is rented: cards, the offer in cards
    # the device as the plan names it: '8× Huawei Ascend 910C (16 dies)', memory and tp per die; one die a card: as is
    device = d.count_kw(gpus)["device"]
    per_die = d.dies > 1  # the reason's wording per die: '2-die replicas', 'usable GiB per die'
    warnings: list[Message] = []
    scaling = float(grid["scaling"][i])
    if gpus > 1 and d.acc.interconnect in ("none", "pcie") and scaling < 0.95:
        warnings.append(Message("plan.warn.no_nvlink", interconnect=d.acc.interconnect, efficiency=scaling))
    # an NVLink bridge joins 2 cards: a wider group (a serving replica's tp; in training every card, whose gradients
    # are all-reduced) talks over PCIe as well
    group = gpus if training else int(grid["tp"][i])
    if group > 2 and d.acc.interconnect == "nvlink-bridge" and scaling < 0.95:
        warnings.append(Message("plan.warn.nvlink_bridge", cards=group, efficiency=scaling))
    if d.weeks[1] > 0:
        warnings.append(Message("plan.warn.migration_share", weeks_min=d.weeks[0], weeks_max=d.weeks[1],
                                engineers=cost_assumptions(cat).migration_engineers.value, why=d.weeks[2], one_off=one_off, share=mig,
                                months=req.migration_months))
    # idle cards by `job_cost`'s one rule (tco and compare say the same): whole instances (or a block) billed
    # beyond the plan's cards; the hours do not change them
    idle = job_cost(shown, cards, 0.0).idle_cards
    block = shown.min_cards_per_order or 0
    if block > cards:
        warnings.append(Message("plan.warn.whole_block", block=block, idle=idle))
    elif idle:
        warnings.append(Message("plan.warn.idle_cards", cards=shown.cards, idle=idle))
    if training:  # the step the layout runs: b × ga × dp sequences, at or above the global batch asked (task I.2)
        step = int(grid["b"][i] * grid["ga"][i] * grid["dp"][i])
        if step != req.global_batch:
            warnings.append(Message("plan.warn.step_batch", step=step, tokens=step * req.seq, asked=req.global_batch,
                                    dp=int(grid["dp"][i]), mb=int(grid["b"][i]), ga=int(grid["ga"][i])))
        if _precision_of(grid, i, req) == "fp8" and d.framework is not None and d.framework.fp8_recipe:
            # the FP8 recipe the speed assumes, and convergence unchecked (buyer review 2026-12-02, task F.3)
            warnings.append(Message("plan.warn.fp8_training", framework=d.framework.name,
                                    recipe=d.framework.fp8_recipe, source=d.framework.fp8_source or "",
                                    field="precision"))
    export_note = china_export_controlled(d.acc)
    if export_note:  # whatever the offer's region: a Chinese listing of such a card is no licence
        warnings.append(Message("plan.warn.china_export", device=_device_name(d.acc), device_id=d.acc.id))
    if is_international(offer.region):
        warnings.append(Message("plan.warn.international_offer", provider=both(offer.provider, offer.provider_zh),
                                region=offer.region))
        if not d.acc.domestic and not export_note:
            warnings.append(Message("plan.warn.export_control"))
    if is_stale(offer, today, req.stale_months):  # no fresh offer of the device could rent this configuration
        warnings.append(Message("plan.warn.stale", offer=offer.id, provider=both(offer.provider, offer.provider_zh),
                                date=offer.date,
                                months=offer_age_months(offer, today), limit=req.stale_months))
    if offer.kind not in RENTABLE_KINDS:  # a listing, or the buyer's own contract price: rentable as priced
        warnings.append(Message("plan.warn.not_listing", kind=Message(f"offer_kind.{offer.kind}"), source=offer.source))
    for assumed in offer.assumed:  # an offer field the catalog read by assumption (Offer.assumed): the plan rests on it
        # `column`, not `field`: an offer's data field, not an input (a `field` parameter is named as the form's)
        warnings.append(Message("plan.warn.offer_assumed", offer=offer.id, column=assumed.field,
                                note={"en": assumed.note, "zh": assumed.note_zh}))
    if gpus > d.acc.max_cards_per_node and training:
        nodes = math.ceil(gpus / d.acc.max_cards_per_node)
        # name the node offer and its inter-node network (issue 11)
        warnings.append(Message("plan.warn.nodes_offer", nodes=nodes, offer=offer.id,
                                provider=both(offer.provider, offer.provider_zh),
                                network=network_text(offer)))  # in both languages (buyer review 2026-12-01)
    dl_gbit = float(grid["dl_gbit"][i])
    if not math.isnan(dl_gbit) and grid["dl_h"][i] > SLOW_DOWNLOAD_H and grid["billed"][i] > 0:
        warnings.append(Message("plan.warn.slow_download", gb=float(grid["dl_bytes"][i]) / 1e9,
                                download=duration(float(grid["dl_h"][i])), mbit=dl_gbit * 1000, offer=offer.id))
    billing = billing_note(shown, float(grid["hours"][i]))  # the one rule tco and compare note too
    if billing is not None:
        warnings.append(billing)
    job_h = float(grid["hours"][i])
    if training and req.deadline_hours is None and job_h > LONG_JOB_HOURS:  # a plan nobody would run as it stands
        warnings.append(Message("plan.warn.long_job", hours=duration(job_h), years=job_h / HOURS_PER_YEAR,
                                limit=LONG_JOB_HOURS / HOURS_PER_YEAR, cards=cards, field="deadline_hours",
                                need=math.ceil(cards * job_h / LONG_JOB_HOURS), cards_field="gpus"))
    prec = _precision_of(grid, i, req)
    if not training:
        # what bounds decode at the row's batch, as `suanli estimate` says it (buyer review 2026-12-03 E: an H20 at
        # batch 100 is compute-bound, and the plan said "bandwidth decides tokens/s")
        warnings.append(Message("plan.warn.decode_compute_bound", batch=int(grid["b"][i]))
                        if bool(grid["dc_compute"][i]) else Message("plan.warn.decode_bound"))
        if d.stack.engines_alike_source:  # the engines there get the same figures: say so, not silently equal
            warnings.append(engines_alike(d.stack))
        if prec in ("int4", "int8", "fp8"):
            warnings += quantization_warnings(d.stack, prec, _stack_name(d.stack))  # and the scheme, cited
    warnings += [m for m in [nf4_speed_warning(d.stack)] if m is not None and req.task == "qlora"]
    off = recompute_off(cat, d.framework.id, RECOMPUTE[int(grid["rec"][i])]) if training and d.framework else None
    if off is not None:  # timed and sized without the recompute the framework runs unless told not to
        warnings.append(Message("plan.warn.recompute_off", framework=d.framework.name if d.framework else "",
                                setting=off))
    mem_gib = grid["mem"][i] / GiB
    usable_gib = grid["usable"][i] / GiB
    fw = d.framework.name if d.framework else "?"
    # serving: the whole group a replica needs where it shares experts, as the table's label (task H2)
    layout = None if training else replica_words(int(grid["replicas"][i]), int(grid["tp"][i]), int(grid["ep"][i]),
                                                 d.engine, d.dies)
    if training:
        reason = Message("plan.reason.train_fw_dies" if per_die else "plan.reason.train_fw",
                         objective=req.objective, gpus=cards, device=device, framework=fw,
                         hours=duration(float(grid["hours"][i])), setup=duration(float(grid["setup_h"][i])),
                         cost=cost, billing=offer.billing_unit, mem_gib=mem_gib, usable_gib=usable_gib)
    elif not req.requests_per_s:  # a batch job (tokens to generate): what it processes and in how long, no latency
        reason = Message("plan.reason.serve_tokens_dies" if per_die else "plan.reason.serve_tokens",
                         objective=req.objective, replicas=int(grid["replicas"][i]),
                         tp=int(grid["tp"][i]), engine=d.engine, device=device, tokens=req.tokens or 0.0, layout=layout,
                         hours=duration(float(grid["hours"][i])), cost=cost, billing=offer.billing_unit,
                         mem_gib=mem_gib, usable_gib=usable_gib)
    elif np.isnan(grid["tpot"][i]):  # one output token: no inter-token gap, no TPOT to quote (`steady_tpot_s`)
        reason = Message("plan.reason.serve_replicas_no_tpot_dies" if per_die else "plan.reason.serve_replicas_no_tpot",
                         objective=req.objective,
                         replicas=int(grid["replicas"][i]), tp=int(grid["tp"][i]), engine=d.engine, layout=layout,
                         device=device, hours=duration(float(grid["hours"][i])), cost=cost,
                         billing=offer.billing_unit, ttft_ms=float(grid["ttft"][i]) * 1000, mem_gib=mem_gib,
                         usable_gib=usable_gib)
    else:
        reason = Message("plan.reason.serve_replicas_dies" if per_die else "plan.reason.serve_replicas",
                         objective=req.objective, replicas=int(grid["replicas"][i]),
                         tp=int(grid["tp"][i]), engine=d.engine, device=device, layout=layout,
                         hours=duration(float(grid["hours"][i])), cost=cost, billing=offer.billing_unit,
                         ttft_ms=float(grid["ttft"][i]) * 1000, tpot_ms=float(grid["tpot"][i]) * 1000,
                         mem_gib=mem_gib, usable_gib=usable_gib)
    cal_h = float(calendar_hours(job_h, _weeks_mid(d.weeks)))
    if cal_h > job_h and calendar_counts(req):  # the clock this plan ranked (fastest) or was kept (deadline) on
        reason = Message("plan.reason.with", reason=reason, extra=Message(
            "plan.reason.calendar", calendar=duration(cal_h), migration=duration(cal_h - job_h),
            stack=_stack_name(d.stack), stack_id=d.stack.id, field="already_on"))
    # where to rent it: provider, price per card-unit, kind, date (the offer formatter rent-vs-buy uses too)
    full_reason: Message = Message("plan.reason.with", reason=reason,
                                   extra=Message("plan.reason.rent", rent=rent_message(shown)))
    sub = req.subsidy if d.acc.domestic else 0.0  # the subsidy `_price` applied: gross → net (plan.cost, one rule)
    sub_msg = subsidy_note(gross_of(cost, sub), sub)
    if sub_msg is not None:
        full_reason = Message("plan.reason.with", reason=full_reason, extra=sub_msg)
    first_h = None if training else float(grid["first_h"][i])
    if first_h is not None:
        env_h = job_setup(cat).environment_minutes.value / 60
        dl_h = float(grid["dl_h"][i])
        which = ("plan.reason.job_start" if not req.requests_per_s  # a batch job starts and ends; it serves no one
                 else "plan.reason.first_serve_in_period" if req.setup_in_period and grid["billed"][i] > 0
                 else "plan.reason.first_serve_billed" if grid["billed"][i] > 0 else "plan.reason.first_serve")
        full_reason = Message("plan.reason.with", reason=full_reason, extra=Message(
            which, hours=duration(first_h), env=duration(env_h), download=duration(dl_h),
            load=duration(first_h - env_h - dl_h), period=duration(float(grid["hours"][i])),
            serving=duration(float(grid["compute_h"][i]))))
    opt = int(grid["opt"][i]) if training and "opt" in grid else OPT_PLAIN
    if opt == OPT_OFFLOAD and "host_b" in grid:  # no offer states its host memory: said, not checked
        warnings.append(Message("plan.warn.offload_host_ram", gib=float(grid["host_b"][i]) / GiB))
    if opt != OPT_PLAIN:  # the memory-saving measure this plan needs, and why (no plain layout fits these cards, or
        # the one that does is likely short: `_keep_fallbacks_of`, the plain row with the most headroom named)
        plain = np.nonzero((grid["dev"] == grid["dev"][i]) & (grid["gpus"] == gpus) & (grid["opt"] == OPT_PLAIN)
                           & grid["fits"])[0]
        why = "plan.reason.offload" if opt == OPT_OFFLOAD else "plan.reason.adamw8bit"
        short: dict[str, Any] = {}
        if plain.size:
            j = int(plain[np.argmin(grid["mem"][plain] / grid["usable"][plain])])
            why = "plan.reason.offload_short" if opt == OPT_OFFLOAD else "plan.reason.adamw8bit_short"
            short = dict(need_gib=float(grid["mem"][j]) / GiB, usable_gib=float(grid["usable"][j]) / GiB)
        full_reason = Message("plan.reason.with", reason=full_reason,
                              extra=Message(d.said(why) if short else why, gpus=cards, device=device, **short))
    if not training and req.concurrent_users:  # the slots that hold the users, each with a request in flight
        full_reason = Message("plan.reason.with", reason=full_reason, extra=Message(
            "plan.reason.slots", slots=int(grid["replicas"][i] * grid["b"][i]), replicas=int(grid["replicas"][i]),
            batch=int(grid["b"][i]), users=req.concurrent_users))
    if mig > 0:
        full_reason = Message("plan.reason.with", reason=full_reason, extra=Message("plan.reason.migration_share", cost=mig))
    # the budget checks rent + the migration share; the first month pays the whole one-off (buyer review 2026-12-02,
    # task H4: ¥17,500 within ¥30,000 was ¥45,000 in month 1): said beside the budget, a warning where it is over
    cash = first_month_cash(cost, float(grid["hours"][i]), one_off)
    if req.budget_cny is not None and one_off > 0:
        if cash > req.budget_cny:
            warnings.append(Message("plan.warn.first_month_over_budget", cash=cash, budget=req.budget_cny,
                                    total=total, one_off=one_off, months=req.migration_months))
        else:
            full_reason = Message("plan.reason.with", reason=full_reason, extra=Message(
                "plan.reason.first_month", cash=cash, budget=req.budget_cny))
    if export_note:
        full_reason = Message("plan.reason.with", reason=full_reason,
                              extra=Message("plan.reason.export_risk", device=_device_name(d.acc)))
    # serving: the load the bill buys, the rate the plan is sized for × output tokens (a batch job: its own rate)
    load_tok_s = (req.requests_per_s * req.output if req.requests_per_s else float(grid["tok_s"][i]))
    return Plan(
        rank=rank,
        device=d.acc.id,
        device_name=d.acc.name,
        device_name_i18n=device_name_message(d.acc.name, d.acc.name_zh).to_json(),
        framework=d.framework.id if d.framework else "",
        engine=d.engine,
        gpus=gpus,
        **({"dies_per_card": d.dies, "cards": cards} if d.dies > 1 else {}),
        tp=int(grid["tp"][i]),
        pp=int(grid["pp"][i]),
        vpp=int(grid["vpp"][i]) if training else 1,
        tp_comm_overlap=bool(training and d.framework is not None and tp_overlap_runs(d.framework, d.acc)
                             and grid["tp"][i] > 1),
        dp=int(grid["dp"][i]),
        ep=int(grid["ep"][i]),
        zero=int(grid["zero"][i]) if training else None,
        recompute=RECOMPUTE[int(grid["rec"][i])] if training else None,
        precision=prec,
        micro_batch=int(grid["b"][i]),
        grad_accum=int(grid["ga"][i]) if training else None,
        optimizer=_optimizer_of(grid, i) if training else None,
        offload_optimizer=opt == OPT_OFFLOAD,
        offload_host_bytes_per_node=float(grid["host_b"][i]) if opt == OPT_OFFLOAD and "host_b" in grid else None,
        replicas=None if training else int(grid["replicas"][i]),
        inter_node_gbit_per_s=None if np.isnan(grid["net"][i]) else float(grid["net"][i]),
        download_gbit_per_s=None if math.isnan(dl_gbit) else dl_gbit,
        flash_attention=_flash(d.stack),
        ttft_s=None if training else float(grid["ttft"][i]),
        tpot_s=None if training else _tpot_or_none(grid["tpot"][i]),
        memory_per_gpu_bytes=float(grid["mem"][i]),
        memory_needed_bytes=float(grid["mem"][i]),
        memory_usable_bytes=float(grid["usable"][i]),
        memory_capacity_bytes=float(grid["cap"][i]),
        tokens_per_s=float(grid["tok_s"][i]),
        load_output_tokens_per_s=None if training else load_tok_s,
        cny_per_million_output_tokens=None if training else cny_per_million_output_tokens(
            cost, load_tok_s, float(grid["compute_h"][i])),
        compute_hours=float(grid["compute_h"][i]),
        setup_hours=float(grid["setup_h"][i]),
        hours=float(grid["hours"][i]),
        calendar_hours=cal_h,
        first_serve_hours=first_h,
        cost_cny=cost,
        cost_cny_max=cost_max,
        subsidy=sub,
        gross_cost_cny=gross_of(cost, sub),
        offer=offer.id,
        offer_kind=offer.kind,
        billing_unit=offer.billing_unit,
        migration_weeks=(d.weeks[0], d.weeks[1]),
        migration_one_off_cny=one_off,
        migration_cost_cny=mig,
        total_cost_cny=total,
        first_month_cash_cny=cash if req.budget_cny is not None else None,
        scaling_efficiency=scaling,
        reason=render(full_reason),
        warnings=[render(w) for w in warnings],
        reason_i18n=full_reason.to_json(),
        warnings_i18n=[w.to_json() for w in warnings],
    )


def _optimizer_of(grid: dict[str, np.ndarray], i: int) -> str:
    return "adamw8bit" if "opt" in grid and int(grid["opt"][i]) == OPT_8BIT else "adamw"


def _precision_of(grid: dict[str, np.ndarray], i: int, req: PlanRequest) -> str:
    if req.task == "qlora":
        return "nf4"
    p = int(grid["prec"][i])
    return SERVE_PRECISIONS[p] if p >= 0 else "bf16"


def _pareto(devs: list[_Device], grid: dict[str, np.ndarray], k: np.ndarray, cost: np.ndarray,
            hours: np.ndarray) -> list[dict[str, Any]]:
    """Configurations no other beats on both cost and time, cheapest first."""
    if k.size == 0:
        return []
    order = np.lexsort((hours, cost))
    h = hours[order]
    # on the front: faster than everything cheaper (running minimum of hours over the cost-sorted list)
    prev_best = np.concatenate(([np.inf], np.minimum.accumulate(h)[:-1]))
    on = order[h < prev_best * (1 - 1e-9)]
    front: list[dict[str, Any]] = []
    for j in on[:50]:
        i = k[j]
        front.append({
            "device": devs[int(grid["dev"][i])].acc.id, "gpus": int(grid["gpus"][i]),
            "hours": float(hours[j]), "cost_cny": float(cost[j]),
            "replicas": int(grid["replicas"][i]), "tpot_s": None if np.isnan(grid["tpot"][i]) else float(grid["tpot"][i]),
        })
    return front


def _round_up(x: float, digits: int = 3) -> float:
    """`x` rounded up to `digits` significant figures (a limit raised to it admits the configuration that reached x)."""
    if not math.isfinite(x) or x <= 0:
        return x
    step = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return math.ceil(x / step * (1 - 1e-12)) * step


def _binding(grid: dict[str, np.ndarray], rows: np.ndarray) -> tuple[list[tuple[int, int]], bool]:
    """Of configurations `rows` (grid indices) none of which qualifies: the request limits (F_TPOT, F_TTFT, F_CARDS,
    F_RATE) that remove the ones that fit in memory, each with the configuration nearest to it — lowest TPOT/TTFT,
    fewest cards, most throughput — and whether lifting one limit alone leaves a plan (`alone`; otherwise each
    nearest is over every configuration that fits). Empty when none fits in memory: memory is what binds."""
    fail = grid["fail"][rows]
    fit = rows[(fail & F_MEMORY) == 0]
    if fit.size == 0:
        return [], False
    ff = grid["fail"][fit]
    metric = {F_TPOT: grid["tpot"], F_TTFT: grid["ttft"], F_CARDS: grid["gpus"], F_RATE: -grid["tok_s"]}
    alone = [b for b in _LIMIT_BITS if ((ff & b) > 0).any() and ((ff & ~b) == 0).any()]
    out: list[tuple[int, int]] = []
    for b in alone or [b for b in _LIMIT_BITS if ((ff & b) > 0).any()]:
        cand = fit[(ff & ~b) == 0] if alone else fit
        j = int(cand[int(np.argmin(metric[b][cand]))])
        if alone or b not in (F_TPOT, F_TTFT) or grid["fail"][j] & b:  # a latency some configuration meets: not it
            out.append((b, j))
    return out, bool(alone)


def _more_cards_reach(b: int, grid: dict[str, np.ndarray], i: int, rows: np.ndarray | None = None) -> int | None:
    """Serving, latency limit `b` (F_TPOT/F_TTFT) missed by configuration `i`, the nearest within the card limit: the
    configuration among `rows` (default: `i`'s device's) that fits in memory and comes nearer only on more cards than
    the limit allows — the one nearest the limit (fewest cards among those meeting it) — else None (the cards did not
    bind: no count reaches lower)."""
    if b not in (F_TPOT, F_TTFT) or "need_tp" not in grid:
        return None
    key = "tpot" if b == F_TPOT else "ttft"
    rows = np.arange(grid["dev"].shape[0]) if rows is None else rows
    rows = rows[grid["dev"][rows] == grid["dev"][i]]
    f = grid["fail"][rows]
    more = rows[((f & F_MEMORY) == 0) & ((f & F_CARDS) > 0) & ((f & ~(F_CARDS | b)) == 0)
                & (grid[key][rows] < grid[key][i])]
    if more.size == 0:
        return None
    meets = more[(grid["fail"][more] & b) == 0]
    if meets.size:
        return int(meets[np.lexsort((grid[key][meets], grid["gpus"][meets]))[0]])
    return int(more[int(np.argmin(grid[key][more]))])


def _limit_reason(b: int, grid: dict[str, np.ndarray], i: int, req: PlanRequest, d: _Device) -> Message:
    """Why-not for device `d` whose nearest configuration `i` misses request limit `b`; for TPOT/TTFT, when more cards
    than the limit allows would come nearer, within that limit and what the more cards reach (`why.tpot_cards`).
    Counts are the cards rented, as --max-gpus counts them, with their dies on a card of several (`_Device.said`)."""
    gpus = int(grid["gpus"][i])  # ranks: a 910C's dies
    if b in (F_TPOT, F_TTFT):
        key = "tpot" if b == F_TPOT else "ttft"
        limit_s = (req.tpot_s if b == F_TPOT else req.ttft_s) or 0
        more = _more_cards_reach(b, grid, i)
        if more is not None:
            ranks = int(grid["gpus"][more])
            return Message(d.said(f"why.{key}_cards"), ms=float(grid[key][i]) * 1000, limit_ms=limit_s * 1000,
                           limit=req.card_limit, gpus=d.cards(ranks), **d.dies_kw("ranks", ranks),
                           more_ms=float(grid[key][more]) * 1000)
        return Message(f"why.{key}", ms=float(grid[key][i]) * 1000, limit_ms=limit_s * 1000)
    counted = dict(gpus=d.cards(gpus), **d.dies_kw("ranks", gpus))
    if b == F_CARDS:
        return Message(d.said("why.cards"), **counted, limit=req.card_limit)
    slots = int(grid["replicas"][i] * grid["b"][i])
    quote = _users_quote(grid, i, req, d.dies) if req.concurrent_users else None
    if quote is not None and quote.params["slots"] < (req.concurrent_users or 0):  # the most users plan accepts
        return Message(d.said("why.slots_gpus"), **counted, slots=quote.params["slots"], layout=quote,
                       users=req.concurrent_users)
    if req.concurrent_users and slots < req.concurrent_users:  # fewer slots than users, each with a request in flight
        return Message(d.said("why.slots_gpus"), **counted, slots=slots, users=req.concurrent_users,
                       layout=Message("users.slots_row", replicas=int(grid["replicas"][i]), batch=int(grid["b"][i])))
    return Message(d.said("why.rate_gpus"), **counted, rps=_rate_at_most(grid, i, req),
                   thin=_rate_thin(grid, i, req), want=req.requests_per_s or 0.0)


def _largest_instance(d: _Device) -> int:
    """The most cards one instance of the device's usable offers holds (0: it has no usable offer)."""
    return max((max_cards(o, d.acc.max_cards_per_node) for o in d.offers), default=0)


def at_precision(value: int | str | Message, precision: str) -> Message:
    """A why-not figure's tp (or framework) with the precision its memory was worked out at, the one wording: "at tp
    8 in int8 it needs 78.9 GiB per card" — at bf16 the same replica needs about twice that (buyer review 2026-12-03,
    task J.2: DeepSeek-R1's A800 row gave int8's figure unnamed)."""
    return Message("why.at_precision", value=value, precision=precision)


def no_rent_why(tp: int, largest: int, serving: bool, dies: int = 1, ep: int = 1, ranks: int = 0,
                node_ranks: int = 0) -> Message:
    """Why no usable offer rents a configuration, the one sentence plan's why-not and compare's unpriced row give:
    serving whose tensor-parallel group of `tp` ranks is wider than the `largest` instance an offer holds (in ranks;
    replicas never span nodes), "a replica fits from tp N, N cards in one instance"; training of `ranks` within one
    node (`node_ranks`) on instances smaller than the job, "the largest instance holds N card(s): separate instances
    cannot form one M-card job" (`offers.can_rent`: within a node that is the only bar; buyer review 2026-12-03, task
    H: 8 × H20 on a 1-card offer read "multi-node jobs need node or cluster offers"); else no offer holds the job. A
    card of `dies` dies (the 910C) says the tp in dies and the instance in cards with its dies. An expert-parallel
    group (`ep` > 1: ep replicas of tp cards sharing the routed experts) names the whole group (`labels.replica_words`),
    on a card of several dies in cards with its dies (buyer review 2026-12-03, task J.4: a tp8 × ep2 group read "a
    replica fits from tp 16, 16 dies in one instance")."""
    if serving and ep > 1 and 0 < largest < tp * ep:
        if dies > 1:
            return Message("why.serve_no_instance_ep_dies", group=replica_words(ep, tp, ep, dies=dies),
                           largest=whole_cards(largest, dies), ranks=largest)
        return Message("why.serve_no_instance_ep", cards=tp * ep, group=replica_words(ep, tp, ep), largest=largest)
    if serving and 0 < largest < tp:
        if dies > 1:
            return Message("why.serve_no_instance_dies", tp=tp, largest=whole_cards(largest, dies), ranks=largest)
        return Message("why.serve_no_instance", tp=tp, largest=largest)
    if not serving and 0 < largest < ranks <= node_ranks:  # separate instances never form one training job
        return Message("why.train_no_instance", largest=whole_cards(largest, dies), cards=whole_cards(ranks, dies))
    return Message("why.no_usable_offer")


def _smallest_replica(grid: dict[str, np.ndarray], rows: np.ndarray) -> tuple[int, int] | None:
    """Serving: the smallest replica that fits in memory at batch 1 among `rows`' devices and precisions, (tp, ep) —
    the fewest cards, then ep 1 before experts shared; `_fit_tp` worked it out over every ep searched, so the card
    limit does not move it (buyer review 2026-12-02, task H1) — or None where none fits up to the last of NEED_TPS."""
    if "small_tp" not in grid or rows.size == 0:
        return None
    tp, ep = grid["small_tp"][rows], grid["small_ep"][rows]
    ok = np.isfinite(tp)
    if not ok.any():
        return None
    k = int(np.argmin(np.where(ok, tp * ep * 1000 + ep, np.inf)))
    return int(tp[k]), int(ep[k])


def _replica_too_big(grid: dict[str, np.ndarray], rows: np.ndarray, d: _Device) -> Message | None:
    """Serving: where the smallest replica that fits (`_smallest_replica`) is wider than the largest instance any
    usable offer of device `d` rents, the why-not that says so (`no_rent_why`: no --max-gpus helps); else None."""
    small = _smallest_replica(grid, rows)
    largest = _largest_instance(d)
    if small is None or not 0 < largest < small[0] * small[1]:
        return None
    tp, ep = small
    return no_rent_why(tp, largest, True, d.dies, ep)


def _replica_need(grid: dict[str, np.ndarray], rows: np.ndarray, d: _Device, at: dict[str, Any]) -> Message:
    """What one serving replica needs, in `why.serve_replica`'s words: the cards of the smallest that fits
    (`_smallest_replica`), the whole expert-parallel group where it shares experts (`why.serve_need_ep`), or that
    none fits up to the last of NEED_TPS; `at` the leanest row's tp and memory."""
    small = _smallest_replica(grid, rows)
    if small is None:
        return Message(d.said("why.serve_need_none"), max_tp=NEED_TPS[-1], **at)
    tp, ep = small
    if ep > 1:  # the whole group, in cards with its dies on a 910C (buyer review 2026-12-03, task J.4)
        return Message(d.said("why.serve_need_ep"), cards=whole_cards(tp * ep, d.dies),
                       group=replica_words(ep, tp, ep, dies=d.dies), **at)
    return Message(d.said("why.serve_need_tp"), need_tp=tp, **at)


# Offer.single_card_why -> the message saying it (static ids: the catalog-ids test finds them)
_SINGLE_CARD_WHY = {"form_factor_unpublished": "why.single_card_form_factor"}


def _single_card_why(d: _Device, grid: dict[str, np.ndarray], i: int) -> list[Message]:
    """Why-not clauses for the device's usable one-card rows that say why they are not combined into a multi-card job
    (`Offer.single_card_why`), when every layout of the device that fits needs more than one card (the rule itself is
    `max_cards`; this only says it)."""
    fits = (grid["dev"] == i) & grid["fits"]
    if not fits.any() or int(grid["gpus"][fits].min()) <= 1:
        return []
    return [Message("why.single_card_offer", provider=both(o.provider, o.provider_zh), billing=o.billing_unit,
                    offer=o.id, why=Message(_SINGLE_CARD_WHY[o.single_card_why]))
            for o in d.offers if o.single_card_why is not None and max_cards(o, d.acc.max_cards_per_node) == 1]


def _passes_evidence(p: Plan) -> bool:
    """Whether plan `p` passes the evidence checks: none of its margin warnings is one `demoted` sinks it for."""
    return not any(demoted(Message.from_json(w)) for w in p.warnings_i18n
                   if isinstance(w, dict) and str(w.get("id", "")).startswith(_MARGIN_WARNINGS))


_MARGIN_WARNINGS = ("plan.warn.within_error", "plan.warn.memory_within_error")  # `known_error`'s ids


def _cards_evidence(cat: Catalog, m: ModelArch, req: PlanRequest, today: dt.date, bands: dict[str, ErrorBand],
                    devs: list[_Device], grid: dict[str, np.ndarray], tip: Message) -> Message:
    """Serving's "needs at least N cards; raise max_gpus to N" (`relax.cards`) where the layouts on N cards fail the
    evidence checks (`_evidence_fails`: plan at N would rank its plan as likely to miss; buyer review 2026-12-03:
    Qwen2.5-72B, 2,000 users on 910Bs, 136 cards leave 3 % of TPOT): the plan `plan` itself returns with `max_gpus`
    at the fewest cards on which a layout the card limit removed passes them, its layout, cards and cost
    (`relax.cards_passing`), or that N is a lower bound (`relax.cards_lower`) where none passes or that plan does
    not. `tip` as it is where a layout on N cards passes."""
    rows = _one_instance(grid, np.arange(grid["dev"].shape[0]), devs)
    rows = rows[grid["fail"][rows] == F_CARDS]  # the layouts the card limit alone removed
    n = int(tip.params.get("ranks", tip.params["gpus"]))  # in ranks, as the grid counts (the tip's gpus are cards)
    fails = _evidence_fails(bands, req, devs, grid, rows, np.zeros(rows.size))
    at_n = grid["gpus"][rows] == n
    if not at_n.any() or not fails[at_n].all():
        return tip
    kw = {k: tip.params[k] for k in ("gpus", "ranks", "replicas", "tp", "device", "field", "layout") if k in tip.params}
    dies = "_dies" if tip.id.endswith("_dies") else ""  # the tip's wording: cards with their dies on a 910C
    passing = rows[~fails]
    if not passing.size:
        return Message(f"relax.cards_lower{dies}", **kw)
    first = int(passing[np.argmin(grid["gpus"][passing])])  # --max-gpus counts cards: the ranks' whole cards
    r = req.model_copy(update={"max_gpus": devs[int(grid["dev"][first])].cards(int(grid["gpus"][first]))})
    try:
        found = plan(cat, m, r, today, bands, precision_up=False).plans
    except SuanliError:
        found = []
    best = next((p for p in found if _passes_evidence(p)), None)
    if best is None:
        return Message(f"relax.cards_lower{dies}", **kw)
    # the plan's cards rented (a 910C plan's gpus are its ranks), with those ranks in the tip's `_dies` wording
    return Message(f"relax.cards_passing{dies}", **kw, p_gpus=best.cards or best.gpus,
                   **({"p_ranks": best.gpus} if dies else {}), p_replicas=best.replicas, p_tp=best.tp,
                   p_layout=replica_words(best.replicas or best.dp, best.tp, best.ep, dies=best.dies_per_card or 1),
                   p_device=_device_name(lookup.accelerator(cat, best.device)), cost=best.total_cost_cny)


def _wide_grid(cat: Catalog, m: ModelArch, req: PlanRequest, devs: list[_Device],
               bands: dict[str, ErrorBand] | None = None) -> dict[str, np.ndarray] | None:
    """Serving, the card count unpinned: `_serve_grid` with replicas as wide as the largest instance a usable offer
    rents (in ranks), so the card-limit hint sees the widths --max-gpus left out (a limit of 4 searched no 8-card
    replica). Its rows within the limit are plan's own (the batches searched do not depend on the limit,
    `_serve_batches`); the wider ones fail on F_CARDS. None where no device rents an instance wider than the limit."""
    if req.task != "inference" or req.gpus is not None:
        return None
    live = [d for d in devs if d.excluded is None and d.engine is not None]
    if not any(_largest_instance(d) > ranks_in(req.card_limit, d.dies) for d in live):
        return None
    grid = _serve_grid(cat, m, req, devs, bands, max(_largest_instance(d) for d in live))[0]
    grid.update(_capacity_rates(bands or {}, req, devs, grid))  # the rate and users quotes, as plan's grid has them
    return grid


def _one_instance(grid: dict[str, np.ndarray], rows: np.ndarray, devs: list[_Device]) -> np.ndarray:
    """Serving: the configurations among `rows` a plan could rent, whose replica (its tensor-parallel group) fits one
    instance of a usable offer of its device (replicas never span nodes); training: `rows` as they are."""
    if "need_tp" not in grid or rows.size == 0:
        return rows
    largest = np.array([_largest_instance(d) for d in devs], dtype=float)[grid["dev"][rows]]
    # an expert-parallel group (ep replicas sharing the routed experts) sits in one instance as a replica does
    return rows[(largest > 0) & (grid["tp"][rows] * grid["ep"][rows] <= largest)]


def _instance_limit_reason(b: int, grid: dict[str, np.ndarray], rows: np.ndarray, j: int, req: PlanRequest,
                           d: _Device) -> Message:
    """Why-not for a serving device whose configuration `j`, the nearest to limit `b` that one rentable instance
    holds, misses it; for TPOT/TTFT, when a wider tensor-parallel group among `rows` (the device's) comes nearer
    but needs a larger instance than any offer rents, that too (`why.tpot_instance`)."""
    if b not in (F_TPOT, F_TTFT):
        return _limit_reason(b, grid, j, req, d)
    key = "tpot" if b == F_TPOT else "ttft"
    fit = rows[(grid["fail"][rows] & F_MEMORY) == 0]
    best = int(fit[int(np.argmin(grid[key][fit]))]) if fit.size else j
    largest = _largest_instance(d)
    if grid[key][best] >= grid[key][j] or grid["tp"][best] <= largest:
        return _limit_reason(b, grid, j, req, d)
    limit_s = (req.tpot_s if b == F_TPOT else req.ttft_s) or 0
    return Message(d.said(f"why.{key}_instance"), ms=float(grid[key][j]) * 1000, limit_ms=limit_s * 1000,
                   largest=d.cards(largest), **d.dies_kw("ranks", largest), tp=int(grid["tp"][best]),
                   tp_ms=float(grid[key][best]) * 1000)


def _relaxed_replicas(b: int, grid: dict[str, np.ndarray], i: int, req: PlanRequest, value_s: float) -> int:
    """The replicas configuration `i` needs once latency limit `b` is raised to `value_s`: with concurrent users the
    request rate follows the TPOT/TTFT target (`rate_from_users`, Little's law), so fewer replicas carry it; the
    users' slots (replicas × batch ≥ users) and a pinned card count stay."""
    replicas = int(grid["replicas"][i])
    if not req.concurrent_users or req.gpus is not None or req.tpot_s is None:
        return replicas
    tpot, ttft = (value_s, req.ttft_s or 0.0) if b == F_TPOT else (req.tpot_s, value_s)
    rate = rate_from_users(req.concurrent_users, req.output, tpot, ttft)
    per_replica = float(grid["tok_s"][i]) / max(replicas, 1)
    need = max(math.ceil(rate * req.output / per_replica), math.ceil(req.concurrent_users / float(grid["b"][i])))
    ep = int(grid["ep"][i]) if "ep" in grid else 1
    return -(-need // ep) * ep  # whole expert-parallel groups


def _follows_target(b: int, grid: dict[str, np.ndarray], k: int, req: PlanRequest, value_s: float) -> bool:
    """Whether configuration `k`'s rate check (`_serve_grid`'s held: the throughput and the users' slots) passes
    once latency limit `b` is raised to `value_s`: with concurrent users the rate they send follows the TPOT/TTFT
    target (`rate_from_users`, Little's law), so fewer requests per second; a stated rate does not move."""
    if not req.concurrent_users or req.tpot_s is None:
        return False
    tpot, ttft = (value_s, req.ttft_s or 0.0) if b == F_TPOT else (req.tpot_s, value_s)
    rate = rate_from_users(req.concurrent_users, req.output, tpot, ttft)
    return bool(grid["replicas"][k] * grid["b"][k] >= req.concurrent_users
                and grid["tok_s"][k] >= rate * req.output)


def _within_others(b: int, grid: dict[str, np.ndarray], rows: np.ndarray | None, req: PlanRequest) -> int | None:
    """Latency limit `b` (F_TPOT/F_TTFT): the configuration among `rows` nearest to it of those that meet every
    other limit once `b` is raised to their own value (`_round_up`, the figure the hint names):
    memory, the other latency and the cards pass, and a rate check missed passes at the raised target
    (`_follows_target`); None where none does. (README walk-through 2026-12-02: with two limits binding, the TPOT
    hint quoted a batch-1 replica's 38.9 ms for 10 users on 4 cards, where that run holds 1 user.)"""
    key = "tpot" if b == F_TPOT else "ttft"
    rows = np.arange(grid["dev"].shape[0]) if rows is None else rows
    f = grid["fail"][rows]
    cand = [int(k) for k in rows[((f & F_MEMORY) == 0) & ((f & ~(b | F_RATE)) == 0)]
            if not grid["fail"][k] & F_RATE or _follows_target(b, grid, int(k), req, _round_up(float(grid[key][k])))]
    return min(cand, key=lambda k: (float(grid[key][k]), k)) if cand else None


def _none_within(b: int, grid: dict[str, np.ndarray], i: int, req: PlanRequest, d: _Device,
                 counted: dict[str, Any]) -> Message | None:
    """The rate hint where no configuration on `i`'s device and card count meets the latency targets (no rate or
    user is served within them, so none can be quoted at them), as a pair the buyer can run: the most requests/s
    (a stated rate: `i`'s, the configuration with the most throughput) or concurrent users (the fewest-TPOT
    configuration's slots) together with the TPOT/TTFT that configuration reaches, rounded up (`_round_up`).
    None where the targets are met somewhere (the capacity quote holds) or every configuration misses both."""
    same = np.nonzero((grid["dev"] == grid["dev"][i]) & (grid["gpus"] == grid["gpus"][i])
                      & ((grid["fail"] & F_MEMORY) == 0))[0]
    if "max_b" in grid and (grid["max_b"][same] >= 1).any():
        return None
    for lb, key, field_, limit_s in ((F_TPOT, "tpot", "tpot_s", req.tpot_s), (F_TTFT, "ttft", "ttft_s", req.ttft_s)):
        if limit_s is None:
            continue
        ok = same[(grid["fail"][same] & ~(lb | F_RATE)) == 0]
        if not (grid["fail"][ok] & lb).any():  # not the latency missed
            continue
        kw = dict(limit=Message("input.name", field=field_), limit_ms=round(limit_s * 1000, 3), device=_device_name(d.acc),
                  other=Message("input.name", field="gpus"), **counted)
        if req.concurrent_users:  # the fewest-latency configuration, and the most users within its latency
            j = int(ok[np.lexsort((ok, grid[key][ok]))[0]])
            value = _round_up(float(grid[key][j]))
            held = ok[grid[key][ok] <= value]
            slots = int((grid["replicas"][held] * grid["b"][held]).max())
            return Message(d.said("relax.users_none"), ms=float(grid[key][j]) * 1000, value=value, slots=slots,
                           field="concurrent_users", **kw)
        if i not in ok or not grid["fail"][i] & lb:
            continue
        rps = round_down_rate(float(grid["tok_s"][i]) / req.output)
        return Message(d.said("relax.rate_none"), ms=float(grid[key][i]) * 1000, value=_round_up(float(grid[key][i])),
                       rps=rps, field="requests_per_s", **kw)
    return None


def _slots_held(grid: dict[str, np.ndarray], i: int, req: PlanRequest, slots: int, dies: int = 1) -> Message:
    """What holds configuration `i`'s slots (replicas × batch) down, in the relax hint's words: a larger batch of the
    same layout that fits in memory but misses --tpot (or --ttft) says "serve at most N concurrent users within
    --tpot X ms"; else (memory, or the largest batch searched) "hold at most N requests at once". With the users'
    capacity (`_users_quote`), what its next batch misses decides."""
    quote = _users_quote(grid, i, req, dies)
    if quote is not None:
        lim = quote.params["limit"]
        for key, field_, limit_s in (("users.limit.tpot", "tpot_s", req.tpot_s), ("users.limit.ttft", "ttft_s",
                                                                                  req.ttft_s)):
            if lim.id == key:
                return Message("relax.slots_within", slots=slots, limit=Message("input.name", field=field_),
                               ms=round((limit_s or 0.0) * 1000, 3))
        return Message("relax.slots_held", slots=slots)
    same = ((grid["dev"] == grid["dev"][i]) & (grid["gpus"] == grid["gpus"][i]) & (grid["tp"] == grid["tp"][i])
            & (grid["prec"] == grid["prec"][i]) & (grid["b"] > grid["b"][i]))
    fail = grid["fail"][same]
    fail = fail[(fail & F_MEMORY) == 0]
    for bit, field_, limit_s in ((F_TPOT, "tpot_s", req.tpot_s), (F_TTFT, "ttft_s", req.ttft_s)):
        if limit_s is not None and ((fail & bit) > 0).any():
            return Message("relax.slots_within", slots=slots, limit=Message("input.name", field=field_),
                           ms=round(limit_s * 1000, 3))
    return Message("relax.slots_held", slots=slots)


def _limit_tip(b: int, grid: dict[str, np.ndarray], i: int, req: PlanRequest, devs: list[_Device],
               rows: np.ndarray | None = None, cards_tip: bool = False) -> Message:
    """The relax hint for request limit `b`, from the configuration `i` nearest to it (among `rows`). A TPOT/TTFT
    the card limit bound says "within --max-gpus N", and how many cards reach lower unless the cards' own hint
    (`cards_tip`) follows; the replicas quoted are those the raised target needs (the rate from users follows it)."""
    nearest, within = i, None
    if b in (F_TPOT, F_TTFT):  # the figure at a configuration that meets the other limits once this one is raised
        within = _within_others(b, grid, rows, req)
        i = i if within is None else within
    d = devs[int(grid["dev"][i])]
    # tp in ranks ('8-die replicas' on a 910C, `_Device.said`); a count of cards to rent in cards, as --max-gpus
    # counts them, with their dies (`dies_kw`)
    where: dict[str, Any] = dict(device=_device_name(d.acc), replicas=int(grid["replicas"][i]), tp=int(grid["tp"][i]))
    ep = int(grid["ep"][i])  # the whole group a replica needs where it shares experts (`labels.replica_words`)
    counted = dict(gpus=d.cards(int(grid["gpus"][i])), **d.dies_kw("ranks", int(grid["gpus"][i])))
    if b in (F_TPOT, F_TTFT):
        key, field_ = ("tpot", "tpot_s") if b == F_TPOT else ("ttft", "ttft_s")
        s = float(grid[key][i])
        where["replicas"] = _relaxed_replicas(b, grid, i, req, _round_up(s))
        where["layout"] = replica_words(where["replicas"], where["tp"], ep, dies=d.dies)
        more = _more_cards_reach(b, grid, i, rows)
        # relax.tpot_others / relax.ttft_others: no value of this limit alone passes, so no figure to raise it to;
        # relax.tpot_users / relax.ttft_users: the figure is not the nearest configuration's, which misses the users
        if more is None and within is None:
            return Message(f"relax.{key}_others", ms=s * 1000, field=field_, **where)
        if more is None:  # the layout words carry a 910C's dies: one wording for every device
            users = {"users": req.concurrent_users} if req.concurrent_users and i != nearest else {}
            return Message(f"relax.{key}_users" if users else f"relax.{key}", ms=s * 1000, value=_round_up(s),
                           field=field_, **users, **where)
        ranks = int(grid["gpus"][more])
        also: Message | str = "" if cards_tip else Message(
            d.said("relax.more_cards"), gpus=d.cards(ranks), **d.dies_kw("ranks", ranks),
            ms=float(grid[key][more]) * 1000, field="max_gpus", replicas=int(grid["replicas"][more]),
            tp=int(grid["tp"][more]),
            layout=replica_words(int(grid["replicas"][more]), int(grid["tp"][more]), int(grid["ep"][more]), dies=d.dies))
        return Message(f"relax.{key}_cards", ms=s * 1000, value=_round_up(s), field=field_,
                       limit=req.card_limit, cards=Message("input.name", field="max_gpus"), more=also, **where)
    if b == F_CARDS:
        layout = replica_words(where["replicas"], where["tp"], ep, dies=d.dies)
        missed = int(grid["fail"][i]) & ~(F_MEMORY | F_CARDS)  # two limits binding: the fewest cards miss another
        for lb, key, field_, limit_s in ((F_TPOT, "tpot", "tpot_s", req.tpot_s), (F_TTFT, "ttft", "ttft_s", req.ttft_s)):
            if missed == lb and limit_s is not None:  # the latency those cards reach, to raise with them
                return Message(d.said("relax.cards_with"), **counted, field="max_gpus", **where, layout=layout,
                               limit=Message("input.name", field=field_), limit_ms=round(limit_s * 1000, 3),
                               ms=float(grid[key][i]) * 1000, value=_round_up(float(grid[key][i])))
        return Message(d.said("relax.cards"), **counted, field="max_gpus", **where, layout=layout)
    slots = int(grid["replicas"][i] * grid["b"][i])
    quote = _users_quote(grid, i, req, d.dies) if req.concurrent_users else None
    if quote is not None and req.tpot_s is not None and quote.params["slots"] < (req.concurrent_users or 0):
        # the most users plan accepts on these cards, over every tp (`capacity_user_configs`), and what binds it
        most = int(quote.params["slots"])
        return Message(d.said("relax.slots_gpus"), **counted, slots=most, device=where["device"],
                       field="concurrent_users", other=Message("input.name", field="gpus"),
                       held=_slots_held(grid, i, req, most, d.dies), layout=quote)
    if req.concurrent_users and req.tpot_s is not None and slots < req.concurrent_users:  # fewer slots than users
        return Message(d.said("relax.slots_gpus"), **counted, slots=slots, device=where["device"],
                       field="concurrent_users", other=Message("input.name", field="gpus"),
                       held=_slots_held(grid, i, req, slots, d.dies),
                       layout=Message("users.slots_row", replicas=int(grid["replicas"][i]), batch=int(grid["b"][i])))
    none = _none_within(b, grid, i, req, d, counted)  # no rate or user within the targets: a pair to run
    if none is not None:
        return none
    rps = _rate_at_most(grid, i, req)  # the serving search's own largest batch within the targets
    return Message(d.said("relax.rate_gpus"), **counted, rps=rps, thin=_rate_thin(grid, i, req),
                   device=where["device"], field="requests_per_s", other=Message("input.name", field="gpus"))


def _measure_msg(opt: int, fw: Framework) -> Message:
    return Message("measure.offload" if opt == OPT_OFFLOAD else "measure.adamw8bit", framework=fw.name)


def _measures_elsewhere(cat: Catalog, m: ModelArch, req: PlanRequest, devs: list[_Device], grid: dict[str, np.ndarray],
                        sel: np.ndarray) -> dict[str, Message]:
    """Devices on which no configuration of the framework planned for them fits in memory, and whose framework has
    neither optimizer offload nor 8-bit AdamW (a pinned --framework, or the stack's default, e.g. MindSpeed-LLM on
    CANN), where another framework's measure fits (`why.measure_fits`, naming --framework): the same training grid
    (`_train_grid`) under each other framework that runs the task, the pins and a measure on the stack."""
    out: dict[str, Message] = {}
    # fits with a measure whose time cannot be estimated (offload without the device's host-link rate): said only
    # where no framework's measure fits with a time (final buyer check 2: the default run names the framework)
    no_speed: dict[str, Message] = {}
    if req.task not in ("full", "pretrain"):
        return out
    fitting = set(grid["dev"][sel].tolist())
    todo = [i for i, d in enumerate(devs) if d.excluded is None and d.framework is not None and i not in fitting
            and (grid["dev"] == i).any()
            and all(_optimizer_options(f, d.stack, req) == [OPT_PLAIN] for f in _searched(d))]
    for f in sorted(cat.frameworks, key=lambda f: req.task not in f.default_for):  # the task's usual one first
        cands = [devs[i] for i in todo if devs[i].acc.id not in out and f not in _searched(devs[i])
                 and req.task in f.tasks and devs[i].stack.id in f.stacks and _runs_pins(f, req)
                 and _optimizer_options(f, devs[i].stack, req) != [OPT_PLAIN]]
        if not cands:
            continue
        g, _ = _train_grid(cat, m, req, [replace(d, framework=f, frameworks=()) for d in cands])
        for k, d in enumerate(cands):
            ok = np.nonzero((g["dev"] == k) & g["fits"] & np.isfinite(g["tok_s"]) & (g["opt"] != OPT_PLAIN))[0]
            if ok.size:  # the fewest cards, then the most headroom
                j = int(ok[np.lexsort((g["mem"][ok] / g["usable"][ok], g["gpus"][ok]))[0]])
                out[d.acc.id] = Message(d.said("why.measure_fits"), measure=_measure_msg(int(g["opt"][j]), f),
                                        **d.count_kw(int(g["gpus"][j])), need_gib=g["mem"][j] / GiB,
                                        usable_gib=g["usable"][j] / GiB, framework_id=f.id)
                continue
            slow = np.nonzero((g["dev"] == k) & g["fits"] & ~np.isfinite(g["tok_s"]) & (g["opt"] != OPT_PLAIN))[0]
            if slow.size and d.acc.id not in no_speed:
                j = int(slow[np.lexsort((g["mem"][slow] / g["usable"][slow], g["gpus"][slow]))[0]])
                no_speed[d.acc.id] = Message(d.said("why.measure_fits_no_speed"),
                                             measure=_measure_msg(int(g["opt"][j]), f), **d.count_kw(int(g["gpus"][j])),
                                             need_gib=g["mem"][j] / GiB, usable_gib=g["usable"][j] / GiB,
                                             framework_id=f.id)
    return {**{i: msg for i, msg in no_speed.items() if i not in out}, **out}


def _why_not(cat: Catalog, devs: list[_Device], grid: dict[str, np.ndarray], sel: np.ndarray, keep: np.ndarray,
             cost: np.ndarray, calendar_h: np.ndarray, req: PlanRequest, chosen: set[str],
             elsewhere: dict[str, Message] | None = None,
             wide: dict[str, np.ndarray] | None = None) -> list[tuple[str, Message]]:
    """Each device not among the plans, with the constraint that removed it, most relevant first: devices ranked
    below the plans shown, then priced devices by how near they came (a request limit missed by the least, then
    memory), then what the catalog lacks (priced devices first), then what the request excluded. A device that
    does not fit says when its leanest configuration already offloads the optimizer or keeps 8-bit states, and
    when another framework's measure fits it (`elsewhere`, `_measures_elsewhere`). `wide`: serving's grid with the
    replica widths the card limit left out (`_wide_grid`), where nothing planned: the request limits a device misses
    are those its rentable rows there miss, as the card-limit hint says them (task K 2026-12-02)."""
    out: list[tuple[str, Message]] = []
    miss: dict[str, tuple[int, float]] = {}  # device -> (tier, how far off: needed / allowed)
    fits_dev = set(grid["dev"][sel].tolist())
    for i, d in enumerate(devs):
        if d.acc.id in chosen:
            continue
        reason: Message
        tier, far = 3, math.inf
        if d.excluded:
            reason = d.excluded
        elif i not in fits_dev:
            mask = grid["dev"] == i
            limits, _ = _binding(grid, np.nonzero(mask)[0]) if mask.any() else ([], False)
            no_speed = np.nonzero(mask & grid["fits"] & ~np.isfinite(grid["tok_s"]))[0]
            node_cards = d.cards(d.acc.max_cards_per_node)  # the card limit counts cards, a node's ranks are dies
            gap = (_both(lambda lg: multi_node_gap(cat, d.acc.id, d.offers, lg))
                   if req.card_limit > node_cards and not d.unpriced else None)
            if no_speed.size and "opt" in grid and d.framework is not None:
                # it fits only with a measure whose time the kernel cannot estimate (offload: no PCIe rate)
                j = int(no_speed[np.lexsort((grid["mem"][no_speed] / grid["usable"][no_speed], grid["gpus"][no_speed]))[0]])
                fw_j = _row_device(cat, d, grid, j).framework or d.framework  # the framework that row ran
                reason, tier = Message(d.said("why.measure_no_speed"), measure=_measure_msg(int(grid["opt"][j]), fw_j),
                                       **d.count_kw(int(grid["gpus"][j])),
                                       need_gib=grid["mem"][j] / GiB, usable_gib=grid["usable"][j] / GiB), 2
                plain = mask & (grid["opt"] == OPT_PLAIN)
                if gap and plain.any():  # every framework's reason: the plain layout needs a node no offer spans
                    k = int(np.argmin(np.where(plain, grid["mem"] - grid["usable"], np.inf)))
                    dk = _row_device(cat, d, grid, k)
                    node = Message(d.said("why.does_not_fit_node"),
                                   framework=dk.framework.name if dk.framework else "?", cards=node_cards,
                                   **d.dies_kw("ranks", d.acc.max_cards_per_node), need_gib=grid["mem"][k] / GiB,
                                   usable_gib=grid["usable"][k] / GiB, cap_gib=d.capacity / GiB, gap=gap)
                    reason = Message("why.all", parts=[node, reason])
            elif limits and (small := _replica_too_big(grid, np.nonzero(mask)[0], d)) is not None:
                # no instance an offer rents holds the smallest replica: said first, as no --max-gpus helps (buyer
                # review 2026-12-02, task H1: "the request rate needs 224 cards (limit 128)" on 1-card H20 rentals)
                reason, tier = small, 2
            elif limits:  # it fits in memory: a request limit (TPOT, TTFT, cards for the rate) removed it
                on = grid if wide is None else wide
                rows = np.nonzero(on["dev"] == i)[0]
                rent = _one_instance(on, rows, devs)  # serving: what one rentable instance reaches, not a wider tp
                near, _ = _binding(on, rent) if "need_tp" in on and rent.size else ([], False)
                lims = ([_instance_limit_reason(bit, on, rows, j, req, d) for bit, j in near] if near
                        else [_limit_reason(bit, grid, j, req, d) for bit, j in limits])
                reason = lims[0] if len(lims) == 1 else Message("why.all", parts=lims)
                tier, far = 1, max(_limit_miss(bit, on if near else grid, j, req, d) for bit, j in near or limits)
            elif mask.any():
                j = int(np.argmin(np.where(mask, grid["mem"] - grid["usable"], np.inf)))
                # training names the leanest row's precision where the device was searched at more than one (bf16
                # and Megatron-LM's / torchtitan's fp8 on Hopper); a bf16-only search's figure needs no word
                several = len({p for _, ps in (d.frameworks or ((d.framework, d.precisions),)) for p in ps}) > 1
                d = _row_device(cat, d, grid, j)  # the leanest row's framework names it (every one searched)
                fw_name: str | Message = d.framework.name if d.framework else "?"
                if ("need_tp" in grid or several) and int(grid["prec"][j]) >= 0:
                    # serving, and training searched at several: the leanest row's memory is at its precision, said
                    fw_name = at_precision(fw_name, SERVE_PRECISIONS[int(grid["prec"][j])])
                tier, far = 2, float(grid["mem"][j] / max(grid["usable"][j], 1.0))
                largest = min(d.acc.max_cards_per_node,
                              max((max_cards(o, d.acc.max_cards_per_node) for o in d.offers),
                                  default=d.acc.max_cards_per_node))
                if "need_tp" in grid and grid["replicas"][j] > 0 and int(grid["tp"][j]) >= largest:
                    # serving: a replica's tensor-parallel group lives in one instance (replicas never span nodes)
                    at = {"tp": at_precision(int(grid["tp"][j]), SERVE_PRECISIONS[int(grid["prec"][j])]),
                          "need_gib": grid["mem"][j] / GiB, "usable_gib": grid["usable"][j] / GiB,
                          "cap_gib": d.capacity / GiB}
                    reason = Message(d.said("why.serve_replica"), framework=d.framework.name if d.framework else "?",
                                     largest=d.cards(largest), **d.dies_kw("ranks", largest),
                                     need=_replica_need(grid, np.nonzero(mask)[0], d, at))
                elif req.gpus is not None and not gap:  # the card count is pinned (--gpus)
                    reason = Message(d.said("why.does_not_fit_gpus"),
                                     framework=fw_name, gpus=req.gpus,
                                     **d.dies_kw("ranks", ranks_in(req.gpus, d.dies)), need_gib=grid["mem"][j] / GiB,
                                     usable_gib=grid["usable"][j] / GiB, cap_gib=d.capacity / GiB)
                elif gap:  # the grid stopped at one node: no offer used can span nodes
                    reason = Message(d.said("why.does_not_fit_node"),
                                     framework=fw_name, cards=node_cards,
                                     **d.dies_kw("ranks", d.acc.max_cards_per_node), need_gib=grid["mem"][j] / GiB,
                                     usable_gib=grid["usable"][j] / GiB, cap_gib=d.capacity / GiB, gap=gap)
                else:
                    reason = Message(d.said("why.does_not_fit_fw"),
                                     framework=fw_name, max_gpus=req.max_gpus,
                                     **d.dies_kw("ranks", ranks_in(req.max_gpus, d.dies)),
                                     need_gib=grid["mem"][j] / GiB,
                                     usable_gib=grid["usable"][j] / GiB, cap_gib=d.capacity / GiB)
                if "opt" in grid and int(grid["opt"][j]) != OPT_PLAIN and d.framework is not None:
                    # the leanest configuration already offloads or keeps 8-bit states: say it was tried
                    reason = Message("why.even_with", reason=reason,
                                     measure=_measure_msg(int(grid["opt"][j]), d.framework))
                if d.acc.id in (elsewhere or {}):  # another framework's offload / 8-bit AdamW fits: name the flag
                    reason = Message("why.with_fix", reason=reason, fix=(elsewhere or {})[d.acc.id])
            elif req.gpus is not None and ranks_in(req.gpus, d.dies) % math.prod(_pinned_tp_pp(req)):
                # the pinned tp × pp does not split this device's ranks (`_check_gpus_split`: another device's does)
                tp, pp = _pinned_tp_pp(req)
                reason, tier = Message("err.cards_do_not_split_into_the", req_gpus=req.gpus, v=tp, v2=pp), 2
            elif req.gpus is not None and gap and req.gpus > node_cards and "need_tp" not in grid:
                # more cards than one node and no offer used spans nodes: that, not the framework's layouts (buyer
                # review 2026-12-02, task F.2: 16 × 910B on the one 8-card node offer without an inter-node network)
                reason, tier = Message(d.said("why.no_span_gpus"), gpus=req.gpus, cards=node_cards, gap=gap,
                                       **d.dies_kw("ranks", ranks_in(req.gpus, d.dies)),
                                       **d.dies_kw("node_ranks", d.acc.max_cards_per_node)), 2
            elif req.gpus is not None:
                reason, tier = Message(d.said("why.no_layout_gpus"), gpus=req.gpus, cards=node_cards,
                                       **d.dies_kw("ranks", ranks_in(req.gpus, d.dies)),
                                       **d.dies_kw("node_ranks", d.acc.max_cards_per_node)), 2
            else:
                reason, tier = Message("why.no_layout"), 2
        else:
            mine = grid["dev"][sel] == i
            if not (mine & keep).any():
                c = cost[mine]
                h = calendar_h[mine]
                parts: list[Message] = []
                ratios: list[float] = []  # needed / allowed per limit missed
                tier = 1
                if not np.isfinite(c).any():
                    rows = sel[mine]
                    tp_min = int(grid["tp"][rows].min()) if rows.size else 0
                    largest = _largest_instance(d)
                    serve = "need_tp" in grid and rows.size and bool(grid["replicas"][rows].max() > 0)
                    # serving: replicas never span nodes; what one rentable instance holds misses a request limit
                    # (the wider tp that meets it needs a larger instance): name the limit and what it reaches
                    every = np.nonzero(grid["dev"] == i)[0]
                    rent = _one_instance(grid, every, devs) if serve and 0 < largest < tp_min else every[:0]
                    near, _ = _binding(grid, rent[grid["fail"][rent] != 0]) if rent.size else ([], False)
                    if serve and (small := _replica_too_big(grid, every, d)) is not None:
                        parts.append(small)  # the smallest replica, whatever the card limit (task H1)
                        tier = 2
                    elif near:
                        lims = [_instance_limit_reason(bit, grid, every, j, req, d) for bit, j in near]
                        parts.append(lims[0] if len(lims) == 1 else Message("why.all", parts=lims))
                        ratios.append(max(_limit_miss(bit, grid, j, req, d) for bit, j in near))
                    else:
                        # the smallest tensor-parallel group that meets the limits needs an instance
                        parts.append(no_rent_why(tp_min, largest, bool(serve), d.dies,
                                                 ranks=int(grid["gpus"][rows].min()) if rows.size else 0,
                                                 node_ranks=d.acc.max_cards_per_node))  # a rank view: ranks
                        tier = 2
                # only layouts an offer prices (finite cost: one a 1-card offer cannot rent has no hours to
                # quote), and a clause only for a limit they miss (buyer review 3); with a budget and a deadline,
                # what each figure is within the other limit, as the relax hints quote (`_limit_picks`: buyer
                # review 2026-12-01, 4 — not the cheapest and fastest of different layouts)
                priced_ = np.isfinite(c)
                h = np.where(priced_, h, np.inf)
                timed = req.deadline_hours is not None and req.task != "inference" and bool(priced_.any())
                both = timed and req.budget_cny is not None
                cheap, fast = _limit_picks(c, h, req)
                either = both and cheap is not None and fast is not None  # each met by some layout, none both
                if req.budget_cny is not None and priced_.any():
                    least = float(np.min(c[priced_]))
                    j = cheap if cheap is not None else int(np.argmin(np.where(priced_, c, np.inf)))
                    if float(c[j]) > req.budget_cny:  # "within the deadline" where that is what makes it dearer
                        parts.append(Message("why.over_budget_in_deadline" if both and float(c[j]) > least
                                             else "why.over_budget", cost=float(c[j]), budget=req.budget_cny,
                                             deadline=duration(req.deadline_hours or 0.0)))
                        ratios.append(float(c[j]) / (req.budget_cny or 1.0))
                if timed and req.deadline_hours is not None:
                    j = fast if fast is not None else int(np.argmin(h))
                    if float(h[j]) > req.deadline_hours:  # "within the budget" where that is what makes it later
                        in_budget = both and float(h[j]) > float(h.min())
                        hours_j = float(grid["hours"][sel[mine]][j])
                        mig_h = float(h[j]) - hours_j
                        if mig_h > 0:  # the migration weeks, apart from set-up and compute: a team on the stack
                            # skips them
                            parts.append(Message("why.over_deadline_migration_in_budget" if in_budget
                                                 else "why.over_deadline_migration", hours=duration(float(h[j])),
                                                 compute=duration(hours_j), migration=duration(mig_h),
                                                 stack=_stack_name(d.stack), stack_id=d.stack.id,
                                                 deadline=duration(req.deadline_hours), field="already_on",
                                                 budget=req.budget_cny or 0.0))
                        else:
                            parts.append(Message("why.over_deadline_setup_in_budget" if in_budget
                                                 else "why.over_deadline_setup", hours=duration(float(h[j])),
                                                 deadline=duration(req.deadline_hours), budget=req.budget_cny or 0.0))
                            ranks_j = int(grid["gpus"][sel[mine]][j])
                            if (gap := _node_bound(cat, d, ranks_j, req)) is not None:  # why it cannot grow
                                parts.append(Message("why.node_bound", **d.count_kw(ranks_j), gap=gap))
                        ratios.append(float(h[j]) / req.deadline_hours)
                # relaxing either limit alone to its figure leaves a plan where each is met by some layout
                far = (min if either else max)(ratios, default=math.inf)
                reason = (parts[0] if len(parts) == 1 else Message("why.all", parts=parts)) if parts \
                    else Message("why.no_priced")
            else:
                reason, tier = Message("why.ranked_below"), 0
        if not d.excluded and (single := _single_card_why(d, grid, i)):  # a one-card row it could not build on
            reason = Message("why.all", parts=[*why_not_reasons(reason), *single])
        if reason.id in _ASKED:
            tier = 4
        miss[d.acc.id] = (tier, far)
        out.append((d.acc.id, reason))
    # ranked-below first; priced devices by how near they came; then what the catalog lacks, one device per
    # software stack before its siblings (priced ones first), and exclusions the request asked for (not domestic,
    # vendor …) last, so a short table (the CLI shows 8, then says how many more) names the nearest misses first
    stack_of = {d.acc.id: d.stack.id for d in devs}
    priced = {d.acc.id: bool(d.offers) for d in devs}
    seen: set[tuple[str, str]] = set()
    key: dict[str, tuple[int, float, int, int]] = {}
    for dev_id, r in out:
        lead = why_not_reasons(r)[0].id  # a device's first (most fundamental) reason
        first = (stack_of[dev_id], lead) not in seen
        seen.add((stack_of[dev_id], lead))
        tier, far = miss[dev_id]
        key[dev_id] = (tier, far if tier in (1, 2) else 0.0, 0 if priced[dev_id] else 1, 0 if first else 1)
    out.sort(key=lambda r: key[r[0]])
    return out


def _limit_picks(cost: np.ndarray, calendar_h: np.ndarray, req: PlanRequest) -> tuple[int | None, int | None]:
    """What a budget and a deadline each leave, the one rule the relax hints and the why-not quote: the index of the
    cheapest priced configuration (finite `cost`) within the deadline (`calendar_h`; none given, or serving: any),
    and of the fastest within the budget (none given: any); None where no priced configuration meets that other
    limit."""
    finite = np.isfinite(cost)
    timed = req.deadline_hours is not None and req.task != "inference"
    in_time = finite & (calendar_h <= req.deadline_hours) if timed else finite
    in_budget = finite & (cost <= req.budget_cny) if req.budget_cny is not None else finite
    cheap = int(np.argmin(np.where(in_time, cost, np.inf))) if in_time.any() else None
    fast = int(np.argmin(np.where(in_budget, calendar_h, np.inf))) if in_budget.any() else None
    return cheap, fast


def _limit_miss(b: int, grid: dict[str, np.ndarray], i: int, req: PlanRequest, d: _Device) -> float:
    """How far configuration `i` of device `d` is from request limit `b` (reached / allowed, ≥ 1): orders the why-not
    table; the cards in cards, as the limit counts them."""
    if b == F_TPOT:
        return float(grid["tpot"][i]) / (req.tpot_s or 1.0)
    if b == F_TTFT:
        return float(grid["ttft"][i]) / (req.ttft_s or 1.0)
    if b == F_CARDS:
        return d.cards(int(grid["gpus"][i])) / max(req.card_limit, 1)
    slots = float(grid["replicas"][i] * grid["b"][i])
    return max((req.requests_per_s or 0.0) * req.output / max(float(grid["tok_s"][i]), 1e-9),
               (req.concurrent_users or 0) / max(slots, 1.0))


# exclusions the request asked for; any other reason (no price, no spec, no framework) is the catalog's
_ASKED = frozenset({"why.not_domestic", "why.vendor_not_allowed", "why.stack_not_allowed", "why.migration_not_allowed"})
# exclusions a pin of the request caused (framework, engine, layout, precision): dropping the pin lifts them
_PINNED = frozenset({"why.fw_task", "why.fw_stack", "why.fw_pins", "why.engine_stack", "why.capability",
                     "why.no_fp8_training", "why.tp_heads", "why.tp_heads_serving"})


def _pins_to_drop(req: PlanRequest, reasons: list[Message]) -> Message | None:
    """The request's pins behind these exclusions, each a field and its value (`relax.pin`: the CLI renders the
    flag, --tp 8; the page and the API the request's field, tp 8), joined (`relax.pins`); None when one of the
    exclusions is not a pin's doing. Where a serving engine's head rule refused the tp and the engine beside it on
    the stack pads the heads and runs it (the why-not row's `why.tp_heads_padding_alt`: MindIE for vLLM-Ascend),
    that engine follows as the other way out (`relax.pins_or_use`: "--tp 8 or use --framework mindie")."""
    out: list[Message] = []
    alt: Message | None = None
    for r in reasons:
        if r.id in ("why.fw_task", "why.fw_stack") and req.framework:
            out.append(Message("relax.pin", field="framework", value=req.framework))
        elif r.id == "why.fw_pins":
            # the pins a framework cannot run come as flags (_unrun_pins); the page turns a flag it has a field for
            # into that field
            out += ([Message("relax.pin", field="framework", value=req.framework)] if req.framework else []) + [
                Message("relax.pin_text", text=x) for x in str(r.params["pins"]).split(", ") if x]
        elif r.id == "why.engine_stack" and req.engine:
            out.append(Message("relax.pin", field="engine", value=req.engine))
        elif r.id in ("why.tp_heads", "why.tp_heads_serving") and req.tp:
            out.append(Message("relax.pin", field="tp", value=req.tp))
            pad = r.params.get("allowed")
            if isinstance(pad, Message) and pad.id == "why.tp_heads_padding_alt" and req.framework != pad.params["value"]:
                alt = Message("relax.pin", field=pad.params["field"], value=pad.params["value"])
        elif r.id in ("why.capability", "why.no_fp8_training") and req.precision and req.task != "qlora":
            out.append(Message("relax.pin", field="precision", value=",".join(req.precision)))
        else:
            return None
    pins = list({(m.id, tuple(sorted(m.params.items()))): m for m in out}.values())
    if not pins:
        return None
    joined = pins[-1]
    for m in reversed(pins[:-1]):  # "a, b, c" in English, "a、b、c" in Chinese
        joined = Message("relax.pins", first=m, rest=joined)
    return joined if alt is None else Message("relax.pins_or_use", pins=joined, alt=alt)


def _kinds_taken(kinds: Sequence[str]) -> tuple[str, ...]:
    """The kinds a request prices from: listing takes contract prices too (`offers.usable_offers`), so a tip never
    suggests adding what is already in."""
    return (*kinds, *(("contract",) if "listing" in kinds else ()))


def _wider_offers(req: PlanRequest, cat: Catalog | None = None, helps: Any = None) -> Message | str:
    """The offers a nothing-fits tip may suggest including: other regions (region not `any`) and the offer kinds the
    request leaves out; "" when it already includes every region and kind. With `helps` (an offer → whether it
    could rent what is missing) and the catalog, only a region or kind that has such an offer (buyer review 7)."""
    def useful(region: str, kinds: tuple[str, ...]) -> bool:
        return helps is None or cat is None or any(helps(o) for o in usable_offers(cat, region, kinds))

    parts: list[Message] = []
    if req.region != "any" and useful("any", req.offer_kinds):
        parts.append(Message("relax.wider.region", field="region"))
    extra = [k for k in OFFER_KINDS if k not in _kinds_taken(req.offer_kinds) and useful(req.region, (k,))]
    if extra:
        parts.append(Message("relax.wider.kinds", field="offer_kinds",
                             kinds={lg: ("、" if lg == "zh" else " and ").join(t(f"price_kind.{k}", lg) for k in extra)
                                    for lg in ("en", "zh")}))
    return Message("relax.wider", what=Message("list.items", items=parts)) if parts else ""


def _no_span(grid: dict[str, np.ndarray], sel: np.ndarray, req: PlanRequest, devs: list[_Device]) -> bool:
    """Training: whether every device the request allows failed as its why-not row `why.does_not_fit_node` says:
    nothing fits on one node, and no offer used can span nodes (so a higher --max-gpus cannot help)."""
    if "need_tp" in grid:  # serving: replicas never span nodes; its own tips
        return False
    fits = set(grid["dev"][sel].tolist()) if sel.size else set()
    live = [(i, d) for i, d in enumerate(devs) if d.excluded is None]
    return bool(live) and all(
        i not in fits and bool(d.offers) and not d.unpriced and req.card_limit > d.cards(d.acc.max_cards_per_node)
        and not any(can_span_nodes(o) for o in d.offers) for i, d in live)


def _node_bound(cat: Catalog | None, d: _Device, ranks: int, req: PlanRequest) -> dict[str, str] | None:
    """Training whose configuration on `ranks` ranks of `d` fills one node, where the card limit allows more and no
    offer of `d` used spans nodes: the catalog's note on why (`offers.multi_node_gap`), as a deadline miss says why
    more cards cannot shorten it (task F.2: 175.5 h on 8 × 910B, no word on why not 16); else None."""
    node = d.acc.max_cards_per_node  # ranks
    if (cat is None or req.task == "inference" or req.gpus is not None or ranks < node or not d.offers
            or req.card_limit <= d.cards(node)):
        return None
    return _both(lambda lg: multi_node_gap(cat, d.acc.id, d.offers, lg))


def _no_span_gpus(req: PlanRequest, devs: list[_Device]) -> int | None:
    """Where every device the request allows is priced, none of its offers spans nodes (`can_span_nodes`) and the
    pinned card count (--gpus) is more than one of its nodes holds: the most cards one node of them holds, the
    largest count a job can take; else None (the why-not rows say `why.no_span_gpus`)."""
    live = [d for d in devs if d.excluded is None]
    if req.gpus is None or not live or any(
            not d.offers or d.unpriced or req.gpus <= d.cards(d.acc.max_cards_per_node)
            or any(can_span_nodes(o) for o in d.offers) for d in live):
        return None
    return max(d.cards(d.acc.max_cards_per_node) for d in live)


def _train_too_big(grid: dict[str, np.ndarray], sel: np.ndarray, req: PlanRequest,
                   devs: list[_Device]) -> dict[str, int] | None:
    """Training: when the card limit reaches the largest instance every allowed priced device's offers rent, so every
    count an offer could rent was searched and none rents a job that fits (separate instances never form one training
    job, `offers.can_rent`), each device's id → the fewest cards (ranks) a job that fits needs (0: none fits); None
    otherwise. Raising --max-gpus cannot help (buyer review 2026-12-02, task I.1: GLM-4-9B full on MTT S4000, whose
    largest instance holds 1 card, read "raise --max-gpus")."""
    if "need_tp" in grid:  # serving: `_serve_too_big`
        return None
    out: dict[str, int] = {}
    for i, d in enumerate(devs):
        if d.excluded is not None:
            continue
        if not d.offers or d.unpriced or req.card_limit < d.cards(_largest_instance(d)):
            return None  # no offers, or the card limit cut the counts below the largest instance: more cards may help
        mine = sel[grid["dev"][sel] == i] if sel.size else sel
        out[d.acc.id] = int(grid["gpus"][mine].min()) if mine.size else 0
    return out or None


def _serve_too_big(grid: dict[str, np.ndarray], req: PlanRequest, devs: list[_Device]) -> dict[str, int] | None:
    """Serving: when no allowed priced device holds one replica (memory) within one instance of its offers (the
    why-not rows say `why.serve_replica`), each device's id → the cards one replica needs in one instance (0: more
    than the last of NEED_TPS); None otherwise. Raising --max-gpus cannot help: replicas never span nodes."""
    if "need_tp" not in grid:
        return None
    out: dict[str, int] = {}
    for i, d in enumerate(devs):
        if d.excluded is not None:
            continue
        rows = np.nonzero(grid["dev"] == i)[0]
        if not d.offers or d.unpriced or rows.size == 0 or req.card_limit < d.cards(_largest_instance(d)):
            return None  # no rows, or the card limit cut tp below the largest instance: more cards may help
        if _one_instance(grid, rows[(grid["fail"][rows] & F_MEMORY) == 0], devs).size:
            return None
        need = grid["need_tp"][rows]
        out[d.acc.id] = int(np.nanmin(need)) if np.isfinite(need).any() else 0
    return out or None


def _serve_too_big_tip(req: PlanRequest, devs: list[_Device], need: dict[str, int], grid: dict[str, np.ndarray],
                       cat: Catalog | None, m: ModelArch | None) -> Message:
    """The relax hint when a serving replica is bigger than the largest rentable instance of every allowed device: a
    lower precision the device runs whose weights alone fit one instance (the request's precision pin, or the lowest
    searched), and other regions or offer kinds only where an offer has an instance of the cards one replica needs."""
    lower: dict[str, list[str]] = {}  # precision -> devices whose largest instance holds its weights
    for i, d in enumerate(devs):
        if d.excluded is not None or d.acc.id not in need or cat is None or m is None:
            continue
        rows = np.nonzero(grid["dev"] == i)[0]
        searched = max(int(x) for x in grid["prec"][rows])
        runs, _ = _precisions(cat, req.model_copy(update={"precision": SERVE_PRECISIONS}), d.acc, d.stack, d.framework)
        room = _largest_instance(d) * float(grid["usable"][rows].max())
        for p in SERVE_PRECISIONS[searched + 1:]:
            if p in runs and weights_bytes(m, p) < room:
                lower.setdefault(p, []).append(d.acc.id)
    fix: Message | str = ""
    if lower:
        pins = [Message("relax.serve_lower_one", pin=Message("relax.pin", field="precision", value=p),
                        devices=", ".join(lower[p])) for p in SERVE_PRECISIONS if p in lower]
        joined = pins[-1]
        for pm in reversed(pins[:-1]):
            joined = Message("relax.pins", first=pm, rest=joined)
        fix = Message("relax.serve_lower", pins=joined)
    accs = {d.acc.id: d.acc for d in devs}

    def holds(o: Offer) -> bool:  # an instance that holds one replica at the precision searched
        a = accs.get(o.device)
        return a is not None and 0 < need.get(o.device, 0) <= max_cards(o, a.max_cards_per_node)

    return Message("relax.serve_too_big", field="max_gpus", fix=fix, wider=_wider_offers(req, cat, holds))


def _lighter_tasks(req: PlanRequest, devs: list[_Device], cat: Catalog | None) -> str | dict[str, str] | None:
    """The lighter training tasks a relax tip suggests for `req.task`, only those the stack of some allowed device
    runs (`capability.runs_task`: no QLoRA on MUSA, which has no bitsandbytes; buyer review 2026-12-02, task B.3),
    joined by each language's 'or'; None where there is none."""
    tasks = {"full": ("lora", "qlora"), "pretrain": ("lora", "qlora"), "lora": ("qlora",)}.get(req.task, ())
    if cat is not None:
        tasks = tuple(t for t in tasks if any(runs_task(cat.frameworks, d.stack, t) for d in devs))
    if len(tasks) < 2:
        return tasks[0] if tasks else None
    return {"en": " or ".join(tasks), "zh": " 或 ".join(tasks)}


def _relax(grid: dict[str, np.ndarray], sel: np.ndarray, cost: np.ndarray, calendar_h: np.ndarray,
           req: PlanRequest, devs: list[_Device], cat: Catalog | None = None,
           m: ModelArch | None = None, wide: Callable[[], dict[str, np.ndarray] | None] | None = None,
           passes: np.ndarray | None = None) -> list[Message]:
    """When nothing qualifies: which constraint to relax and by how much. `wide`: serving's grid with the replica
    widths the card limit left out too (`_wide_grid`), whose rows the request-limit hints are worked out on: a limit
    of 4 cards searched no 8-card replica, so "raise --max-gpus to 28 and --tpot to 0.0401 s" where 24 cards alone
    plan 3 × 8-card replicas within the target (task K 2026-12-02). `passes`: per configuration of `sel`, whether it
    passes the evidence checks the ranking demotes by (`_evidence_fails`): the budget hints name the cheapest that
    does, the one the table would recommend, not one it ranks after them (none passes: the cheapest; task B
    2026-12-02)."""
    tips: list[Message] = []
    finite = np.isfinite(cost)
    allowed = [d for d in devs if d.excluded is None or d.excluded.id not in _ASKED]
    if allowed and all(d.excluded is not None for d in allowed):
        # every allowed device is ruled out, some by what the request pinned (others may lack a framework or engine
        # whatever the pin): say which pin to drop, not "nothing fits"
        # (a device some of whose reasons are no pin's doing, a missing price or figure, stays out whatever is
        # dropped: only devices every reason of which a pin caused count)
        pinned = [why_not_reasons(d.excluded) for d in allowed if d.excluded is not None]
        pins = _pins_to_drop(req, [r for rs in pinned if all(x.id in _PINNED for x in rs)
                                   and (len(rs) == 1 or _pins_to_drop(req, rs) is not None) for r in rs])
        if pins is not None:
            tips.append(Message("relax.drop_pin", pins=pins))
            return tips
    if allowed and not any(d.offers for d in allowed):
        # the devices the request allows have no price under its filter: say that, not "nothing fits"; the wider
        # filter names the kinds those devices do have rows of in the region (an H20 has index rows, no reference)
        ids = {d.acc.id for d in allowed}
        there = {o.kind for o in usable_offers(cat, req.region, OFFER_KINDS) if o.device in ids} if cat else set()
        extra = [k for k in OFFER_KINDS if k in there and k not in _kinds_taken(req.offer_kinds)]
        wider = ",".join([*req.offer_kinds, *extra]) if extra else ""
        kinds = req.offer_kinds[0] if len(req.offer_kinds) == 1 else "/".join(req.offer_kinds)
        which = "relax.no_price" if wider else "relax.no_price_region" if req.region != "any" else "relax.no_price_any"
        tips.append(Message(which, price_kind=kinds, price_region=req.region, field="offer_kinds",
                            region_field="region", wider=wider,
                            extra={lg: ("、" if lg == "zh" else " and ").join(t(f"price_kind.{k}", lg) for k in extra)
                                   for lg in ("en", "zh")}))
        return tips
    if (sel.size == 0 or not finite.any()) and grid["dev"].size:
        rows = np.arange(grid["dev"].shape[0])
        if "need_tp" in grid:  # serving: only what one rentable instance holds (replicas never span nodes)
            rows = _one_instance(grid, rows, devs)
            rows = rows[grid["fail"][rows] != 0]
        elif sel.size:  # training: configurations qualify but none can be rented: the nothing-fits tip
            rows = rows[:0]
        limits, alone = _binding(grid, rows) if rows.size else ([], False)
        wg = wide() if limits and wide is not None else None
        on = grid if wg is None else wg
        if wg is not None:  # serving: over the replica widths the card limit left out too (task K 2026-12-02)
            rows = _one_instance(wg, np.arange(wg["dev"].shape[0]), devs)
            rows = rows[wg["fail"][rows] != 0]
            limits, alone = _binding(wg, rows)
        if limits:  # configurations fit in memory: name the request limit that removed them, and by how much
            if not alone:
                tips.append(Message("relax.together"))
            cards_tip = any(bit == F_CARDS for bit, _ in limits)
            tips += [_limit_tip(bit, on, j, req, devs, rows, cards_tip) for bit, j in limits]
            return tips
    if sel.size == 0 or not finite.any():
        lighter = _lighter_tasks(req, devs, cat)
        slow = np.nonzero(grid["fits"] & ~np.isfinite(grid["tok_s"]))[0] if "opt" in grid else np.zeros(0, dtype=int)
        if slow.size and sel.size == 0:
            # it fits with a measure whose time cannot be estimated (offload, no host-link rate): not "does not fit"
            # (final buyer check 2); the fewest cards, then the most headroom
            j = int(slow[np.lexsort((grid["mem"][slow] / grid["usable"][slow], grid["gpus"][slow]))[0]])
            d = devs[int(grid["dev"][j])]
            d = _row_device(cat, d, grid, j) if cat is not None else d
            if d.framework is not None:
                tips.append(Message(d.said("relax.measure_no_speed_lighter" if lighter else "relax.measure_no_speed"),
                                    measure=_measure_msg(int(grid["opt"][j]), d.framework),
                                    **d.count_kw(int(grid["gpus"][j])),
                                    need_gib=grid["mem"][j] / GiB, usable_gib=grid["usable"][j] / GiB,
                                    task_field="task", lighter=lighter or ""))
                return tips
        more = _wider_offers(req)  # never the regions or kinds the request already includes
        too_big = _serve_too_big(grid, req, devs) if req.gpus is None else None
        if too_big:  # serving: a replica is bigger than any instance rentable; more cards cannot help
            tips.append(_serve_too_big_tip(req, devs, too_big, grid, cat, m))
            return tips
        if "need_tp" not in grid and (node := _no_span_gpus(req, devs)) is not None:
            # training on more cards than a node and no allowed device's offer spans nodes (serving's replicas never
            # span nodes): a smaller count or offers that span nodes, not a lighter task (task F.2)
            ids = {d.acc.id for d in devs if d.excluded is None}
            more = _wider_offers(req, cat, lambda o: o.device in ids and can_span_nodes(o))
            tips.append(Message("relax.no_span_gpus", gpus=req.gpus, cards=node, field="gpus", wider=more))
        elif req.gpus is not None:  # exactly N cards (--gpus): another count, not more of them
            which = ("relax.nothing_fits_gpus_lighter" if lighter else "relax.nothing_fits_gpus" if req.task == "inference"
                     else "relax.nothing_fits_gpus_train")  # training: no request rate to meet
            tips.append(Message(which, gpus=req.gpus, field="gpus", task_field="task", lighter=lighter or "", wider=more))
        elif _no_span(grid, sel, req, devs):
            # every device the request allows misses one node and none of its offers can span nodes (the why-not
            # rows say so): more cards cannot help; a lighter task, other regions or offer kinds can
            live = {d.acc.id: d.acc for d in devs if d.excluded is None}
            # only regions or kinds with an offer of an allowed device that spans nodes can help (buyer review 7)
            more = _wider_offers(req, cat, lambda o: o.device in live and can_span_nodes(o))
            which = "relax.no_span_lighter" if lighter else "relax.no_span_wider" if more else "relax.no_span"
            tips.append(Message(which, max_gpus=req.max_gpus, field="max_gpus", task_field="task",
                                lighter=lighter or "", wider=more))
        elif (need := _train_too_big(grid, sel, req, devs)) is not None:
            # every count an offer rents was searched: the instance size binds, not the card limit (task I.1)
            accs = {d.acc.id: d.acc for d in devs}
            more = _wider_offers(req, cat, lambda o: o.device in accs and 0 < need.get(o.device, 0) <= max_cards(
                o, accs[o.device].max_cards_per_node))  # only offers whose instances hold the job
            tips.append(Message("relax.train_instance_lighter" if lighter else "relax.train_instance",
                                field="max_gpus", task_field="task", lighter=lighter or "", wider=more))
        elif lighter:
            tips.append(Message("relax.nothing_fits_rent_lighter", max_gpus=req.max_gpus, field="max_gpus",
                                task_field="task", lighter=lighter, wider=more))
        else:
            tips.append(Message("relax.nothing_fits_rent", max_gpus=req.max_gpus, field="max_gpus", wider=more))
        return tips
    deadline_ok = req.deadline_hours is None or req.task == "inference"
    cheap, fast = _limit_picks(cost, calendar_h, req)  # the why-not quotes the same per device
    if req.budget_cny is not None:
        if cheap is not None:
            tip = _budget_tip("relax.budget", cheap, cost, calendar_h, req, devs, grid["dev"][sel], passes)
            if float(tip.params["need"]) > req.budget_cny:
                tips.append(tip)
    if not deadline_ok:
        ok_cost = finite & ((cost <= req.budget_cny) if req.budget_cny is not None else True)
        if fast is not None:  # the fastest within the budget
            j = fast
            need_h = float(calendar_h[j])
            if need_h > (req.deadline_hours or 0):
                job_h = grid["hours"][sel]  # set-up and compute; calendar_h adds the migration weeks
                mig_h = need_h - float(job_h[j])
                if mig_h > 0:
                    tips.append(Message("relax.deadline_split", hours=duration(need_h), compute=duration(float(job_h[j])),
                                        migration=duration(mig_h), field="deadline_hours",
                                        by=need_h - (req.deadline_hours or 0)))
                else:
                    tips.append(Message("relax.deadline_setup", hours=duration(need_h), field="deadline_hours",
                                        by=need_h - (req.deadline_hours or 0)))
                tips += _node_bound_tip(cat, grid, sel, j, req, devs, calendar_h)
                # migration is what breaks it: a team already on the stack skips the weeks (--already-on)
                skip = ok_cost & (job_h <= (req.deadline_hours or 0)) & (calendar_h > job_h)
                if np.any(skip):
                    f = int(np.argmin(np.where(skip, job_h, np.inf)))
                    d = devs[int(grid["dev"][sel][f])]
                    tips.append(Message("relax.already_on", device=_device_name(d.acc), compute=duration(float(job_h[f])),
                                        migration=duration(float(calendar_h[f] - job_h[f])), stack=_stack_name(d.stack),
                                        stack_id=d.stack.id, field="already_on"))
    if not tips:
        # neither constraint alone can be relaxed into a plan: name what each needs on its own
        if req.budget_cny is not None:
            tips.append(_budget_tip("relax.budget_alone", int(np.argmin(np.where(finite, cost, np.inf))), cost, None,
                                    req, devs, grid["dev"][sel], passes))
        if not deadline_ok:
            need_h = float(calendar_h[finite].min())
            tips.append(Message("relax.deadline_alone", hours=duration(need_h), field="deadline_hours",
                                by=max(need_h - (req.deadline_hours or 0), 0.0)))
    if not tips:
        raise PlanError(Message("err.no_plan_satisfies_the_constraints"))
    return tips


def _node_bound_tip(cat: Catalog | None, grid: dict[str, np.ndarray], sel: np.ndarray, j: int, req: PlanRequest,
                    devs: list[_Device], calendar_h: np.ndarray) -> list[Message]:
    """After a deadline tip on configuration `j` of `sel`: that it fills one node no offer of its device spans
    (`_node_bound`), so more cards cannot shorten it; nothing where migration weeks are in its hours (`calendar_h`
    above set-up and compute: no card count shortens them), or the grid has no card counts (a unit test's)."""
    if "gpus" not in grid or "hours" not in grid or float(calendar_h[j]) > float(grid["hours"][sel][j]):
        return []
    d, ranks = devs[int(grid["dev"][sel][j])], int(grid["gpus"][sel][j])
    if _node_bound(cat, d, ranks, req) is None:
        return []
    return [Message("relax.node_bound", **d.count_kw(ranks))]


def _budget_tip(mid: str, cheap: int, cost: np.ndarray, calendar_h: np.ndarray | None, req: PlanRequest,
                devs: list[_Device], dev: np.ndarray, passes: np.ndarray | None) -> Message:
    """The budget hint `mid` (relax.budget, relax.budget_alone) from the cheapest configuration `cheap` (an index
    into `cost`): where that one fails the evidence checks (`passes` False: the table ranks it after the plans that
    pass) and one that passes exists, the cheapest that passes (`_limit_picks`'s rule over those; `calendar_h` None:
    the deadline left out), with the cheaper one's cost and device (relax.budget_passing, _passing_alone) where
    that one costs more."""
    pick, cheaper = cheap, None
    if passes is not None and not passes[cheap] and passes.any():
        masked = np.where(passes, cost, np.inf)
        ok = (_limit_picks(masked, calendar_h, req)[0] if calendar_h is not None
              else int(np.argmin(masked)) if np.isfinite(masked).any() else None)
        if ok is not None and cost[ok] > cost[cheap]:  # one that passes at the same sum: the plain hint says it
            pick, cheaper = ok, cheap
    need = float(cost[pick])
    by = max(need - (req.budget_cny or 0.0), 0.0)
    if cheaper is None:
        return Message(mid, need=need, field="budget_cny", by=by)
    return Message(mid.replace("relax.budget", "relax.budget_passing"), need=need, field="budget_cny", by=by,
                   cheaper=float(cost[cheaper]), device=_device_name(devs[int(dev[cheaper])].acc))


# the evidence behind a plan's speed (buyer review 2026-12-01): the out-of-sample cases of its stack, the latency
# margin against that error, and the 910B variant an offer does not name
_SPEED_GROUPS = {"inference": ("decode-speed", "prefill-speed"), "training": ("training-throughput",)}


def _evidence_fails(bands: dict[str, ErrorBand], req: PlanRequest, devs: list[_Device], grid: dict[str, np.ndarray],
                    k: np.ndarray, calendar_h: np.ndarray) -> np.ndarray:
    """For each configuration `k` (its calendar hours beside), whether `demoted` would sink it (`_evidence_check`)."""
    return _evidence_check(bands, req, devs, grid, k, calendar_h)[0]


def _evidence_check(bands: dict[str, ErrorBand], req: PlanRequest, devs: list[_Device], grid: dict[str, np.ndarray],
                    k: np.ndarray, calendar_h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each configuration `k` (its calendar hours beside), whether `demoted` would sink it: a margin (memory
    headroom, TPOT, TTFT, deadline) within its stack's known error (`error_rule`'s limit) and under the pooled bias —
    `_margins` and `demoted` vectorised, so the reduction to one layout per device can prefer one that passes (buyer
    regression 1) — and by how many points its thinnest margin falls short of that error (0 where none does: the
    ranking's tie-break at an equal bill, `_rank_order`). The bias per stack and group is a scalar, the margins
    arrays."""
    fails, short = np.zeros(k.size, dtype=bool), np.zeros(k.size)
    if not bands or not k.size:
        return fails, short
    checks: list[tuple[str, np.ndarray, bool]] = []
    with np.errstate(divide="ignore", invalid="ignore"):
        if req.task == "inference":
            for key, target_s, group in (("tpot", req.tpot_s, "decode-speed"), ("ttft", req.ttft_s, "prefill-speed")):
                if target_s and (key != "tpot" or req.output > 1):  # one output token: no TPOT to miss
                    checks.append((group, latency_margin_pct(grid[key][k], target_s), False))
        elif req.deadline_hours is not None:
            compute_h = grid["compute_h"][k]
            checks.append(("training-throughput", np.where(
                compute_h > 0, 100 * (req.deadline_hours - calendar_h) / compute_h, np.inf), False))
    dev = grid["dev"][k]
    for group, margin, memory in checks:
        f, sh = _margin_fails(bands, devs, dev, group, margin, memory)
        fails |= f
        short = np.fmax(short, sh)
    f, sh = _memory_check(bands, req, devs, dev, grid["mem"][k], grid["usable"][k])
    return fails | f, np.fmax(short, sh)


def _memory_fails(bands: dict[str, ErrorBand], req: PlanRequest, devs: list[_Device], dev: np.ndarray,
                  need: np.ndarray, usable: np.ndarray) -> np.ndarray:
    """Whether each configuration's memory headroom is within the task's known memory error and under the pooled bias
    (likely short, `demoted`'s rule vectorised): the evidence step's memory check (`_evidence_check`), and what keeps
    the memory-saving measures searched on a card count (`_keep_fallbacks_of`)."""
    return _memory_check(bands, req, devs, dev, need, usable)[0]


def _memory_check(bands: dict[str, ErrorBand], req: PlanRequest, devs: list[_Device], dev: np.ndarray,
                  need: np.ndarray, usable: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`_margin_fails` of the memory headroom ((usable − need) / usable, %) against `memory_group(req.task)`."""
    with np.errstate(divide="ignore", invalid="ignore"):
        margin = np.where((usable > 0) & (need > 0), 100 * (usable - need) / usable, np.inf)
    return _margin_fails(bands, devs, dev, memory_group(req.task), margin, True)


def _margin_fails(bands: dict[str, ErrorBand], devs: list[_Device], dev: np.ndarray, group: str, margin: np.ndarray,
                  memory: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per configuration (its device `dev`), whether its `margin` (%) of `group` is under its stack's known error and
    under the pooled bias (`error_rule`; `demoted`), and the points it falls short of that error (0 where it does not)."""
    fails, short = np.zeros(dev.shape, dtype=bool), np.zeros(dev.shape)
    for di in np.unique(dev):
        rows = dev == di
        limit, risk = error_rule(bands, devs[int(di)].stack.id, group, memory)
        if limit is not None and risk is not None:
            fails[rows] = (margin[rows] < limit) & (risk > margin[rows])
        if limit is not None:
            short[rows] = np.fmax(limit - margin[rows], 0.0)  # NaN margin: none
    return fails, short


# a plan likely to miss (`demoted`) ranks after the plans that pass costing at most this many times its cost (the
# objective's score: cost when cheapest, hours when fastest) and before dearer ones; within one device a layout that
# passes replaces one that fails on the same terms. 2 is assumed (a judgement: a known error is worth paying up to
# twice for, not more), not measured (buyer regression 2; README, "How sure a plan's speed is")
DEMOTION_COST_FACTOR = 2.0


def _one_per_device(order: np.ndarray, dev: np.ndarray, fails: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The configuration (index into `score`) each device is planned with, in `order`: its best, or where that fails
    the evidence checks (`_evidence_fails`) its best that passes if that scores at most DEMOTION_COST_FACTOR times as
    much (paid idle cards a passing layout uses cost nothing more)."""
    if not order.size:
        return order
    pos = np.empty(dev.size, dtype=np.int64)  # `order` may be a subset (`_row_notes`: one device, one precision)
    pos[order] = np.arange(order.size)
    _, fi = np.unique(dev[order], return_index=True)
    pick = order[fi]
    ok = order[~fails[order]]
    _, pi = np.unique(dev[ok], return_index=True)
    passing = ok[pi]
    for n, j in enumerate(pick):
        if fails[j]:
            cand = passing[dev[passing] == dev[j]]
            if cand.size and score[cand[0]] <= DEMOTION_COST_FACTOR * score[j]:
                pick[n] = cand[0]
    return pick[np.argsort(pos[pick], kind="stable")]


def _passed_over(order: np.ndarray, dev: np.ndarray, picked: np.ndarray) -> dict[int, int]:
    """For each configuration `_one_per_device` picked (index into `dev`) that is not its device's first in `order`:
    that first one, the layout the evidence step passed over for it (it failed the checks)."""
    if not picked.size:
        return {}
    _, fi = np.unique(dev[order], return_index=True)
    first = {int(dev[j]): int(j) for j in order[fi]}
    return {int(j): first[int(dev[j])] for j in picked if first[int(dev[j])] != int(j)}


def _passed_over_warning(cat: Catalog, req: PlanRequest, d: _Device, grid: dict[str, np.ndarray], i: int,
                         over: Plan, p: Plan, bands: dict[str, ErrorBand]) -> Message | None:
    """The line plan `p` carries for the layout `over` (grid row `i`) of its device the evidence step passed over:
    its layout, cards, total and TPOT (training: hours), and the check it fails in that check's own sentence
    (`_margins`' warning that `demoted` sinks). None when no margin warning of it is demoted (nothing to say)."""
    failing = [w for _, w in _margins(bands, req, over, d) if demoted(w)]
    if not failing:
        return None
    layout = (serving_label(over.replicas, over.tp, over.ep, over.micro_batch, over.precision)
              if over.replicas is not None else _train_row_layout(cat, d, grid, i, req).label_message())
    cheaper = over.total_cost_cny < p.total_cost_cny
    kw: dict[str, Any] = {"layout": layout, "cards": over.cards or over.gpus, "cost": over.total_cost_cny,
                          "check": failing[0]}
    if over.tpot_s is not None:
        return Message("plan.warn.cheaper_passed_over" if cheaper else "plan.warn.ahead_passed_over",
                       tpot=Message("unit.ms", ms=over.tpot_s * 1000), **kw)
    return Message("plan.warn.cheaper_passed_over_hours" if cheaper else "plan.warn.ahead_passed_over_hours",
                   hours=duration(over.hours), **kw)


def _with_warning(p: Plan, w: Message | None) -> Plan:
    """Plan `p` with warning `w` added last, in both languages (unchanged for None)."""
    if w is None:
        return p
    return p.model_copy(update={"warnings": [*p.warnings, render(w)], "warnings_i18n": [*p.warnings_i18n, w.to_json()]})


def evidence_pick(bands: dict[str, ErrorBand], req: PlanRequest, devs: list[_Device], grid: dict[str, np.ndarray],
                  k: np.ndarray, calendar_h: np.ndarray, order: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Plan's evidence step, the one rule plan (with its checks kept, `_evidence_fails` then `_one_per_device`),
    `fastest_layout_why` and `serving_layout` (compare's layouts) follow: the configuration (index into `k`) each device is planned with, in `order` — its best by `score`, or where
    that fails the evidence checks (`_evidence_fails`) its best that passes at up to DEMOTION_COST_FACTOR the score."""
    return _one_per_device(order, grid["dev"][k], _evidence_fails(bands, req, devs, grid, k, calendar_h), score)


def _fastest_passing(bands: dict[str, ErrorBand] | None, req: PlanRequest, devs: list[_Device],
                     grid: dict[str, np.ndarray], sel: np.ndarray) -> int:
    """The configuration (grid index) of `sel` on one device that objective fastest plans: in plan's ranking order
    (`_rank_order`, prices aside: the soonest done, then at equal hours one that passes the evidence checks and is the
    least short of its known error — buyer review 2026-12-03 E: compare showed 7B pre-training on 8 × 910B at ZeRO 0,
    "fits (tight)", where plan planned ZeRO 1 at the same speed with room), through `evidence_pick` with hours ∝
    1 / tokens/s as the score (a fixed job)."""
    with np.errstate(divide="ignore"):
        score = 1.0 / grid["tok_s"][sel]
    hours = grid["hours"][sel]
    evidence = _evidence_check(bands, req, devs, grid, sel, hours) if bands else None
    order = _rank_order("fastest", score, np.zeros(sel.size), hours, hours, grid, sel, evidence=evidence)
    return int(sel[evidence_pick(bands or {}, req, devs, grid, sel, hours, order, score)[0]])


def _margins(bands: dict[str, ErrorBand], req: PlanRequest, p: Plan, d: _Device) -> list[tuple[str, Message]]:
    """(group, warning) for each target (TPOT, TTFT, deadline) the plan meets by less than its stack's known error,
    and for a memory headroom smaller than the task's memory error (inference-memory / training-memory)."""
    out: list[tuple[str, Message]] = []
    for metric, est_s, target_s, group in (("TPOT", p.tpot_s, req.tpot_s, "decode-speed"),
                                           ("TTFT", p.ttft_s, req.ttft_s, "prefill-speed")):
        if est_s and target_s:
            w = _known_error(bands, d.stack, group, metric, Message("unit.ms", ms=est_s * 1000),
                             Message("unit.ms", ms=target_s * 1000), latency_margin_pct(est_s, target_s))
            out += [(group, w)] if w is not None else []
    if req.deadline_hours is not None and req.task != "inference" and p.compute_hours > 0:
        # the compute hours carry the throughput error; set-up and the migration weeks do not
        calendar_h = float(calendar_hours(p.hours, _weeks_mid(p.migration_weeks)))
        slack_h = req.deadline_hours - calendar_h
        w = _known_error(bands, d.stack, "training-throughput", "deadline", duration(calendar_h),
                         duration(req.deadline_hours), 100 * slack_h / p.compute_hours)
        out += [("training-throughput", w)] if w is not None else []
    w = memory_within_error(bands, d.stack, req.task, p.memory_needed_bytes, p.memory_usable_bytes, d.dies)
    out += [(memory_group(req.task), w)] if w is not None else []
    return out


def _caveat_run(req: PlanRequest, p: Plan, bands: dict[str, ErrorBand]) -> Rerun:
    """The plan's layout as the offer caveats (`plan.caveats`) re-estimate it on another part: its workload, its
    tokens/s, the serving targets, the TPOT its row is judged on (`_steady_serving`) and the bands plan judges by."""
    return Rerun(plan_workload(p, req), p.tokens_per_s, req.tpot_s, req.ttft_s, _steady_serving(req), bands)


def _margin_reason(w: Message, group: str) -> Message:
    """The ranking explanation's word on a target (or memory headroom) within the stack's known error: 'may be
    missed' (memory: 'may not fit'), or 'likely missed / short if the known error holds' where the pooled bias alone
    exceeds the headroom (ranked after the plans that pass); a stack whose own few cases exceed it but whose pooled
    bias does not says why it kept its rank."""
    g = Message(f"band.{group}")
    memory = w.id.startswith("plan.warn.memory")
    cases = int(w.params.get("bias_cases") or 0)
    if not _likely_missed(w) and cases < LITTLE_EVIDENCE_CASES and "median" in w.params:
        # fewer than 5 cases on the stack: one band, the warning's (the |error| shrunk toward all stacks'), and the
        # row unvalidated there rather than 'rank kept' on a second, signed figure (buyer review F 2)
        ids = (("plan.reason.memory_within_band_unvalidated_none", "plan.reason.within_band_unvalidated_none")
               if cases == 0  # no case on the stack: all stacks' band (zh 没有案例, not 只有 0 个案例)
               else ("plan.reason.memory_within_band_unvalidated", "plan.reason.within_band_unvalidated"))
        return Message(ids[0] if memory else ids[1], metric=w.params["metric"], group=g,
                       band=w.params["median"], margin=w.params["margin"], stack=w.params["stack"], cases=cases)
    if not _likely_missed(w):
        own = _risk_pct(w, w.params.get("bias_own"))
        if own is not None and own > float(w.params["margin"]) and w.params.get("bias") is not None:
            return Message("plan.reason.memory_within_error_pooled" if memory else "plan.reason.within_error_pooled",
                           metric=w.params["metric"], group=g, evidence=_bias_evidence(w), bias=w.params["bias"],
                           margin=w.params["margin"])
        if memory:
            return Message("plan.reason.memory_within_error", group=g, margin=w.params["margin"])
        return Message("plan.reason.within_error", metric=w.params["metric"], group=g)
    rank = Message("plan.reason.rank_demoted_factor", factor=DEMOTION_COST_FACTOR)  # `_demote`'s rule
    if memory:
        return Message("plan.reason.memory_likely_short", group=g, evidence=_bias_evidence(w), bias=w.params["bias"],
                       margin=w.params["margin"], rank=rank)
    if w.id == "plan.warn.within_error" and int(w.params.get("bias_cases") or 0) >= LITTLE_EVIDENCE_CASES:
        return Message("plan.reason.likely_missed", metric=w.params["metric"], group=g,
                       cases=int(w.params["cases"]), signed=w.params["signed"], margin=w.params["margin"], rank=rank)
    return Message("plan.reason.likely_missed_pooled", metric=w.params["metric"], group=g,
                   evidence=_bias_evidence(w), bias=w.params["bias"], margin=w.params["margin"], rank=rank)


def _evidence(cat: Catalog, m: ModelArch, req: PlanRequest, p: Plan, d: _Device, bands: dict[str, ErrorBand]) -> Plan:
    """The plan with the evidence for its speed: a warning per speed group with fewer than 5 out-of-sample cases on
    its stack ("little evidence" / none), for an MoE model one per speed group with the stack's MoE cases (or none),
    the FP8 checkpoint run converted to 16-bit, one per target met by less than the stack's known error (and a word in
    the ranking explanation), and the variant an offer does not name."""
    warnings: list[Message] = []
    extras: list[Message] = []
    late = False  # the deadline check below demoted it (plan.train_evidence then adds no second deadline reason)
    if m.kind == "llm":
        for g in _SPEED_GROUPS["inference" if req.task == "inference" else "training"]:
            sb = stack_band(bands, d.stack.id, g)
            msg = evidence_message(sb, g, _stack_name(d.stack))
            if sb is not None and sb.cases < LITTLE_EVIDENCE_CASES and msg is not None:
                warnings.append(msg)
            # an MoE model: how many of the stack's out-of-sample cases are MoE, or that none is (the rank is kept)
            moe = moe_evidence_message(moe_stack_band(bands, d.stack.id, g), g, _stack_name(d.stack)) if m.moe else None
            if moe is not None:
                warnings.append(moe)
            # a LoRA/QLoRA job on a stack with fewer than 5 out-of-sample LoRA cases: unvalidated for LoRA there
            lb = lora_stack_band(bands, d.stack.id, g) if req.task in LORA_TASKS else None
            lora = lora_evidence_message(lb, g, _stack_name(d.stack)) if lb is not None else None
            if lb is not None and lb.cases < LITTLE_EVIDENCE_CASES and lora is not None:
                warnings.append(lora)
        # a serving row whose stack has fewer than 5 out-of-sample cases for the model's family: unvalidated there
        label = unvalidated_label(bands, d.stack, bool(m.moe), _SPEED_GROUPS["inference"], _stack_name(d.stack)) if (
            req.task == "inference") else None
        if label is not None:
            extras.append(label)
        # an FP8 checkpoint planned in 16-bit: converted (2x the weights) where the device runs no FP8, or pinned
        native = native_precision_note(m, d.acc, d.stack, req.task, p.precision)
        if native is not None:
            warnings.append(native)
        # a quantized precision of which no checkpoint is published for the stack: quantize it first (one rule)
        unpublished = unpublished_checkpoint_note(m, d.stack, req.task, p.precision, stacks=cat.stacks)
        if unpublished is not None:
            warnings.append(unpublished)
        for group, w in _margins(bands, req, p, d):
            warnings.append(w)
            extras.append(_margin_reason(w, group))
            late = late or (w.params.get("metric") == "deadline" and demoted(w))
    upd: dict[str, Any] = {}
    if m.kind == "llm" and req.task != "inference":  # what its speed takes on trust (plan.train_evidence)
        tw, tx, upd = plan_training_notes(cat, m, req, p, d.acc, plan_workload(p, req), d.stack.id,
                                          _stack_name(d.stack), _device_name(d.acc),
                                          next((o for o in d.offers if o.id == p.offer), None), bands, late)
        warnings += tw
        extras += tx
    # what the offer's listing leaves out of its card (the one builder compare and migrate cost call too)
    run = _caveat_run(req, p, bands)
    variant = variant_warning(cat, m, d.acc, p.offer, run)
    if variant is not None:
        warnings.append(variant)
        extras.append(Message("plan.reason.variant_unstated", assumed=variant.params["assumed"]))
    offer = next((o for o in d.offers if o.id == p.offer), None)
    # the listing does not say SXM or PCIe, or the memory size
    card = card_warning(cat, m, d.acc, offer, run) if offer is not None else None
    if card is not None:
        warnings.append(card)
        extras.append(Message("plan.reason.card_unstated", unstated=card.params["unstated"],
                              assumed=card.params["assumed"]))
    # the checkpoint's own precision (DeepSeek-V3/R1 in fp8) is no quantization to check against bf16
    own = [m.native_dtype is not None and p.precision == m.native_dtype and isinstance(j, dict)
           and j.get("id") in ("plan.warn.quantization", "plan.warn.quantization_scheme")
           and len(p.warnings) == len(p.warnings_i18n)
           for j in p.warnings_i18n]
    if not warnings and not any(own):
        return p.model_copy(update=upd) if upd else p
    kept = [(w, j) for w, j, o in zip(p.warnings, p.warnings_i18n, own) if not o]
    reason = Message.from_json(p.reason_i18n) if p.reason_i18n else p.reason
    for x in extras:
        reason = Message("plan.reason.with", reason=reason, extra=x)
    return p.model_copy(update={
        **upd,
        "warnings": [*(w for w, _ in kept), *(render(w) for w in warnings)],
        "warnings_i18n": [*(j for _, j in kept), *(w.to_json() for w in warnings)],
        "reason": render(reason), "reason_i18n": reason.to_json() if isinstance(reason, Message) else p.reason_i18n,
    })
