"""The planner: search device × cards × framework layout × precision × micro-batch, drop what does not fit or
breaks a constraint, rank the rest and explain the ranking.

One model of the world (issue 10): every configuration is evaluated by the estimator's own kernels
(`estimate.memory.training_memory` / `inference_memory`, `estimate.speed.training_step` / `inference_step`,
`estimate.setup.setup_hours`, `plan.cost.billed_cost`) over numpy arrays, so a plan re-estimated with
`suanli estimate` gives the same numbers. The search space is what a team can launch: the framework's layouts
(`frameworks.yaml`), the precisions the device and stack run (`estimate.capability`), the stack's serving
engines, and offers that can actually be rented for the job (`catalog.offers`)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from suanli.catalog import lookup
from suanli.catalog.offers import can_span_nodes, is_international, max_cards, unpriced_reason, usable_offers
from suanli.catalog.schema import Accelerator, Catalog, Framework, ModelArch, Offer, SoftwareStack
from suanli.errors import EstimateError, InputError, PlanError
from suanli.estimate import arch
from suanli.estimate.capability import capability_problems, default_engine, supports_fp8, supports_fp8_training
from suanli.estimate.memory import (
    inference_memory,
    inference_memory_terms,
    preallocate_fraction,
    stack_fragmentation,
    training_memory,
    training_memory_terms,
    usable_memory_bytes,
)
from suanli.estimate.precision import peak_flops_per_s
from suanli.estimate.setup import setup_hours, setup_terms
from suanli.estimate.speed import (
    inference_rates,
    inference_speed_terms,
    inference_step,
    training_rates,
    training_speed_terms,
    training_step,
)
from suanli.estimate.workload import RECOMPUTE, Workload, make_workload, optimizer_bytes_per_param
from suanli.plan.cost import UNIT_HOURS, billed_cost
from suanli.plan.request import PlanRequest
from suanli.units import HOURS_PER_MONTH, HOURS_PER_WEEK, GiB, fmt_hours

__all__ = ["Plan", "PlanResult", "is_international", "migration_weeks", "plan", "plan_workload"]

GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
TP_SIZES = (1, 2, 4, 8)
PP_SIZES = (1, 2, 4, 8)
EP_SIZES = (1, 2, 4, 8)
ZERO_STAGES = (0, 1, 2, 3)
MICRO_BATCHES = (1, 2, 4, 8, 16, 32)
SERVE_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
SERVE_PRECISIONS = ("bf16", "fp8", "int8", "int4")
ENGINEERS_FOR_MIGRATION = 2  # seed-000 §4's example: "2人周×2人"


class Plan(BaseModel):
    model_config = ConfigDict(frozen=True)

    rank: int
    device: str
    device_name: str
    framework: str
    engine: str | None = None
    gpus: int
    tp: int
    pp: int
    dp: int
    ep: int = 1
    zero: int | None
    recompute: str | None
    precision: str
    micro_batch: int
    grad_accum: int | None
    replicas: int | None = None
    ttft_s: float | None = None
    tpot_s: float | None = None
    memory_per_gpu_bytes: float
    memory_needed_bytes: float
    memory_usable_bytes: float
    memory_capacity_bytes: float
    tokens_per_s: float
    compute_hours: float
    setup_hours: float
    hours: float
    cost_cny: float
    cost_cny_max: float
    offer: str
    offer_kind: str
    billing_unit: str
    migration_weeks: tuple[float, float]
    migration_one_off_cny: float
    migration_cost_cny: float
    total_cost_cny: float
    scaling_efficiency: float | None
    reason: str
    warnings: list[str]


class PlanResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    request: PlanRequest
    model_id: str
    plans: list[Plan]
    pareto: list[dict[str, Any]]
    why_not: list[dict[str, str]]
    configurations_evaluated: int
    search_seconds: float
    relax: list[str] = []
    assumptions: list[str] = []


def migration_weeks(cat: Catalog, stack: SoftwareStack, m: ModelArch) -> tuple[float, float, str]:
    """Engineer-weeks to move model `m` onto `stack`, with the reason. CUDA costs nothing; a model on the
    stack's adapted list takes the adapted range (seed-000 §4: 1–2 weeks), others the unadapted range
    (2–4 weeks), MoE and multimodal the longer range (seed-003 §2: 1–2 months)."""
    if stack.id == "cuda":
        return 0.0, 0.0, "CUDA: no migration"
    ids = {a.lower() for a in stack.adapted_models}
    names = {m.id.lower(), *(a.lower() for a in m.aliases)}
    on_list = bool(ids & names) or any(i.split("/")[-1] in {n.split("/")[-1] for n in names} for i in ids)
    if on_list and stack.migration_weeks_adapted is not None:
        lo, hi = stack.migration_weeks_adapted.value
        return lo, hi, f"on the {stack.name} adapted list"
    if (m.moe is not None or m.kind == "diffusion") and stack.migration_weeks_moe_multimodal is not None:
        lo, hi = stack.migration_weeks_moe_multimodal.value
        return lo, hi, f"MoE/multimodal, not on the {stack.name} adapted list"
    if stack.migration_weeks_unadapted is not None:
        lo, hi = stack.migration_weeks_unadapted.value
        return lo, hi, f"not on the {stack.name} adapted list: operators to adapt"
    return 0.0, 0.0, f"{stack.name}: no migration data"


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
    weeks: tuple[float, float, str]
    offers: list[Offer]
    excluded: str | None = None
    notes: list[str] = field(default_factory=list)


def _framework_for(cat: Catalog, req: PlanRequest, stack: SoftwareStack) -> tuple[Framework | None, str | None]:
    """The framework this plan assumes on `stack`: the pinned one, else the one most teams use for the task
    (`default_for`, the most stack-specific first), else any that runs the task there."""
    task = req.task
    if req.framework is not None:
        fw = next((f for f in cat.frameworks if f.id == req.framework), None)
        assert fw is not None  # checked in plan()
        if task not in fw.tasks:
            return None, f"{fw.name} does not run task {task} (tasks: {', '.join(fw.tasks)})"
        if stack.id not in fw.stacks:
            return None, f"{fw.name} does not run on {stack.name}"
        return fw, None
    cands = [f for f in cat.frameworks if task in f.tasks and stack.id in f.stacks and _runs_pins(f, req)]
    if task == "inference" and req.engine is not None:
        cands = [f for f in cands if f.engine == req.engine]
    defaults = sorted((f for f in cands if task in f.default_for), key=lambda f: len(f.stacks))
    if defaults:
        return defaults[0], None
    if cands:
        return cands[0], None
    return None, f"no framework in the catalog runs {task} on {stack.name}"


def _runs_pins(fw: Framework, req: PlanRequest) -> bool:
    """Whether framework `fw` can run the dimensions the user pinned (--tp/--pp/--ep/--zero/--recompute/fp8)."""
    return ((req.tp or 1) == 1 or fw.tp) and ((req.pp or 1) == 1 or fw.pp) and ((req.ep or 1) == 1 or fw.ep) \
        and (req.zero is None or req.zero in fw.zero_stages) and (req.recompute is None or req.recompute in fw.recompute) \
        and (req.precision != "fp8" or req.task == "inference" or fw.fp8)


def _devices(cat: Catalog, m: ModelArch, req: PlanRequest, offers: tuple[Offer, ...]) -> list[_Device]:
    out: list[_Device] = []
    stacks = {s.id: s for s in cat.stacks}
    wanted = {lookup.accelerator(cat, d).id for d in req.devices}
    vendors = sorted({a.vendor for a in cat.accelerators})
    for v in req.vendors:
        if v not in vendors:
            raise InputError("vendor", f"{v!r} is not one of {', '.join(vendors)}")
    for st in (*req.stacks, *req.already_on):
        if st not in stacks:
            raise InputError("stack", f"{st!r} is not one of {', '.join(sorted(stacks))}")
    by_device: dict[str, list[Offer]] = {}
    for o in offers:
        by_device.setdefault(o.device, []).append(o)
    inference = req.task == "inference"
    for acc in cat.accelerators:
        if wanted and acc.id not in wanted:
            continue
        stack = stacks[acc.stack]
        weeks = (0.0, 0.0, f"already on {stack.name}") if stack.id in req.already_on else migration_weeks(cat, stack, m)
        fw, fw_reason = _framework_for(cat, req, stack)
        engine = None
        if inference and fw is not None:
            engine = req.engine or fw.engine or default_engine(stack)
        precisions = _precisions(cat, req, acc, stack, fw)
        reason = None
        if req.domestic_only and not acc.domestic:
            reason = "not domestic (--domestic-only)"
        elif req.vendors and acc.vendor not in req.vendors:
            reason = f"vendor {acc.vendor} not allowed"
        elif req.stacks and acc.stack not in req.stacks:
            reason = f"stack {acc.stack} not allowed"
        elif not req.allow_migration and weeks[1] > 0:
            reason = f"needs {weeks[0]:g}–{weeks[1]:g} weeks of migration ({weeks[2]}), not allowed"
        elif fw_reason is not None:
            reason = fw_reason
        elif acc.specs.memory_gib is None:
            reason = "no published memory size"
        elif acc.specs.memory_bandwidth_gb_per_s is None:
            reason = "no published memory bandwidth"
        elif not precisions[0]:
            reason = precisions[1]
        elif acc.id not in by_device:
            reason = unpriced_reason(cat, acc.id) or _no_offer_reason(cat, acc.id, req)
        else:
            try:
                peak_flops_per_s(acc, "bf16")
            except EstimateError:
                reason = "no published dense 16-bit peak"
        out.append(_Device(
            acc=acc, stack=stack, framework=fw, engine=engine, precisions=precisions[0],
            capacity=(acc.specs.memory_gib.value if acc.specs.memory_gib else 0.0) * GiB,
            runtime=(stack.runtime_overhead_gib.value if stack.runtime_overhead_gib else 0.0) * GiB,
            fragmentation=stack_fragmentation(stack), weeks=weeks, offers=by_device.get(acc.id, []),
            excluded=reason,
        ))
    return out


def _no_offer_reason(cat: Catalog, device: str, req: PlanRequest) -> str:
    anywhere = [o for o in cat.offers if o.device == device]
    if not anywhere:
        return "no rental price in the catalog"
    kinds = sorted({o.kind for o in anywhere})
    regions = sorted({"international" if is_international(o.region) else "cn" for o in anywhere})
    return (f"no {'/'.join(req.offer_kinds)} offer in region {req.region}"
            f" (the catalog has {'/'.join(kinds)} prices in {'/'.join(regions)})")


def _precisions(cat: Catalog, req: PlanRequest, acc: Accelerator, stack: SoftwareStack,
                fw: Framework | None) -> tuple[tuple[str, ...], str]:
    """Precisions to search on this device (capability rules from the catalog), or () and why not."""
    if req.task == "qlora":
        cands: tuple[str, ...] = ("nf4",)
    elif req.task == "inference":
        cands = SERVE_PRECISIONS
    else:
        cands = ("bf16", "fp8") if fw is not None and fw.fp8 and supports_fp8_training(cat, acc, stack) else ("bf16",)
    if req.precision is not None and req.task != "qlora":
        cands = tuple(p for p in cands if p == req.precision) or (req.precision,)
    ok = []
    why = ""
    for p in cands:
        errors, _ = capability_problems(acc, stack, req.task, "bf16" if p == "nf4" else p, None)
        if p == "fp8" and req.task == "inference" and not supports_fp8(acc, stack):
            errors = errors or ["no FP8 support"]
        if p == "fp8" and req.task != "inference" and not supports_fp8_training(cat, acc, stack):
            errors = errors or [f"no measured FP8 training efficiency for {acc.family} (or no FP8 on {stack.name})"]
        if errors:
            why = why or errors[0]
        else:
            ok.append(p)
    return tuple(ok), why


# ---------------------------------------------------------------------------------------------------- training


def _train_workload(req: PlanRequest, precision: str, **layout: Any) -> Workload:
    return make_workload(task=req.task, precision=precision, seq=req.seq, lora_rank=req.lora_rank,
                         lora_targets=req.lora_targets, tokens=req.tokens, **layout)


def _layouts(req: PlanRequest, fw: Framework, moe: bool, layers: int) -> dict[str, np.ndarray]:
    """The framework's layouts (gpus × tp × pp × ep × zero × recompute × micro-batch), pins applied, generic
    validity pruned before any arithmetic (vidur's is_valid pruning)."""
    def pick(values: tuple[Any, ...], allowed: bool | tuple[Any, ...], pin: Any) -> list[Any]:
        vals = [v for v in values if (v in allowed if isinstance(allowed, tuple) else (allowed or v == 1))]
        return [v for v in vals if pin is None or v == pin] if pin is not None else vals

    gpu_counts = [g for g in GPU_COUNTS if g <= req.max_gpus]
    tps = pick(TP_SIZES, fw.tp, req.tp)
    pps = [p for p in pick(PP_SIZES, fw.pp, req.pp) if p <= max(layers, 1)]
    eps = pick(EP_SIZES, fw.ep and moe, req.ep)
    zeros = [z for z in ZERO_STAGES if z in fw.zero_stages and (req.zero is None or z == req.zero)]
    recs = [RECOMPUTE.index(r) for r in RECOMPUTE if r in fw.recompute and (req.recompute is None or r == req.recompute)]
    axes = [gpu_counts, tps, pps, eps, zeros, recs, list(MICRO_BATCHES)]
    if any(len(a) == 0 for a in axes):
        return {k: np.zeros(0) for k in ("gpus", "tp", "pp", "ep", "zero", "rec", "b")}
    grid = np.array(np.meshgrid(*axes, indexing="ij")).reshape(len(axes), -1).astype(float)
    g, tp, pp, ep, zero, rec, b = grid
    dp = g / (tp * pp)
    valid = (np.mod(g, tp * pp) == 0) & (np.mod(dp, ep) == 0)
    valid &= (zero == 0) | (dp > 1)
    valid &= b * dp <= max(req.global_batch, 1)  # a step holds at most the global batch
    if fw.id == "deepspeed":
        valid &= (pp == 1) | (zero <= 1)  # deepspeed.pipe runs with ZeRO-0/1 only
    keep = np.nonzero(valid)[0]
    return {"gpus": g[keep], "tp": tp[keep], "pp": pp[keep], "ep": ep[keep], "zero": zero[keep].astype(int),
            "rec": rec[keep].astype(int), "b": b[keep]}


def _concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    keys = parts[0].keys() if parts else []
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}


def _train_grid(cat: Catalog, m: ModelArch, req: PlanRequest, devs: list[_Device]) -> tuple[dict[str, np.ndarray], int]:
    groups: dict[tuple[str, str], list[int]] = {}
    for i, d in enumerate(devs):
        if d.excluded is None and d.framework is not None:
            for p in d.precisions:
                groups.setdefault((d.framework.id, p), []).append(i)
    parts: list[dict[str, np.ndarray]] = []
    n_grid = 0
    fws = {f.id: f for f in cat.frameworks}
    for (fw_id, precision), idx in groups.items():
        fw = fws[fw_id]
        lay = _layouts(req, fw, m.moe is not None, m.num_layers or 0)
        n_lay = lay["gpus"].shape[0]
        n_grid += n_lay * len(idx)
        if n_lay == 0:
            continue
        w = _train_workload(req, precision)
        mt, st = training_memory_terms(m, w), training_speed_terms(m, w)
        di = np.repeat(np.array(idx), n_lay)
        L = {k: np.tile(v, len(idx)) for k, v in lay.items()}
        per_node = np.array([devs[i].acc.max_cards_per_node for i in range(len(devs))], dtype=float)[di]
        ok = (L["tp"] <= per_node) & ((L["gpus"] <= per_node) | (np.mod(L["gpus"], per_node) == 0))
        # a multi-node job needs an offer whose nodes have an inter-node fabric (or a cluster)
        spans = np.array([any(can_span_nodes(o) for o in d.offers) for d in devs])[di]
        ok &= (L["gpus"] <= per_node) | spans
        sel = np.nonzero(ok)[0]
        di = di[sel]
        L = {k: v[sel] for k, v in L.items()}
        tp, pp, ep, zero, rec, b = L["tp"], L["pp"], L["ep"], L["zero"], L["rec"], L["b"]
        dp = L["gpus"] / (tp * pp)
        ga = np.ceil(req.global_batch / (b * dp))
        mem = training_memory(mt, tp, pp, dp, ep, zero, rec, b, ga)
        runtime = np.array([d.runtime for d in devs])[di]
        needed = sum(mem.values()) + runtime
        cap = np.array([d.capacity for d in devs])[di]
        usable = usable_memory_bytes(cap, np.array([d.fragmentation for d in devs])[di], None)
        fits = needed <= usable
        rates = _stack_rates([_try(lambda: training_rates(cat, d.acc, w)[0]) if i in idx else None
                              for i, d in enumerate(devs)], di)
        k = training_step(st, tp, pp, dp, ep, zero, rec, b, ga, rates)
        compute_h = float(req.tokens or 0) / k["tokens_per_s"] / 3600
        nodes = np.ceil(L["gpus"] / per_node[sel])
        su = setup_hours(setup_terms(cat, m, req.task, mt.trainable, optimizer_bytes_per_param(w)), compute_h, nodes)
        parts.append({
            "dev": di, "gpus": L["gpus"], "tp": tp, "pp": pp, "dp": dp, "ep": ep, "zero": zero, "rec": rec, "b": b,
            "ga": ga, "mem": needed, "usable": usable, "cap": cap, "fits": fits,
            "tok_s": k["tokens_per_s"], "compute_h": compute_h, "setup_h": su["total_h"],
            "hours": compute_h + su["total_h"], "scaling": k["scaling"],
            "prec": np.full(di.shape, SERVE_PRECISIONS.index(precision) if precision in SERVE_PRECISIONS else -1),
            "replicas": np.zeros(di.shape), "ttft": np.full(di.shape, np.nan), "tpot": np.full(di.shape, np.nan),
        })
    return _concat(parts) if parts else _empty(), n_grid


def _empty() -> dict[str, np.ndarray]:
    keys = ("dev", "gpus", "tp", "pp", "dp", "ep", "zero", "rec", "b", "ga", "mem", "usable", "cap", "fits", "tok_s",
            "compute_h", "setup_h", "hours", "scaling", "prec", "replicas", "ttft", "tpot")
    out = {k: np.zeros(0) for k in keys}
    out["dev"] = out["dev"].astype(int)
    out["fits"] = out["fits"].astype(bool)
    return out


def _try(f: Any) -> Any:
    try:
        return f()
    except EstimateError:
        return None  # a device without the rates it needs gets NaN times: never fits the ranking


_RATE_KEYS = ("peak", "eff", "bw", "e_mm", "e_bw", "e_stream", "overhead", "intra_bw", "intra_lat", "inter_bw",
              "inter_lat", "cards_per_node")


def _stack_rates(rows: list[dict[str, float] | None], di: np.ndarray) -> dict[str, np.ndarray]:
    """Per-configuration device rates: each device's scalar rates gathered by device index."""
    return {k: np.array([r.get(k, np.nan) if r is not None else np.nan for r in rows], dtype=float)[di]
            for k in _RATE_KEYS}


# ---------------------------------------------------------------------------------------------------- serving


def _serve_grid(cat: Catalog, m: ModelArch, req: PlanRequest, devs: list[_Device]) -> tuple[dict[str, np.ndarray], int]:
    """Serving, vectorized like training: device × precision × tp × concurrent batch through the same
    inference kernels, then the replicas needed for the request rate."""
    arch.require_llm(m, "serving plans")
    groups: dict[tuple[str, str], list[int]] = {}
    for i, d in enumerate(devs):
        if d.excluded is None and d.engine is not None:
            for p in d.precisions:
                groups.setdefault((p, d.engine), []).append(i)
    need_tok_s = (req.requests_per_s or 0) * req.output
    tps = [t for t in TP_SIZES if req.tp is None or t == req.tp]
    parts: list[dict[str, np.ndarray]] = []
    n = 0
    for (precision, engine), idx in groups.items():
        w = make_workload(task="inference", precision=precision, input=req.input, output=req.output, engine=engine)
        prealloc = preallocate_fraction(cat, engine)
        mt = inference_memory_terms(m, w, prealloc is not None)
        st = inference_speed_terms(m, w)
        lay = np.array(np.meshgrid(np.array(idx), tps, SERVE_BATCHES, indexing="ij")).reshape(3, -1)
        di, tp, b = lay[0].astype(int), lay[1].astype(float), lay[2].astype(float)
        n += di.shape[0]
        per_node = np.array([d.acc.max_cards_per_node for d in devs], dtype=float)[di]
        keep = np.nonzero((tp <= per_node) & (tp <= req.max_gpus))[0]
        di, tp, b = di[keep], tp[keep], b[keep]
        cap = np.array([d.capacity for d in devs])[di]
        pool = cap * prealloc if prealloc is not None else None
        mem = inference_memory(mt, tp, 1.0, 1.0, b, pool)
        runtime = np.array([d.runtime for d in devs])[di]
        needed = sum(v for k, v in mem.items() if k != "kv_cache_pool_unused") + runtime
        usable = usable_memory_bytes(cap, np.array([d.fragmentation for d in devs])[di], prealloc)
        fits = needed <= usable
        rates = _stack_rates([_try(lambda: inference_rates(cat, d.acc, w)[0]) if i in idx else None
                              for i, d in enumerate(devs)], di)
        k = inference_step(st, tp, 1.0, b, rates)
        per_replica = b * req.output / k["total_s"]
        ok = fits & np.isfinite(per_replica)
        if req.tpot_s is not None:
            ok &= k["step_s"] <= req.tpot_s
        if req.ttft_s is not None:
            ok &= k["prefill_s"] <= req.ttft_s
        if need_tok_s > 0:
            replicas = np.ceil(need_tok_s / per_replica)
            hours = np.full(di.shape, req.serving_hours)
        else:
            replicas = np.ones(di.shape)
            hours = float(req.tokens or 0) / per_replica / 3600
        gpus = replicas * tp
        ok &= gpus <= req.max_gpus
        parts.append({
            "dev": di, "gpus": gpus, "tp": tp, "pp": np.ones(di.shape), "dp": replicas, "ep": np.ones(di.shape),
            "zero": np.zeros(di.shape, dtype=int), "rec": np.zeros(di.shape, dtype=int), "b": b, "ga": np.ones(di.shape),
            "mem": needed, "usable": usable, "cap": cap, "fits": ok, "tok_s": per_replica * replicas,
            "compute_h": hours, "setup_h": np.zeros(di.shape), "hours": hours,
            "scaling": (k["step_s"] - k["tp_comm_s"]) / k["step_s"],
            "prec": np.full(di.shape, SERVE_PRECISIONS.index(precision)), "replicas": replicas,
            "ttft": k["prefill_s"], "tpot": k["step_s"],
        })
    return (_concat(parts) if parts else _empty()), n


# ---------------------------------------------------------------------------------------------------- pricing


def _price(devs: list[_Device], grid: dict[str, np.ndarray], sel: np.ndarray, subsidy: float
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cheapest usable offer per configuration through `billed_cost`: cost, cost at the range's top, offer
    index into the device's offers (−1: none can hold the job)."""
    dev = grid["dev"][sel]
    gpus, hours = grid["gpus"][sel], grid["hours"][sel]
    n = sel.shape[0]
    best = np.full(n, np.inf)
    best_max = np.full(n, np.inf)
    best_o = np.full(n, -1)
    multi_node = gpus > np.array([d.acc.max_cards_per_node for d in devs], dtype=float)[dev] if devs else gpus > 0
    serving = bool(np.any(grid["replicas"][sel] > 0)) if n else False
    for k in range(max((len(d.offers) for d in devs), default=0)):
        rows = [d.offers[k] if k < len(d.offers) else None for d in devs]

        def col(f: Any) -> np.ndarray:
            return np.array([f(o) if o is not None else np.nan for o in rows], dtype=float)[dev]

        has = np.array([o is not None for o in rows])[dev]
        price = col(lambda o: o.price_cny.value)
        pmax = col(lambda o: (o.price_cny_max or o.price_cny).value)
        unit_h = col(lambda o: UNIT_HOURS[o.billing_unit])
        min_units = col(lambda o: o.min_units)
        cards = col(lambda o: o.cards)
        spans = np.array([o is not None and can_span_nodes(o) for o in rows])[dev]
        limit = np.array([max_cards(o, d.acc.max_cards_per_node) if o is not None else 0
                          for o, d in zip(rows, devs)], dtype=float)[dev]
        dom = np.array([d.acc.domestic for d in devs])[dev]
        sub = np.where(dom, subsidy, 0.0)
        # serving replicas are independent model copies: card rentals suffice; one training job across nodes
        # needs offers that span nodes (single-card listings never combine into a multi-node job)
        ok = has & ((~multi_node) | spans | serving) & ((gpus <= limit) | serving)
        c = np.where(ok, billed_cost(price, unit_h, min_units, cards, gpus, hours, sub), np.inf)
        cm = billed_cost(pmax, unit_h, min_units, cards, gpus, hours, sub)
        better = c < best
        best = np.where(better, c, best)
        best_max = np.where(better, cm, best_max)
        best_o = np.where(better, k, best_o)
    return best, best_max, best_o


# ---------------------------------------------------------------------------------------------------- plan


def plan(cat: Catalog, m: ModelArch, req: PlanRequest) -> PlanResult:
    """Ranked plans for `req` on model `m`, best first, with a Pareto front of cost against time."""
    t0 = time.perf_counter()
    training = req.task != "inference"
    if training:
        arch.require_llm(m, f"task {req.task}")
    fw_ids = [f.id for f in cat.frameworks]
    if req.framework is not None and req.framework not in fw_ids:
        raise InputError("framework", f"{req.framework!r} is not one of {', '.join(fw_ids)}")
    engines = [e.id for e in cat.engines]
    if req.engine is not None and req.engine not in engines:
        raise InputError("engine", f"{req.engine!r} is not one of {', '.join(engines)}")
    for name, pin, allowed in (("tp", req.tp, TP_SIZES), ("pp", req.pp, PP_SIZES), ("ep", req.ep, EP_SIZES)):
        if pin is not None and pin not in allowed:
            raise InputError(name, f"{pin} is not one of {', '.join(map(str, allowed))}")
    if req.precision == "bf16" and req.task == "qlora":
        raise InputError("precision", "qlora quantizes the base model to nf4; leave precision unset")
    if m.max_context and not m.rope_scaling and (req.input + req.output if not training else req.seq) > m.max_context:
        what = "input + output" if not training else "seq"
        raise InputError("input" if not training else "seq",
                         f"{what} exceeds {m.id}'s context of {m.max_context:,} tokens")
    offers = usable_offers(cat, req.region, req.offer_kinds, None if req.billing == "any" else req.billing)
    devs = _devices(cat, m, req, offers)
    grid, n_grid = _train_grid(cat, m, req, devs) if training else _serve_grid(cat, m, req, devs)
    sel = np.nonzero(grid["fits"])[0]
    cost, cost_max, oi = _price(devs, grid, sel, req.subsidy)
    dev = grid["dev"][sel]
    weeks = np.array([(d.weeks[0] + d.weeks[1]) / 2 for d in devs])[dev] if devs else np.zeros(0)
    one_off = weeks * ENGINEERS_FOR_MIGRATION * req.engineer_cny_per_week
    calendar_h = grid["hours"][sel] + weeks * HOURS_PER_WEEK
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
    if req.objective == "cheapest":
        score = total_k + hours_k * 1e-9
    elif req.objective in ("fastest", "fastest-within-budget"):
        score = hours_k + total_k * 1e-12
    else:  # best-value: each axis relative to its best
        score = (total_k / max(total_k.min(initial=np.inf), 1e-9) + hours_k / max(hours_k.min(initial=np.inf), 1e-9)
                 if k.size else total_k)
    order = np.argsort(score, kind="stable")
    plans: list[Plan] = []
    seen: set[str] = set()
    for j in order:
        idx = int(k[j])
        d = devs[int(grid["dev"][idx])]
        if d.acc.id in seen:
            continue
        seen.add(d.acc.id)
        plans.append(_make_plan(len(plans) + 1, d, grid, idx, float(cost_k[j]), float(cost_max_k[j]),
                                d.offers[int(oi_k[j])], float(mig_k[j]), float(one_k[j]), float(total_k[j]),
                                req, training, cat))
        if len(plans) >= req.top:
            break
    pareto = _pareto(devs, grid, k, total_k, hours_k)
    why = _why_not(devs, grid, sel, keep, total, calendar_h, req, {p.device for p in plans})
    relax = [] if plans else _relax(grid, sel, total, calendar_h, req)
    return PlanResult(
        request=req,
        model_id=m.id,
        plans=plans,
        pareto=pareto,
        why_not=why,
        configurations_evaluated=n_grid,
        search_seconds=time.perf_counter() - t0,
        relax=relax,
        assumptions=_assumptions(cat, req, devs, training),
    )


def migration_share(one_off_cny: Any, hours: Any, months: float) -> Any:
    """The one-off migration cost spread over `months` months of this workload: a job (or a serving period of
    up to a month) carries 1/months of it, a longer serving period its months' share, never more than all."""
    months_used = np.maximum(hours / HOURS_PER_MONTH, 1.0)
    return one_off_cny * np.minimum(months_used / months, 1.0)


def _assumptions(cat: Catalog, req: PlanRequest, devs: list[_Device], training: bool) -> list[str]:
    fws = sorted({(d.stack.name, d.framework.name) for d in devs if d.framework is not None and d.excluded is None})
    out = [f"framework on {s}: {f}" + ("" if req.framework else " (the default; --framework to choose)") for s, f in fws]
    if not training:
        engines = sorted({(d.stack.name, d.engine) for d in devs if d.engine and d.excluded is None})
        out += [f"engine on {s}: {e}" for s, e in engines]
        out.append(f"serving period {fmt_hours(req.serving_hours)} (--hours/--days)")
    else:
        s = next((x for x in cat.setup if x.id == "default"), None)
        if s is not None:
            out.append(f"set-up per job: {s.environment_minutes.value:g} min environment, model download at "
                       f"{s.download_gbit_per_s.value:g} Gbit/s, a checkpoint every {s.checkpoint_every_hours.value:g} h "
                       f"at {s.checkpoint_write_gb_per_s.value:g} GB/s per node (assumed)")
    out.append(f"migration one-off cost spread over {req.migration_months:g} months of this workload "
               f"(--migration-months; --already-on STACK for none)")
    out.append(f"prices: {'/'.join(req.offer_kinds)} offers in region {req.region}")
    return out


def plan_workload(p: Plan, req: PlanRequest) -> Workload:
    """The `suanli estimate` workload that reproduces plan `p` (tests re-estimate every plan with it)."""
    if req.task == "inference":
        return make_workload(task="inference", precision=p.precision, batch=p.micro_batch, input=req.input,
                             output=req.output, tp=p.tp, gpus=p.gpus, engine=p.engine)
    return _train_workload(req, p.precision, batch=p.micro_batch, gpus=p.gpus, tp=p.tp, pp=p.pp, ep=p.ep,
                           zero=p.zero or 0, recompute=p.recompute or "none", grad_accum=p.grad_accum or 1)


def _make_plan(rank: int, d: _Device, grid: dict[str, np.ndarray], i: int, cost: float, cost_max: float,
               offer: Offer, mig: float, one_off: float, total: float, req: PlanRequest, training: bool,
               cat: Catalog) -> Plan:
    gpus = int(grid["gpus"][i])
    warnings: list[str] = []
    scaling = float(grid["scaling"][i])
    if gpus > 1 and d.acc.interconnect in ("none", "pcie") and scaling < 0.95:
        warnings.append(f"no NVLink-class interconnect ({d.acc.interconnect}): multi-card efficiency "
                        f"{scaling:.0%} by the communication model")
    if d.weeks[1] > 0:
        warnings.append(f"migration {d.weeks[0]:g}–{d.weeks[1]:g} weeks × {ENGINEERS_FOR_MIGRATION} engineers "
                        f"({d.weeks[2]}): one-off ¥{one_off:,.0f} at the midpoint, ¥{mig:,.0f} of it charged here "
                        f"(spread over {req.migration_months:g} months)")
    if offer.whole_machine_only or offer.cards > 1:
        idle = int(math.ceil(gpus / offer.cards) * offer.cards) - gpus
        if idle:
            warnings.append(f"offer rents {offer.cards}-card machines: {idle} cards idle")
    if is_international(offer.region):
        warnings.append(f"priced from an international offer ({offer.provider}, {offer.region})"
                        + ("" if d.acc.domestic else "; check export-control rules for this device"))
    if offer.kind != "listing":
        warnings.append(f"priced from {'an' if offer.kind[0] in 'aeiou' else 'a'} {offer.kind} figure ({offer.source}), "
                        "not a rentable listing")
    if gpus > d.acc.max_cards_per_node and training:
        net = offer.inter_node_network
        warnings.append(f"{math.ceil(gpus / d.acc.max_cards_per_node)} nodes over {net}"
                        + (f" ({offer.inter_node_gbit_per_s.value:g} Gbit/s)" if offer.inter_node_gbit_per_s else ""))
    unit_h = UNIT_HOURS[offer.billing_unit]
    if unit_h > 1 and grid["hours"][i] < unit_h * 0.5:
        warnings.append(f"billed per {offer.billing_unit}: pays for {unit_h:,.0f} h to use {grid['hours'][i]:,.1f} h")
    prec = _precision_of(grid, i, req)
    if not training:
        warnings.append("decode is memory-bandwidth-bound: bandwidth decides tokens/s")
        if prec in ("int4", "int8", "fp8"):
            warnings.append(f"{prec} quantization: check accuracy against bf16 (suanli bench run)")
    mem_gib = grid["mem"][i] / GiB
    usable_gib = grid["usable"][i] / GiB
    fw = d.framework.name if d.framework else "?"
    if training:
        reason = (f"{req.objective}: {gpus}× {d.acc.name} with {fw} trains it in {fmt_hours(float(grid['hours'][i]))} "
                  f"(set-up {fmt_hours(float(grid['setup_h'][i]))} included) for ¥{cost:,.0f} "
                  f"({offer.billing_unit}ly billing), {mem_gib:,.1f} of {usable_gib:,.1f} usable GiB per card")
    else:
        reason = (f"{req.objective}: {int(grid['replicas'][i])} × {int(grid['tp'][i])}-card {d.engine} replicas on "
                  f"{d.acc.name} serve it for {fmt_hours(float(grid['hours'][i]))}: ¥{cost:,.0f} "
                  f"({offer.billing_unit}ly billing), TTFT {grid['ttft'][i] * 1000:,.0f} ms, TPOT "
                  f"{grid['tpot'][i] * 1000:,.1f} ms, {mem_gib:,.1f} of {usable_gib:,.1f} usable GiB per card")
    if mig > 0:
        reason += f"; + ¥{mig:,.0f} migration share"
    return Plan(
        rank=rank,
        device=d.acc.id,
        device_name=d.acc.name,
        framework=d.framework.id if d.framework else "",
        engine=d.engine,
        gpus=gpus,
        tp=int(grid["tp"][i]),
        pp=int(grid["pp"][i]),
        dp=int(grid["dp"][i]),
        ep=int(grid["ep"][i]),
        zero=int(grid["zero"][i]) if training else None,
        recompute=RECOMPUTE[int(grid["rec"][i])] if training else None,
        precision=prec,
        micro_batch=int(grid["b"][i]),
        grad_accum=int(grid["ga"][i]) if training else None,
        replicas=None if training else int(grid["replicas"][i]),
        ttft_s=None if training else float(grid["ttft"][i]),
        tpot_s=None if training else float(grid["tpot"][i]),
        memory_per_gpu_bytes=float(grid["mem"][i]),
        memory_needed_bytes=float(grid["mem"][i]),
        memory_usable_bytes=float(grid["usable"][i]),
        memory_capacity_bytes=float(grid["cap"][i]),
        tokens_per_s=float(grid["tok_s"][i]),
        compute_hours=float(grid["compute_h"][i]),
        setup_hours=float(grid["setup_h"][i]),
        hours=float(grid["hours"][i]),
        cost_cny=cost,
        cost_cny_max=cost_max,
        offer=offer.id,
        offer_kind=offer.kind,
        billing_unit=offer.billing_unit,
        migration_weeks=(d.weeks[0], d.weeks[1]),
        migration_one_off_cny=one_off,
        migration_cost_cny=mig,
        total_cost_cny=total,
        scaling_efficiency=scaling,
        reason=reason,
        warnings=warnings,
    )


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


def _why_not(devs: list[_Device], grid: dict[str, np.ndarray], sel: np.ndarray, keep: np.ndarray,
             cost: np.ndarray, calendar_h: np.ndarray, req: PlanRequest, chosen: set[str]) -> list[dict[str, str]]:
    out = []
    fits_dev = set(grid["dev"][sel].tolist())
    for i, d in enumerate(devs):
        if d.acc.id in chosen:
            continue
        if d.excluded:
            reason = d.excluded
        elif i not in fits_dev:
            mask = grid["dev"] == i
            if mask.any():
                j = int(np.argmin(np.where(mask, grid["mem"] - grid["usable"], np.inf)))
                reason = (f"does not fit with {d.framework.name if d.framework else '?'}: the leanest configuration up "
                          f"to {req.max_gpus} cards needs {grid['mem'][j] / GiB:,.1f} GiB per card, "
                          f"{grid['usable'][j] / GiB:,.1f} GiB usable of {d.capacity / GiB:,.0f}")
            else:
                reason = "no layout of its framework can run on the offers found (multi-node needs node offers)"
        else:
            mine = grid["dev"][sel] == i
            if not (mine & keep).any():
                c = cost[mine]
                h = calendar_h[mine]
                parts = []
                if not np.isfinite(c).any():
                    parts.append("no usable offer can hold this job (multi-node jobs need node or cluster offers "
                                 "with an inter-node network; order limits apply)")
                if req.budget_cny is not None and np.isfinite(c).any():
                    parts.append(f"cheapest fit costs ¥{np.nanmin(c):,.0f} (budget ¥{req.budget_cny:,.0f})")
                if req.deadline_hours is not None and req.task != "inference":
                    parts.append(f"fastest fit takes {fmt_hours(float(h.min()))} incl. set-up and migration "
                                 f"(deadline {fmt_hours(req.deadline_hours)})")
                reason = "; ".join(parts) or "no priced configuration"
            else:
                reason = "ranked below the plans shown"
        out.append({"device": d.acc.id, "reason": reason})
    order = {"ranked below the plans shown": 0}
    out.sort(key=lambda r: order.get(r["reason"], 1))
    return out


def _relax(grid: dict[str, np.ndarray], sel: np.ndarray, cost: np.ndarray, calendar_h: np.ndarray,
           req: PlanRequest) -> list[str]:
    """When nothing qualifies: which constraint to relax and by how much."""
    tips = []
    finite = np.isfinite(cost)
    if sel.size == 0 or not finite.any():
        lighter = {"full": "lora or qlora", "pretrain": "lora or qlora", "lora": "qlora"}.get(req.task)
        tips.append(f"nothing fits in memory (or can be rented) with up to {req.max_gpus} cards among the allowed "
                    "devices: raise --max-gpus" + (f", use --task {lighter}" if lighter else "")
                    + ", allow more devices, or --region any / --offer-kinds all")
        return tips
    deadline_ok = req.deadline_hours is None or req.task == "inference"
    if req.budget_cny is not None:
        ok_time = finite & (True if deadline_ok else (calendar_h <= req.deadline_hours))
        if np.any(ok_time):
            need = cost[ok_time].min()
            if need > req.budget_cny:
                tips.append(f"budget: the cheapest plan that meets the other constraints costs ¥{need:,.0f}; "
                            f"raise --budget by ¥{need - req.budget_cny:,.0f}")
    if not deadline_ok:
        ok_cost = finite & ((cost <= req.budget_cny) if req.budget_cny else True)
        if np.any(ok_cost):
            need_h = calendar_h[ok_cost].min()
            if need_h > (req.deadline_hours or 0):
                tips.append(f"deadline: the fastest plan within the other constraints takes {fmt_hours(need_h)} "
                            f"(set-up and migration included); extend --deadline-hours by "
                            f"{need_h - (req.deadline_hours or 0):,.3g} h")
    if not tips:
        raise PlanError("no plan satisfies the constraints")
    return tips
