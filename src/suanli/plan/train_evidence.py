"""What a training plan's speed takes on trust, said beside it (buyer review 2026-12-01, task L).

* Scaling across nodes on an offer that publishes no inter-node bandwidth: the step kernel takes the catalog's link
  row for the device (links.yaml, keyed by device or intra-node interconnect, never by the offer's fabric), so no
  default is cited for that fabric: the plan's scaling is marked "assumed (bandwidth unpublished)", naming the figure.
  So is a multi-card plan on a device whose bus bandwidth within a node is unpublished (its links.yaml row `assumed`:
  the RTX 3090's host-staged figure), with a warning naming the row.
* Communication the kernel hides entirely (tensor-parallel overlap, the gradient reduce in backward, interleaved
  pipeline sends): the plan says so with what the same kernel exposes without any overlap.
* A plan whose implied MFU is above the device's published end-to-end MFU (efficiency.yaml `train_mfu_end_to_end`):
  a warning with both numbers and the source, not a cap.
* The known training-throughput error: hours (and cost, and the units each is billed as) corrected by the pooled signed error (`estimate.pooled_bias`:
  for an MoE model its stack's MoE cases, shrunk toward the stack's figure, where it has any), beside the estimate; a plan whose corrected figure breaks
  the deadline or budget is demoted as a serving plan whose TPOT the bias breaks is.
"""

from __future__ import annotations

import math
from typing import Any

from suanli.catalog.schema import Accelerator, Catalog, EfficiencyFactor, ModelArch, Offer
from suanli.estimate.estimate import LITTLE_EVIDENCE_CASES, ErrorBand, PooledBias, moe_stack_band, pooled_bias
from suanli.estimate.scaling import link_for
from suanli.estimate.speed import training_step_of
from suanli.estimate.workload import Workload
from suanli.i18n import Message, duration, render
from suanli.units import HOURS_PER_WEEK

__all__ = ["SCALING_ASSUMED", "assumed_efficiencies", "comm_figures", "framework_mfu_assumptions", "inter_node_basis",
           "intra_node_basis", "plan_training_notes", "published_mfu", "training_bias"]

SCALING_ASSUMED = "assumed (bandwidth unpublished)"
_GROUP = "training-throughput"


def inter_node_basis(cat: Catalog, acc: Accelerator, gpus: int, inter_node_gbit_per_s: float | None
                     ) -> dict[str, Any] | None:
    """A multi-node plan on an offer without a published inter-node bandwidth: the link row and bus figure the step
    kernel took instead (`scaling.link_rates`: the row's default value), marked SCALING_ASSUMED; None otherwise."""
    if gpus <= acc.max_cards_per_node or inter_node_gbit_per_s is not None:
        return None
    link = link_for(cat, acc, "inter-node")
    chosen = link.bus_gb_per_s.chosen
    return {"basis": SCALING_ASSUMED, "link": link.id, "bus_gb_per_s": float(chosen.value), "source": chosen.source}


def intra_node_basis(cat: Catalog, acc: Accelerator, gpus: int) -> dict[str, Any] | None:
    """A multi-card plan on a device whose bus bandwidth within a node is unpublished — its intra-node link row's
    default figure is `assumed` in links.yaml (the RTX 3090's host-staged 14 GB/s, the RTX 4090's figure taken as
    the conservative one; the fallback row's for fabrics without data) — the row and figure the step kernel took,
    marked SCALING_ASSUMED as `inter_node_basis` marks an unpublished network; None otherwise (one card, or a cited
    figure)."""
    if gpus <= 1:
        return None
    link = link_for(cat, acc, "intra-node")
    chosen = link.bus_gb_per_s.chosen
    if chosen.source != "assumed":
        return None
    return {"basis": SCALING_ASSUMED, "link": link.id, "bus_gb_per_s": float(chosen.value), "source": chosen.source}


# the hidden-communication warning speaks only where exposing it would lengthen the step by 1 % or more: below that
# the sentence read "a 2.6 s step instead of 2.6 s" (buyer review 1, 2026-12-02); the figures stay on the plan
COMM_HIDDEN_WARN_RATIO = 1.01


def comm_figures(cat: Catalog, m: ModelArch, acc: Accelerator, w: Workload) -> dict[str, float]:
    """The plan's step through the planner's kernel (`speed.training_step_of`): its MFU, the communication it
    exposes and all of it before any overlap, and the step, tokens/s and MFU with none hidden."""
    _, _, _, k = training_step_of(cat, m, acc, w)
    step, comm, exposed = float(k["step_s"]), float(k["comm_s"]), float(k["comm_exposed_s"])
    no_overlap = step - exposed + comm
    tok = float(k["tokens_per_s"])
    mfu = float(k["mfu"])
    return {"mfu": mfu, "step_s": step, "tokens_per_s": tok, "comm_s": comm, "comm_exposed_s": exposed,
            "step_no_overlap_s": no_overlap, "tokens_per_s_no_overlap": tok * step / no_overlap if no_overlap else tok,
            "mfu_no_overlap": mfu * step / no_overlap if no_overlap else mfu}


def published_mfu(cat: Catalog, acc: Accelerator) -> EfficiencyFactor | None:
    """The device's published end-to-end MFU (efficiency.yaml `train_mfu_end_to_end`): a row naming it, else one
    for its family without a device list; None where the catalog has none."""
    rows = [f for f in cat.efficiency if f.metric == "train_mfu_end_to_end"]
    named = [f for f in rows if acc.id in f.device_ids]
    family = [f for f in rows if not f.device_ids and f.family == acc.family]
    return next(iter(named or family), None)


def framework_mfu_assumptions(cat: Catalog, plans: Any, req: Any) -> list[Message]:
    """One assumption line per (device, framework) of the training plans whose compute efficiency is assumed
    (`efficiency.basis` "assumed": mfu-default) while the catalog scopes a measured row for that device to other
    frameworks (efficiency.yaml `framework`: mfu-910b to MindSpeed-LLM and MindFormers, mfu-rtx-4090 to torchtune):
    the framework decided the factor, and neither figure is measured under the plan's framework (buyer review
    2026-12-03: LLaMA-Factory LoRA on the 910B took MindFormers' 0.54 unsaid)."""
    from suanli.plan.search import plan_workload

    out: list[Message] = []
    seen: set[tuple[str, str]] = set()
    for p in plans:
        if p.framework is None or (p.device, p.framework) in seen:
            continue
        seen.add((p.device, p.framework))
        acc = next((a for a in cat.accelerators if a.id == p.device), None)
        line = _framework_mfu_line(cat, p, acc, plan_workload(p, req)) if acc is not None else None
        out += [line] if line is not None else []
    return out


def _framework_mfu_line(cat: Catalog, p: Any, acc: Accelerator, w: Workload) -> Message | None:
    """`framework_mfu_assumptions`' line for plan `p` on `acc` (its workload `w`), or None where it does not apply."""
    from suanli.estimate.efficiency import efficiency

    used = efficiency(cat, acc, "train_mfu", w.precision, w.engine, framework=w.framework)
    if used.basis != "assumed":
        return None
    # a row naming other frameworks that the device would take under them (the most specific there)
    f = next((f for f in cat.efficiency if f.metric == "train_mfu" and f.framework_ids
              and w.framework not in f.framework_ids and efficiency(
                  cat, acc, "train_mfu", w.precision, w.engine, framework=f.framework_ids[0]).factor_id == f.id),
             None)
    if f is None:
        return None
    names = [next((x.name for x in cat.frameworks if x.id == i), i) for i in f.framework_ids]
    fw_name = next((x.name for x in cat.frameworks if x.id == w.framework), w.framework)
    device = Message.from_json(p.device_name_i18n) if p.device_name_i18n else p.device_name
    return Message("plan.assume.train_mfu_framework", device=device, framework=fw_name, value=used.value,
                   factor=used.factor_id, scoped=f.id, scoped_value=f.value, frameworks=", ".join(names),
                   unstated=Message("plan.assume.train_mfu_unstated") if f.framework_unstated else "",
                   field="framework")


def assumed_efficiencies(cat: Catalog, m: ModelArch, plans: Any, req: Any) -> list[Message]:
    """The plans' assumption lines on efficiency, serving and training alike (buyer review 2026-12-02: a 910C serving
    plan rested on decode_bandwidth 0.70 and a 2.6 ms step overhead, both assumed, and never said so): one line per
    (device, precision, engine or framework) whose estimate — the factors `suanli estimate` lists for the plan's
    workload (`search.plan_workload`): `speed.inference_rates`' for serving, `speed.training_speed`'s for training —
    uses a factor that no measurement backs (`efficiency.basis` "assumed": a catalog default with source `assumed`,
    or the median of all measured devices for a family with none), each with its value, row and basis. A training
    MFU that the catalog measures on the device only under other frameworks keeps its own line
    (`framework_mfu_assumptions`), so it is not said twice. No factor is added or changed here: these are the
    estimate's own."""
    from suanli.catalog.ranks import rank_view
    from suanli.estimate.efficiency import efficiency_value
    from suanli.estimate.speed import inference_rates, training_speed
    from suanli.plan.search import plan_workload

    training = req.task != "inference"
    out: list[Message] = []
    said_mfu: set[tuple[str, str | None]] = set()  # (device, framework) whose MFU has its framework line
    seen: set[tuple[str, str, str | None, str | None]] = set()
    for p in plans:
        key = (p.device, p.precision, p.engine, p.framework)
        acc = next((a for a in cat.accelerators if a.id == p.device), None)
        if key in seen or acc is None:
            continue
        seen.add(key)
        acc, w = rank_view(acc), plan_workload(p, req)  # as estimate reads a card: one rank (a 910C's die)
        scoped = _framework_mfu_line(cat, p, acc, w) if training and p.framework else None
        if scoped is not None and (p.device, p.framework) not in said_mfu:
            said_mfu.add((p.device, p.framework))
            out.append(scoped)
        effs = training_speed(cat, m, acc, w).efficiencies if training else inference_rates(cat, acc, w)[1]
        said = [e for e in effs if e.basis == "assumed" and not (scoped is not None and e.metric == "train_mfu")]
        if not said:
            continue
        factors = [Message("plan.assume.efficiency_factor", metric=e.metric, value=efficiency_value(e.metric, e.value),
                           factor=e.factor_id, basis=Message.from_json(e.provenance_i18n) if e.provenance_i18n
                           else e.provenance) for e in said]
        device = Message.from_json(p.device_name_i18n) if p.device_name_i18n else p.device_name
        runs = p.engine if not training and p.engine else next(
            (x.name for x in cat.frameworks if x.id == w.framework), w.framework or "")
        out.append(Message("plan.assume.efficiency", device=device, runs=runs, precision=p.precision,
                           factors={lg: sep.join(render(f, lg) for f in factors)
                                    for lg, sep in (("en", "; "), ("zh", "；"))}))
    return out


def training_bias(bands: dict[str, ErrorBand], stack_id: str, moe: bool) -> tuple[PooledBias | None, bool]:
    """The pooled signed error of training throughput a plan is judged on (`estimate.pooled_bias`, no new factor),
    and whether MoE cases set it. A dense model: the stack's (its cases, shrunk toward all stacks' under
    LITTLE_EVIDENCE_CASES). An MoE model on a stack with MoE cases (`stack:<stack>:training-throughput:moe`): those
    cases shrunk the same way, (n·moe + k·stack) / (n + k), toward the stack's own pooled figure — the set they are
    part of — not toward the other stacks' few MoE cases (with 2 MoE cases in all, that prior would be one other
    stack's single case: CUDA's -37 % case would have become +23 %)."""
    parent = pooled_bias(bands, stack_id, _GROUP)
    if moe and parent is not None:
        band = moe_stack_band(bands, stack_id, _GROUP)
        if band is not None and band.cases and band.median_signed_pct is not None:
            n, k, own = band.cases, LITTLE_EVIDENCE_CASES, band.median_signed_pct
            bias = own if n >= k else (n * own + k * parent.bias_pct) / (n + k)
            return PooledBias(bias_pct=bias, cases=n, stack_pct=own, all_pct=parent.bias_pct,
                              all_cases=parent.cases or parent.all_cases, prior_cases=k), True
    return parent, False


def corrected_cost(offer: Offer, gpus: int, hours: float, subsidy: float) -> float:
    """The rent of `hours` on `offer` (the one billing rule, `cost.job_cost`)."""
    from suanli.plan.cost import job_cost

    return job_cost(offer, gpus, hours, subsidy).cost_cny


def billed(offer: Offer | None, gpus: int, hours: float) -> Message:
    """The units `hours` are billed as on `offer` (`cost.job_cost`'s rounding: 2.004 h on hourly billing is 3 billed
    hours), said beside the hours so that a step across a unit's boundary shows as the bill's jump it is."""
    from suanli.plan.cost import job_cost

    if offer is None:
        return Message("plan.billed_unknown")
    units = job_cost(offer, gpus, hours).units_billed
    return Message("plan.billed_unit_one" if units == 1 else "plan.billed_units", units=units,
                   billing_unit=offer.billing_unit)


def hours_pair(hours: float, corrected: float) -> tuple[str, str]:
    """Both hours to 2 decimals, or to as many (at most 4) as tell them apart, rounded up as billing rounds
    (`billed`): 1.993 → 2.004 h reads 2.00 → 2.01 beside 2 → 3 billed hours, never 2.0 → 2.0."""
    def up(h: float, d: int) -> str:
        return f"{math.ceil(round(h * 10**d, 6)) / 10**d:,.{d}f}"

    digits = next((d for d in (2, 3, 4) if up(hours, d) != up(corrected, d)), 2)
    return up(hours, digits), up(corrected, digits)


def bias_evidence(pb: PooledBias, stack: Any, moe: bool) -> Message:
    """What the pooled bias rests on: `search.pooled_evidence`'s wording, or for MoE cases (`training_bias`) those
    cases and the stack's figure they are pooled with."""
    from suanli.plan.search import pooled_evidence

    if moe:
        if pb.cases >= LITTLE_EVIDENCE_CASES:
            return Message("plan.evidence.moe", evidence=Message("plan.evidence.stack", cases=pb.cases, stack=stack))
        return Message("plan.evidence.moe_pooled", cases=pb.cases, stack=stack, signed=pb.stack_pct or 0.0,
                       parent=pb.all_pct or 0.0, parent_cases=pb.all_cases, prior=pb.prior_cases)
    return pooled_evidence(pb.cases, stack, pb.stack_pct, pb.all_pct if pb.all_pct is not None else 0.0,
                           pb.all_cases, pb.prior_cases)


def plan_training_notes(cat: Catalog, m: ModelArch, req: Any, p: Any, acc: Accelerator, w: Workload,
                        stack_id: str, stack_name: Any, device_name: Any, offer: Offer | None,
                        bands: dict[str, ErrorBand], deadline_demoted: bool) -> tuple[list[Message], list[Message],
                                                                                     dict[str, Any]]:
    """(warnings, reason extras, Plan field updates) for a training plan `p` (search.Plan) on `acc`, its workload `w`
    (`search.plan_workload`): the scaling basis, the fully hidden communication, the implied MFU against the published
    one, and the hours and cost if the known throughput error holds — with a demotion where those corrected figures
    break the deadline (unless the deadline check already demoted it: `deadline_demoted`) or the budget."""
    from suanli.plan.search import DEMOTION_COST_FACTOR, migration_share

    warnings: list[Message] = []
    extras: list[Message] = []
    upd: dict[str, Any] = {}
    basis = inter_node_basis(cat, acc, p.gpus, p.inter_node_gbit_per_s)
    if basis is not None:
        upd.update(scaling_basis=basis["basis"], inter_node_link=basis["link"],
                   inter_node_bus_gb_per_s=basis["bus_gb_per_s"])
    intra = intra_node_basis(cat, acc, p.gpus)
    if intra is not None:  # said on the plan itself: the assumption line (`search._extras`) words the inter-node case
        upd["scaling_basis"] = intra["basis"]
        warnings.append(Message("plan.warn.scaling_unpublished_intra", device=device_name, gpus=p.gpus,
                                bus=intra["bus_gb_per_s"], link=intra["link"]))
    figs = comm_figures(cat, m, acc, w)
    upd["mfu"] = figs["mfu"]
    if p.gpus > 1 and figs["comm_s"] > 0 and figs["comm_exposed_s"] <= 1e-12 * figs["step_s"]:
        upd.update(comm_hidden_s=figs["comm_s"], step_no_overlap_s=figs["step_no_overlap_s"])
    if "comm_hidden_s" in upd and figs["step_no_overlap_s"] >= COMM_HIDDEN_WARN_RATIO * figs["step_s"]:
        warnings.append(Message("plan.warn.comm_hidden", comm=figs["comm_s"], step=figs["step_s"],
                                step_no=figs["step_no_overlap_s"], tok_no=figs["tokens_per_s_no_overlap"],
                                mfu=figs["mfu"], mfu_no=figs["mfu_no_overlap"]))
    pub = published_mfu(cat, acc)
    if pub is not None and figs["mfu"] > pub.value:
        warnings.append(Message("plan.warn.mfu_above_published", mfu=figs["mfu"], device=device_name,
                                published=pub.value, source=pub.source, factor=pub.id))
    pb, moe = training_bias(bands, stack_id, m.moe is not None)
    if pb is None or pb.bias_pct <= 0 or p.compute_hours <= 0:
        return warnings, extras, upd
    add_h = p.compute_hours * pb.bias_pct / 100  # +: the estimate faster than measured, so the job runs longer
    hours = p.hours + add_h
    evidence = bias_evidence(pb, stack_name, moe)
    group = Message(f"band.{_GROUP}")
    cost = corrected_cost(offer, p.gpus, hours, p.subsidy) if offer is not None else p.cost_cny
    total = cost + float(migration_share(p.migration_one_off_cny, hours, req.migration_months))
    upd.update(training_bias_pct=pb.bias_pct, hours_if_bias=hours, cost_if_bias_cny=cost)
    shown, shown_corrected = hours_pair(p.hours, hours)
    warnings.append(Message("plan.warn.hours_if_bias", group=group, evidence=evidence, bias=pb.bias_pct,
                            hours=shown, billed=billed(offer, p.gpus, p.hours), corrected=shown_corrected,
                            corrected_billed=billed(offer, p.gpus, hours), cost=p.cost_cny, corrected_cost=cost))
    rank = Message("plan.reason.rank_demoted_factor", factor=DEMOTION_COST_FACTOR)  # `_demote`'s rule
    calendar = hours + (p.migration_weeks[0] + p.migration_weeks[1]) / 2 * HOURS_PER_WEEK
    if req.deadline_hours is not None and calendar > req.deadline_hours and not deadline_demoted:
        extras.append(Message("plan.reason.deadline_bias", group=group, evidence=evidence, bias=pb.bias_pct,
                              calendar=duration(calendar), deadline=duration(req.deadline_hours), rank=rank))
    if req.budget_cny is not None and total > req.budget_cny:
        extras.append(Message("plan.reason.budget_bias", group=group, evidence=evidence, bias=pb.bias_pct,
                              total=p.total_cost_cny, corrected=total, budget=req.budget_cny, rank=rank))
    return warnings, extras, upd
