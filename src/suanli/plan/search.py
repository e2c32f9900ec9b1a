"""The planner: search device × cards × parallelism × precision × micro-batch, drop what does not fit or
breaks a constraint, rank the rest and explain the ranking.

Training is searched as one numpy grid (every combination evaluated at once, the same formulas as
`suanli.estimate.memory` / `suanli.estimate.speed`, which `tests/unit/plan` checks case by case); serving
loops over the much smaller inference grid with the scalar estimators."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from suanli.catalog import lookup
from suanli.catalog.schema import Accelerator, Catalog, ModelArch, SoftwareStack
from suanli.errors import EstimateError, InputError, PlanError
from suanli.estimate import arch
from suanli.estimate.efficiency import efficiency
from suanli.estimate.memory import estimate_memory, training_peak, weights_bytes
from suanli.estimate.params import param_count
from suanli.estimate.precision import activation_bytes, peak_flops_per_s, weight_bytes_per_param
from suanli.estimate.scaling import OVERLAP_FRACTION_OF_BACKWARD, link_for
from suanli.estimate.speed import inference_speed, matmul_params, training_flops_per_token
from suanli.estimate.workload import make_workload
from suanli.plan.cost import UNIT_HOURS
from suanli.plan.request import PlanRequest
from suanli.units import GB, HOURS_PER_MONTH, HOURS_PER_WEEK, GiB, fmt_hours

__all__ = ["Plan", "PlanResult", "plan", "migration_weeks"]

GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
TP_SIZES = (1, 2, 4, 8)
PP_SIZES = (1, 2, 4, 8)
ZERO_STAGES = (0, 1, 2, 3)
RECOMPUTE = ("none", "selective", "full")
MICRO_BATCHES = (1, 2, 4, 8, 16, 32)
SERVE_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
SERVE_PRECISIONS = ("bf16", "fp8", "int8", "int4")
ENGINEERS_FOR_MIGRATION = 2  # seed-000 §4's example: "2人周×2人"


class Plan(BaseModel):
    model_config = ConfigDict(frozen=True)

    rank: int
    device: str
    device_name: str
    gpus: int
    tp: int
    pp: int
    dp: int
    zero: int | None
    recompute: str | None
    precision: str
    micro_batch: int
    grad_accum: int | None
    replicas: int | None = None
    memory_per_gpu_bytes: float
    memory_capacity_bytes: float
    tokens_per_s: float
    hours: float
    cost_cny: float
    cost_cny_max: float
    offer: str
    billing_unit: str
    migration_weeks: tuple[float, float]
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


@dataclass
class _Device:
    acc: Accelerator
    stack: SoftwareStack
    capacity: float
    runtime: float
    peak: float
    eff: float
    intra_bw: float
    intra_lat: float
    inter_bw: float
    inter_lat: float
    weeks: tuple[float, float, str]
    excluded: str | None = None
    notes: list[str] = field(default_factory=list)


def _devices(cat: Catalog, m: ModelArch, req: PlanRequest, precision: str) -> list[_Device]:
    out: list[_Device] = []
    stacks = {s.id: s for s in cat.stacks}
    wanted = {lookup.accelerator(cat, d).id for d in req.devices}
    vendors = sorted({a.vendor for a in cat.accelerators})
    for v in req.vendors:
        if v not in vendors:
            raise InputError("vendor", f"{v!r} is not one of {', '.join(vendors)}")
    for st in req.stacks:
        if st not in stacks:
            raise InputError("stack", f"{st!r} is not one of {', '.join(sorted(stacks))}")
    for acc in cat.accelerators:
        stack = stacks[acc.stack]
        weeks = migration_weeks(cat, stack, m)
        reason = None
        if wanted and acc.id not in wanted:
            continue
        if req.domestic_only and not acc.domestic:
            reason = "not domestic (--domestic-only)"
        elif req.vendors and acc.vendor not in req.vendors:
            reason = f"vendor {acc.vendor} not allowed"
        elif req.stacks and acc.stack not in req.stacks:
            reason = f"stack {acc.stack} not allowed"
        elif not req.allow_migration and weeks[1] > 0:
            reason = f"needs {weeks[0]:g}–{weeks[1]:g} weeks of migration ({weeks[2]}), not allowed"
        elif acc.specs.memory_gib is None:
            reason = "no published memory size"
        elif acc.specs.memory_bandwidth_gb_per_s is None:
            reason = "no published memory bandwidth"
        try:
            peak, _ = peak_flops_per_s(acc, precision)
        except EstimateError:
            peak, reason = 0.0, reason or f"no published dense {precision} peak"
        try:
            eff = efficiency(cat, acc, "train_mfu" if req.task != "inference" else "matmul", precision).value
            intra = link_for(cat, acc, "intra-node")
            inter = link_for(cat, acc, "inter-node")
            ibw, ilat = intra.bus_gb_per_s.value * GB, intra.latency_us.value * 1e-6
            xbw, xlat = inter.bus_gb_per_s.value * GB, inter.latency_us.value * 1e-6
        except EstimateError as e:
            eff, ibw, ilat, xbw, xlat = 0.0, 1.0, 0.0, 1.0, 0.0
            reason = reason or str(e)
        if not any(o.device == acc.id for o in cat.offers):
            reason = reason or "no rental price in the catalog"
        out.append(
            _Device(
                acc=acc,
                stack=stack,
                capacity=(acc.specs.memory_gib.value if acc.specs.memory_gib else 0.0) * GiB,
                runtime=(stack.runtime_overhead_gib.value if stack.runtime_overhead_gib else 0.0) * GiB,
                peak=peak,
                eff=eff,
                intra_bw=ibw,
                intra_lat=ilat,
                inter_bw=xbw,
                inter_lat=xlat,
                weeks=weeks,
                excluded=reason,
            )
        )
    return out


@dataclass
class _TrainTerms:
    """Model-level quantities for one task/precision (unsharded), from the scalar estimators."""

    weights: float
    grads: float
    grads_head: float
    optimizer: float
    act_per_token_layer: dict[str, float]
    act_full_extra_per_token: float
    logits_per_token: float
    hw_flops_per_token: dict[str, float]
    model_flops_per_token: float
    grad_comm_bytes: float
    weight_comm_bytes: float
    layers: int
    hidden_act_bytes: float


def _train_terms(m: ModelArch, req: PlanRequest, precision: str) -> _TrainTerms:
    w = make_workload(task=req.task, precision=precision, seq=req.seq, batch=1)
    mem = estimate_memory(m, w).breakdown_bytes
    act_b = activation_bytes(precision)
    per_tok = {
        r: arch.activation_bytes_per_token_per_layer(m, act_b, r, True, req.seq) for r in RECOMPUTE
    }
    attn = arch.attention_flops_per_token(m, req.seq)
    n_mm = matmul_params(m)
    base = 4 * n_mm + 3 * attn if req.task in ("lora", "qlora") else training_flops_per_token(m, req.seq)
    hw = {"none": base, "selective": base + attn, "full": base + 2 * n_mm + attn}
    lora = req.task in ("lora", "qlora")
    p = param_count(m)
    trainable = arch.lora_params(m, 16) if lora else p.total
    grad_b = 4.0 if lora else weight_bytes_per_param(precision)
    return _TrainTerms(
        weights=mem["weights"],
        grads=trainable * grad_b,
        grads_head=0.0 if lora else (p.lm_head or p.embedding) * grad_b,
        optimizer=mem["optimizer"],
        act_per_token_layer=per_tok,
        act_full_extra_per_token=per_tok["none"],
        logits_per_token=(m.vocab_size or 0) * (act_b + 8.0),
        hw_flops_per_token=hw,
        model_flops_per_token=training_flops_per_token(m, req.seq),
        grad_comm_bytes=trainable * (4.0 if lora else act_b),
        weight_comm_bytes=weights_bytes(m, "nf4" if req.task == "qlora" else precision),
        layers=m.num_layers or 0,
        hidden_act_bytes=(m.hidden_size or 0) * act_b,
    )


def is_international(region: str | None) -> bool:
    """Offers outside mainland-China platforms (the catalog marks them `international` or a cloud region)."""
    return region is not None and not region.lower().startswith(("cn", "china"))


def _offer_table(cat: Catalog, devs: list[_Device], req: PlanRequest) -> list[list[tuple[float, float, float, int, float, str, str]]]:
    """Per device: (price, price_max, unit_hours, min_units, cards, offer id, unit) for allowed billing/region."""
    table: list[list[tuple[float, float, float, int, float, str, str]]] = []
    for d in devs:
        rows: list[tuple[float, float, float, int, float, str, str]] = []
        for o in cat.offers:
            if o.device != d.acc.id or (req.billing != "any" and o.billing_unit != req.billing):
                continue
            if req.region != "any" and is_international(o.region) != (req.region == "international"):
                continue
            pmax = o.price_cny_max.value if o.price_cny_max else o.price_cny.value
            rows.append((o.price_cny.value, pmax, UNIT_HOURS[o.billing_unit], o.min_units, float(o.cards), o.id,
                         str(o.billing_unit)))
        table.append(rows)
    return table


def _cost_arrays(
    offers: list[list[tuple[float, float, float, int, float, str, str]]],
    dev_idx: np.ndarray, gpus: np.ndarray, hours: np.ndarray, subsidy: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cheapest offer per configuration, vectorized: cost, cost at the range's top, offer index."""
    n = dev_idx.shape[0]
    best = np.full(n, np.inf)
    best_max = np.full(n, np.inf)
    best_o = np.full(n, -1)
    max_offers = max((len(r) for r in offers), default=0)
    for k in range(max_offers):
        has = np.array([len(r) > k for r in offers])[dev_idx]
        if not has.any():
            continue
        get = lambda j: np.array([r[k][j] if len(r) > k else np.nan for r in offers], dtype=float)[dev_idx]  # noqa: E731
        price, pmax, unit_h, min_units, cards = get(0), get(1), get(2), get(3), get(4)
        units = np.maximum(min_units, np.ceil(hours / unit_h - 1e-9))
        inst = np.ceil(gpus / cards)
        c = price * units * inst * (1 - subsidy)
        cm = pmax * units * inst * (1 - subsidy)
        c = np.where(has, c, np.inf)
        better = c < best
        best = np.where(better, c, best)
        best_max = np.where(better, cm, best_max)
        best_o = np.where(better, k, best_o)
    return best, best_max, best_o


def _train_grid(cat: Catalog, m: ModelArch, req: PlanRequest, devs: list[_Device], precision: str) -> dict[str, np.ndarray]:
    t = _train_terms(m, req, precision)
    D = len(devs)
    gpu_counts = [g for g in GPU_COUNTS if g <= req.max_gpus]
    shape = (D, len(gpu_counts), len(TP_SIZES), len(PP_SIZES), len(ZERO_STAGES), len(RECOMPUTE), len(MICRO_BATCHES))
    di, gi, ti, pi, zi, ri, bi = np.indices(shape).reshape(len(shape), -1)
    g = np.array(gpu_counts, dtype=float)[gi]
    tp = np.array(TP_SIZES, dtype=float)[ti]
    pp = np.array(PP_SIZES, dtype=float)[pi]
    zero = np.array(ZERO_STAGES)[zi]
    b = np.array(MICRO_BATCHES, dtype=float)[bi]
    per_node = np.array([d.acc.max_cards_per_node for d in devs], dtype=float)[di]
    ok = np.array([d.excluded is None for d in devs])[di]
    valid = (
        ok
        & (np.mod(g, tp * pp) == 0)
        & (tp <= per_node)
        & ((g <= per_node) | (np.mod(g, per_node) == 0))
        & (pp <= t.layers)
    )
    valid &= (zero == 0) | (g / (tp * pp) > 1)
    valid &= b * g / (tp * pp) <= max(req.global_batch, 1)  # a step holds at most the global batch
    # prune: evaluate only the valid layouts (is_valid pruning, as vidur's config search does)
    n_grid = di.shape[0]
    keep = np.nonzero(valid)[0]
    di, ri, g, tp, pp, zero, b, per_node = di[keep], ri[keep], g[keep], tp[keep], pp[keep], zero[keep], b[keep], per_node[keep]
    valid = valid[keep]
    dp = g / (tp * pp)
    # memory per device (same sharding as estimate.memory._training)
    shard = tp * pp
    weights = t.weights / shard / np.where(zero >= 3, dp, 1)
    grads_full = t.grads / shard / np.where(zero >= 2, dp, 1)
    grads_head = t.grads_head / shard / np.where(zero >= 2, dp, 1)
    opt = t.optimizer / shard / np.where(zero >= 1, dp, 1)
    ga = np.ceil(req.global_batch / (b * dp))
    in_flight = np.where(pp > 1, np.minimum(pp, ga), 1)
    act_tok = np.array([t.act_per_token_layer[r] for r in RECOMPUTE])[ri]
    acts = b * req.seq * act_tok * (t.layers / pp) * in_flight / tp
    acts += np.where(ri == RECOMPUTE.index("full"), b * req.seq * t.act_full_extra_per_token / tp, 0.0)
    logits = b * req.seq * t.logits_per_token / tp
    grads, acts, logits, _ = training_peak(grads_full, grads_head, acts, logits)
    runtime = np.array([d.runtime for d in devs])[di]
    mem = weights + grads + opt + acts + logits + runtime
    cap = np.array([d.capacity for d in devs])[di]
    fits = mem <= cap
    # speed (same terms as estimate.speed.training_speed)
    peak = np.array([d.peak for d in devs])[di]
    eff = np.array([d.eff for d in devs])[di]
    hw = np.array([t.hw_flops_per_token[r] for r in RECOMPUTE])[ri]
    micro_tokens = b * req.seq
    compute_s = micro_tokens * ga * hw / shard / np.maximum(peak * eff, 1.0)
    multi_node = g > per_node
    bw = np.where(multi_node, np.minimum(np.array([d.intra_bw for d in devs])[di], np.array([d.inter_bw for d in devs])[di]),
                  np.array([d.intra_bw for d in devs])[di])
    lat = np.array([d.intra_lat for d in devs])[di] + np.where(multi_node, np.array([d.inter_lat for d in devs])[di], 0.0)
    intra_bw = np.array([d.intra_bw for d in devs])[di]
    intra_lat = np.array([d.intra_lat for d in devs])[di]
    gbytes = t.grad_comm_bytes / shard
    wbytes = t.weight_comm_bytes / shard
    ar = np.where(dp > 1, lat + 2 * (dp - 1) / dp * gbytes / bw, 0.0)
    ag_w = np.where(dp > 1, lat + (dp - 1) / dp * wbytes / bw, 0.0)
    rs_g = np.where(dp > 1, lat + (dp - 1) / dp * gbytes / bw, 0.0)
    z3 = zero >= 3
    # same terms as estimate.speed.training_speed: ZeRO-3 all-gathers weights twice per micro-batch,
    # prefetched over all compute; otherwise the gradient all-reduce overlaps the last backward pass
    dp_s = np.where(z3, ga * 2 * ag_w + rs_g, ar)
    hideable = np.where(z3, compute_s, compute_s / ga * 2 / 3)
    dp_exposed = np.maximum(0.0, dp_s - OVERLAP_FRACTION_OF_BACKWARD * hideable)
    act_bytes = micro_tokens * t.hidden_act_bytes
    tp_ar = np.where(tp > 1, intra_lat + 2 * (tp - 1) / tp * act_bytes / intra_bw, 0.0)
    tp_s = 4 * (t.layers / pp) * ga * tp_ar
    bubble = np.where(pp > 1, compute_s * (pp - 1) / ga, 0.0)
    step = compute_s + dp_exposed + tp_s + bubble
    tokens_per_step = micro_tokens * ga * dp
    tok_s = tokens_per_step / step
    hours = float(req.tokens or 0) / tok_s / 3600
    return {
        "dev": di, "gpus": g, "tp": tp, "pp": pp, "dp": dp, "zero": zero, "rec": ri, "b": b, "ga": ga,
        "mem": mem, "cap": cap, "valid": valid, "fits": fits & valid, "tok_s": tok_s, "hours": hours,
        "scaling": compute_s / step, "n": np.array(n_grid), "n_valid": np.array(keep.shape[0]),
    }


def _serve_grid(cat: Catalog, m: ModelArch, req: PlanRequest, devs: list[_Device]) -> dict[str, np.ndarray]:
    rows: dict[str, list[float]] = {k: [] for k in (
        "dev", "gpus", "tp", "pp", "dp", "zero", "rec", "b", "ga", "mem", "cap", "valid", "fits", "tok_s",
        "hours", "scaling", "prec", "replicas", "ttft", "tpot")}
    hours_serve = req.hours or HOURS_PER_MONTH
    need_tok_s = (req.requests_per_s or 0) * req.output
    evaluated = 0
    for i, d in enumerate(devs):
        if d.excluded is not None:
            continue
        stack = d.stack
        for prec in SERVE_PRECISIONS:
            for tp in TP_SIZES:
                if tp > d.acc.max_cards_per_node or tp > req.max_gpus:
                    continue
                for b in SERVE_BATCHES:
                    evaluated += 1
                    w = make_workload(task="inference", precision=prec, batch=b, input=req.input,
                                      output=req.output, tp=tp, gpus=tp, engine="vllm")
                    mem = estimate_memory(m, w, d.acc, stack)
                    if not mem.fits:
                        break  # larger batches need more memory still
                    try:
                        s = inference_speed(cat, m, d.acc, w)
                    except EstimateError:
                        break
                    if req.tpot_s is not None and s.tpot_s > req.tpot_s:
                        break
                    if req.ttft_s is not None and s.ttft_s > req.ttft_s:
                        continue
                    if need_tok_s > 0:
                        replicas = math.ceil(need_tok_s / s.output_tokens_per_s)
                        hours = hours_serve
                    else:
                        replicas = 1
                        hours = float(req.tokens or 0) / s.output_tokens_per_s / 3600
                    gpus = replicas * tp
                    if gpus > req.max_gpus:
                        continue
                    used = mem.per_gpu_bytes - mem.breakdown_bytes.get("kv_cache_pool_unused", 0.0)
                    for k, v in (("dev", i), ("gpus", gpus), ("tp", tp), ("pp", 1), ("dp", replicas), ("zero", 0),
                                 ("rec", 0), ("b", b), ("ga", 1), ("mem", used), ("cap", mem.capacity_bytes or 0),
                                 ("valid", 1), ("fits", 1), ("tok_s", s.output_tokens_per_s * replicas), ("hours", hours),
                                 ("scaling", (s.tpot_s - s.tp_comm_per_token_s) / s.tpot_s),
                                 ("prec", SERVE_PRECISIONS.index(prec)), ("replicas", replicas),
                                 ("ttft", s.ttft_s), ("tpot", s.tpot_s)):
                        rows[k].append(float(v))
    out = {k: np.array(v) for k, v in rows.items()}
    out["dev"] = out["dev"].astype(int)
    out["valid"] = out["valid"].astype(bool)
    out["fits"] = out["fits"].astype(bool)
    out["n"] = np.array(evaluated)
    return out


def plan(cat: Catalog, m: ModelArch, req: PlanRequest) -> PlanResult:
    """Ranked plans for `req` on model `m`, best first, with a Pareto front of cost against time."""
    t0 = time.perf_counter()
    training = req.task != "inference"
    if training:
        arch.require_llm(m, f"task {req.task}")
    precision = "nf4" if req.task == "qlora" else "bf16"
    devs = _devices(cat, m, req, "bf16" if req.task == "qlora" else precision)
    grid = _train_grid(cat, m, req, devs, precision) if training else _serve_grid(cat, m, req, devs)
    offers = _offer_table(cat, devs, req)
    sel = np.nonzero(grid["fits"])[0]
    subsidy = np.array([req.subsidy if d.acc.domestic else 0.0 for d in devs])
    cost, cost_max, oi = _cost_arrays(offers, grid["dev"][sel], grid["gpus"][sel], grid["hours"][sel], subsidy[grid["dev"][sel]])
    wk = np.array([(d.weeks[0] + d.weeks[1]) / 2 for d in devs])[grid["dev"][sel]] if devs else np.zeros(0)
    mig_cost = wk * ENGINEERS_FOR_MIGRATION * req.engineer_cny_per_week
    total = cost + mig_cost
    calendar_h = grid["hours"][sel] + wk * HOURS_PER_WEEK
    keep = np.isfinite(cost)
    if req.deadline_hours is not None:
        keep &= calendar_h <= req.deadline_hours
    if req.budget_cny is not None:
        keep &= cost <= req.budget_cny
    k = sel[keep]
    cost_k, cost_max_k, oi_k, total_k, mig_k = cost[keep], cost_max[keep], oi[keep], total[keep], mig_cost[keep]
    hours_k = grid["hours"][k]
    if req.objective in ("cheapest",):
        score = total_k + hours_k * 1e-9
    elif req.objective in ("fastest", "fastest-within-budget"):
        score = hours_k + total_k * 1e-12
    else:  # best-value: each axis relative to its best
        score = total_k / max(total_k.min(initial=np.inf), 1e-9) + hours_k / max(hours_k.min(initial=np.inf), 1e-9) if k.size else total_k
    order = np.argsort(score, kind="stable")
    plans: list[Plan] = []
    seen: set[str] = set()
    for j in order:
        idx = k[j]
        d = devs[int(grid["dev"][idx])]
        if d.acc.id in seen:
            continue
        seen.add(d.acc.id)
        plans.append(_make_plan(len(plans) + 1, d, grid, idx, float(cost_k[j]), float(cost_max_k[j]),
                                offers[int(grid["dev"][idx])][int(oi_k[j])], float(mig_k[j]), float(total_k[j]),
                                req, m, precision, training, cat))
        if len(plans) >= req.top:
            break
    pareto = _pareto(devs, grid, k, cost_k, hours_k)
    why = _why_not(devs, grid, sel, keep, cost, calendar_h, req, {p.device for p in plans})
    relax = [] if plans else _relax(devs, grid, sel, cost, calendar_h, req)
    return PlanResult(
        request=req,
        model_id=m.id,
        plans=plans,
        pareto=pareto,
        why_not=why,
        configurations_evaluated=int(grid["n"]),
        search_seconds=time.perf_counter() - t0,
        relax=relax,
    )


def _make_plan(rank: int, d: _Device, grid: dict[str, np.ndarray], i: int, cost: float, cost_max: float,
               offer: tuple[float, float, float, int, float, str, str], mig: float, total: float,
               req: PlanRequest, m: ModelArch, precision: str, training: bool, cat: Catalog) -> Plan:
    gpus = int(grid["gpus"][i])
    warnings: list[str] = []
    if gpus > 1 and d.acc.interconnect in ("none", "pcie") and grid["scaling"][i] < 0.95:
        warnings.append(f"no NVLink-class interconnect ({d.acc.interconnect}): multi-card efficiency "
                        f"{grid['scaling'][i]:.0%} by the communication model")
    if d.weeks[1] > 0:
        warnings.append(f"migration {d.weeks[0]:g}–{d.weeks[1]:g} weeks × {ENGINEERS_FOR_MIGRATION} engineers "
                        f"({d.weeks[2]}), costed at the midpoint")
    if offer[4] > 1 and gpus % offer[4]:
        warnings.append(f"offer rents {int(offer[4])}-card machines: {int(math.ceil(gpus / offer[4]) * offer[4]) - gpus} cards idle")
    offer_row = next((o for o in cat.offers if o.id == offer[5]), None)
    if offer_row is not None and is_international(offer_row.region):
        warnings.append(f"priced from an international offer ({offer_row.provider}, {offer_row.region}); "
                        "pass --region cn for Chinese platforms only" + ("" if d.acc.domestic else
                        "; check export-control rules for this device"))
    if gpus > d.acc.max_cards_per_node and offer[4] < d.acc.max_cards_per_node:
        warnings.append(f"{gpus} cards priced as {math.ceil(gpus / offer[4])} separate {int(offer[4])}-card rentals: "
                        "a multi-node cluster with an inter-node fabric usually costs more")
    unit_h = offer[2]
    if unit_h > 1 and grid["hours"][i] < unit_h * 0.5:
        warnings.append(f"billed per {offer[6]}: pays for {unit_h:,.0f} h to use {grid['hours'][i]:,.1f} h")
    if not training:
        warnings.append("decode is memory-bandwidth-bound: bandwidth decides tokens/s")
    prec = SERVE_PRECISIONS[int(grid["prec"][i])] if not training else precision
    if prec in ("int4", "int8", "fp8") and not training:
        warnings.append(f"{prec} quantization: check accuracy against bf16 (suanli bench run)")
    mem_gib = grid["mem"][i] / GiB
    cap_gib = grid["cap"][i] / GiB
    what = ("serve" if not training else "train")
    reason = (f"{req.objective}: {gpus}× {d.acc.name} {what}s it in {fmt_hours(float(grid['hours'][i]))} for "
              f"¥{cost:,.0f} ({offer[6]}ly billing), {mem_gib:,.1f} of {cap_gib:,.0f} GiB per card")
    if mig > 0:
        reason += f"; + ¥{mig:,.0f} migration"
    rec = RECOMPUTE[int(grid["rec"][i])] if training else None
    return Plan(
        rank=rank,
        device=d.acc.id,
        device_name=d.acc.name,
        gpus=gpus,
        tp=int(grid["tp"][i]),
        pp=int(grid["pp"][i]),
        dp=int(grid["dp"][i]),
        zero=int(grid["zero"][i]) if training else None,
        recompute=rec,
        precision=prec,
        micro_batch=int(grid["b"][i]),
        grad_accum=int(grid["ga"][i]) if training else None,
        replicas=None if training else int(grid["replicas"][i]),
        memory_per_gpu_bytes=float(grid["mem"][i]),
        memory_capacity_bytes=float(grid["cap"][i]),
        tokens_per_s=float(grid["tok_s"][i]),
        hours=float(grid["hours"][i]),
        cost_cny=cost,
        cost_cny_max=cost_max,
        offer=offer[5],
        billing_unit=offer[6],
        migration_weeks=(d.weeks[0], d.weeks[1]),
        migration_cost_cny=mig,
        total_cost_cny=total,
        scaling_efficiency=float(grid["scaling"][i]),
        reason=reason,
        warnings=warnings,
    )


def _pareto(devs: list[_Device], grid: dict[str, np.ndarray], k: np.ndarray, cost: np.ndarray, hours: np.ndarray) -> list[dict[str, Any]]:
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
        })
    return front[:50]


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
            mask = (grid["dev"] == i) & grid["valid"]
            need = grid["mem"][mask].min() / GiB if mask.any() else float("nan")
            reason = (f"does not fit: the leanest configuration up to {req.max_gpus} cards needs "
                      f"{need:,.1f} GiB per card, the card has {d.capacity / GiB:,.0f} GiB")
        else:
            mine = grid["dev"][sel] == i
            if not (mine & keep).any():
                c = cost[mine]
                h = calendar_h[mine]
                parts = []
                if req.budget_cny is not None and np.isfinite(c).any():
                    parts.append(f"cheapest fit costs ¥{np.nanmin(c):,.0f} (budget ¥{req.budget_cny:,.0f})")
                if req.deadline_hours is not None:
                    parts.append(f"fastest fit takes {fmt_hours(float(h.min()))} incl. migration "
                                 f"(deadline {fmt_hours(req.deadline_hours)})")
                reason = "; ".join(parts) or "no priced configuration"
            else:
                reason = "ranked below the plans shown"
        out.append({"device": d.acc.id, "reason": reason})
    order = {"ranked below the plans shown": 0}
    out.sort(key=lambda r: order.get(r["reason"], 1))
    return out


def _relax(devs: list[_Device], grid: dict[str, np.ndarray], sel: np.ndarray, cost: np.ndarray,
           calendar_h: np.ndarray, req: PlanRequest) -> list[str]:
    """When nothing qualifies: which constraint to relax and by how much."""
    tips = []
    finite = np.isfinite(cost)
    if sel.size == 0 or not finite.any():
        lighter = {"full": "lora or qlora", "pretrain": "lora or qlora", "lora": "qlora"}.get(req.task)
        tips.append(f"nothing fits in memory with up to {req.max_gpus} cards among the allowed devices: "
                    "raise --max-gpus" + (f", use --task {lighter}" if lighter else "") + ", or allow more devices")
        return tips
    if req.budget_cny is not None:
        ok_time = finite & ((calendar_h <= req.deadline_hours) if req.deadline_hours else True)
        if ok_time.any():
            need = cost[ok_time].min()
            if need > req.budget_cny:
                tips.append(f"budget: the cheapest plan that meets the other constraints costs ¥{need:,.0f}; "
                            f"raise --budget by ¥{need - req.budget_cny:,.0f}")
    if req.deadline_hours is not None:
        ok_cost = finite & ((cost <= req.budget_cny) if req.budget_cny else True)
        if ok_cost.any():
            need_h = calendar_h[ok_cost].min()
            if need_h > req.deadline_hours:
                tips.append(f"deadline: the fastest plan within the other constraints takes {fmt_hours(need_h)} "
                            f"(migration included); extend --deadline-hours by {need_h - req.deadline_hours:,.3g} h")
    if not tips:
        raise PlanError("no plan satisfies the constraints")
    return tips
