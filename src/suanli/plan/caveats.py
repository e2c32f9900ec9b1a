"""What an offer's listing leaves out about the card it rents, said beside every answer priced on it (plan, compare,
migrate cost): a generic '910B' without its variant (B1…B4, `catalog.offers.variants_of`) and an A100/A800 node
that does not say SXM or PCIe or its memory size (`Offer.unstated`, `Offer.may_be`; buyer review 2026-12-02 #2).
The answer is worked out on the part the offer is entered under; the caveat says which part that assumes and what
the same layout gives on each other part the card may be — whether it fits and its speed, judged by plan's own
known-error rule (`plan.known_error`: a memory headroom or TPOT/TTFT margin within the stack's known error reads
'tight' / 'likely misses' where plan would say so of that part planned alone; buyer review 2026-12-03 #8).

One builder for every answer (`offer_caveats`): each caller hands it the layout its figures are for (`Rerun`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from suanli.catalog import lookup
from suanli.catalog.offers import assumed_variant, variants_of
from suanli.catalog.schema import Accelerator, Catalog, ModelArch, Offer, SoftwareStack
from suanli.errors import EstimateError, InputError
from suanli.estimate.estimate import ErrorBand, estimate
from suanli.estimate.workload import Workload
from suanli.i18n import Message, both
from suanli.plan.known_error import fit_word, known_error, latency_margin_pct, likely_missed, memory_within_error
from suanli.units import GiB

__all__ = ["Rerun", "card_warning", "offer_caveats", "variant_outcome", "variant_warning"]

# Offer.unstated -> how an answer names it (static ids: the catalog-ids test finds them)
_CARD_UNSTATED = {"form_factor": "plan.card_unstated.form_factor", "memory_size": "plan.card_unstated.memory_size"}


@dataclass(frozen=True)
class Rerun:
    """The layout an answer's figures are for and what it is judged by, to re-estimate on another part: `workload`
    (`suanli estimate`'s, e.g. `plan.search.plan_workload`), the answer's own `tokens_per_s` (a training re-estimate
    is said as a share of it), the serving targets stated (`tpot_s`, `ttft_s`; None: none), whether the TPOT
    judged is the steady-state one (`steady`: a rate or users keep the batch full) or the decode step, and the
    validated error `bands` the answer is judged by (plan's; None: fits and misses as estimated, no error rule)."""

    workload: Workload
    tokens_per_s: float | None = None
    tpot_s: float | None = None
    ttft_s: float | None = None
    steady: bool = False
    bands: Mapping[str, ErrorBand] | None = None


def _name(acc: Accelerator) -> str | dict[str, str]:
    """A device's name in a message: the vendor's Chinese name in Chinese output where the catalog has one."""
    return both(acc.name, acc.name_zh)


def variant_outcome(cat: Catalog, m: ModelArch, v: Accelerator, run: Rerun) -> Message:
    """The answer's layout (cards, tp, precision, batch) re-estimated on part `v`: fits or not, and its speed, judged
    as plan judges a plan on `v` (`_judged`)."""
    name = _name(v)
    mem, bw = v.specs.memory_gib, v.specs.memory_bandwidth_gb_per_s
    if mem is None or bw is None:
        missing = [Message(k) for k, f in (("why.no_memory_size", mem), ("why.no_bandwidth", bw)) if f is None]
        return Message("plan.variant.unknown", variant=name, why=missing)
    figures = dict(variant=name, mem=mem.value, tbs=(bw.value or 0.0) / 1000)
    try:
        e = estimate(cat, m, v, run.workload, strict_context=False, fit_limits=False)  # reads no max batch
    except (EstimateError, InputError) as ex:
        return Message("plan.variant.unknown", variant=name, why=str(ex))
    if not e.memory.fits:
        return Message("plan.variant.no_fit", figures, need=(e.memory.needed_bytes or 0.0) / GiB,
                       usable=(e.memory.usable_bytes or 0.0) / GiB)
    stack = lookup.stack(cat, v.stack)
    bands = dict(run.bands or {})
    tight = (memory_within_error(bands, stack, run.workload.task, e.memory.needed_bytes, e.memory.usable_bytes,
                                 e.dies_per_card)
             if bands and e.memory.needed_bytes is not None and e.memory.usable_bytes is not None else None)
    fit = fit_word(tight)  # the fit as `suanli estimate` and compare word it (the one rule)
    if e.inference is not None:
        s = e.inference
        tpot_s = s.tpot_steady_s if run.steady else s.tpot_s  # the TPOT the answer's own row is judged on
        judged = [_judged(bands, stack, metric, est, target, group) for metric, est, target, group in (
            ("TPOT", tpot_s, run.tpot_s, "decode-speed"), ("TTFT", s.ttft_joining_s, run.ttft_s, "prefill-speed"))]
        verdicts = [j for j in judged if j is not None]
        return Message("plan.variant.serve", figures, fit=fit, ttft_ms=s.ttft_joining_s * 1000,
                       tpot_ms=tpot_s * 1000, misses=Message("plan.variant.verdicts", items=verdicts) if verdicts else "")
    if e.training is not None:
        return Message("plan.variant.train", figures, fit=fit, tok_s=e.training.train_tokens_per_s,
                       ratio=e.training.train_tokens_per_s / run.tokens_per_s if run.tokens_per_s else 1.0)
    return Message("plan.variant.unknown", variant=name, why=[Message("why.no_peak", precision="16-bit")])


def _judged(bands: dict[str, ErrorBand], stack: SoftwareStack, metric: str, est_s: float, target_s: float | None,
            group: str) -> Message | None:
    """A serving target on a re-estimated part as plan judges it (`plan.search._margins`, `_margin_reason`): missed
    outright, or likely missed where the stack's pooled bias exceeds the margin the target leaves (`known_error`,
    `likely_missed`); None where it is met (or no target, or no bands)."""
    if target_s is None:
        return None
    if est_s > target_s:
        return Message("plan.variant.misses", metric=metric)
    w = known_error(bands, stack, group, metric, Message("unit.ms", ms=est_s * 1000),
                    Message("unit.ms", ms=target_s * 1000), latency_margin_pct(est_s, target_s)) if bands else None
    if w is None or not likely_missed(w):
        return None
    return Message("plan.variant.likely_misses", metric=metric, group=Message(f"band.{group}"), bias=w.params["bias"],
                   margin=w.params["margin"])


def variant_warning(cat: Catalog, m: ModelArch, acc: Accelerator, offer_id: str, run: Rerun) -> Message | None:
    """An offer on a generic device (one with variants: '910B' without B1…B4) is worked out on the generic device's
    specs, which are one variant's (catalog.offers.assumed_variant): say which, and what the same layout gives on
    each other variant. None: the device has no variants, or its own figures are no variant's — a part of its own
    (the H20 96GB beside its 141 GB variant), which an offer naming it names (a listing that leaves the memory size
    out says so in `Offer.unstated`: `card_warning`)."""
    variants = variants_of(cat, acc.id)
    if not variants:
        return None
    assumed = assumed_variant(cat, acc)
    if assumed is None:
        return None
    base = assumed
    mem, bw = base.specs.memory_gib, base.specs.memory_bandwidth_gb_per_s
    outcomes = [variant_outcome(cat, m, v, run) for v in variants if v is not assumed]
    return Message("plan.warn.variant_unstated", offer=offer_id, family=_name(acc), assumed=_name(base),
                   mem=mem.value if mem else 0.0, tbs=((bw.value if bw else 0.0) or 0.0) / 1000, outcomes=outcomes)


def card_warning(cat: Catalog, m: ModelArch, acc: Accelerator, offer: Offer, run: Rerun) -> Message | None:
    """An offer whose listing does not say its card's form factor or memory size (`Offer.unstated`: 云擎天下's
    '8*A100 80G' node, SXM or PCIe) is worked out on its `device` (`acc`): say which part that assumes, and what the
    same layout gives on each other part it may be (`Offer.may_be`, re-estimated as a 910B offer's other variants
    are: `variant_outcome`), or that the catalog has none to estimate it on. None: the listing leaves nothing out."""
    if not offer.unstated:
        return None
    what = [Message(_CARD_UNSTATED[u]) for u in offer.unstated]
    unstated = what[0] if len(what) == 1 else Message("plan.card_unstated.and", first=what[0], last=what[1])
    mem, bw = acc.specs.memory_gib, acc.specs.memory_bandwidth_gb_per_s
    figures = dict(offer=offer.id, unstated=unstated, assumed=_name(acc), mem=mem.value if mem else 0.0,
                   tbs=((bw.value if bw else 0.0) or 0.0) / 1000,
                   link=both(acc.interconnect_name or acc.interconnect, acc.interconnect_name_zh))
    if not offer.may_be:
        return Message("plan.warn.card_unstated_alone", figures)
    return Message("plan.warn.card_unstated", figures, outcomes=[
        variant_outcome(cat, m, lookup.accelerator(cat, x), run) for x in offer.may_be])


def offer_caveats(cat: Catalog, m: ModelArch, acc: Accelerator, offer: Offer | None, run: Rerun) -> list[Message]:
    """Every caveat on the card an answer's `offer` rents (the 910B variant it does not name, then the form factor
    or memory size it does not say), the layout `run` re-estimated on each other part; [] without an offer."""
    if offer is None:
        return []
    out = [variant_warning(cat, m, acc, offer.id, run), card_warning(cat, m, acc, offer, run)]
    return [w for w in out if w is not None]
