"""What a serving plan's answer says about its quality and its confidence (buyer review F, findings 2, 4, 7, 8): the
quantization scheme a precision means on the stack (cited in stacks.yaml), the best plan at the next precision up,
the offers that priced a row and their range, and the label of a row whose speed is not validated on its stack."""

from __future__ import annotations

from typing import Any

from suanli.catalog.schema import Offer, SoftwareStack
from suanli.estimate.estimate import LITTLE_EVIDENCE_CASES, ErrorBand, lora_stack_band, moe_stack_band, stack_band
from suanli.estimate.precision import quant_scheme, quant_scheme_note
from suanli.i18n import Message
from suanli.units import UNIT_HOURS

__all__ = ["next_precision_up", "offers_range", "precision_up_loss", "quant_scheme", "quantization_warnings",
           "scheme_name", "unvalidated_label"]

# serving precisions from the most to the least precise (search.SERVE_PRECISIONS' order)
_ORDER = ("bf16", "fp8", "int8", "int4")


def scheme_name(stack: SoftwareStack, precision: str) -> str | Message:
    """The precision as the plan names it: 'int8 (W8A8)' where the stack's scheme is cited, 'bf16 (unquantized)'."""
    s = quant_scheme(stack, precision)
    if s is not None:
        return Message("plan.precision.with_scheme", precision=precision, scheme=s.value)
    if precision in ("bf16", "fp16", "fp32"):
        return Message("plan.precision.unquantized", precision=precision)
    return precision


def quantization_warnings(stack: SoftwareStack, precision: str, stack_name: Any) -> list[Message]:
    """The warnings of a quantized plan: that its accuracy is not measured (`plan.warn.quantization`), then, where the
    stack cites one, the scheme the precision means there and the rate suanli runs its matmuls at, with int4's
    accuracy risk — the catalog holds no published accuracy delta for any scheme, so none is quoted."""
    out = [Message("plan.warn.quantization", precision=precision)]
    scheme = quant_scheme_note(stack, precision, stack_name)  # estimate says the same sentence (one function)
    return out + ([scheme] if scheme is not None else [])


def precision_up_loss(up: str, release: str) -> Message:
    """What serving at precision `up` (the next precision up's note, `plan.reason.precision_up`) gains in quantization:
    none left at a 16/32-bit float or at the checkpoint's release dtype `release` (DeepSeek-R1's fp8 weights are the
    released ones: nothing is quantized), "no quantization loss"; else a quantized one above the plan's (int8 over
    int4), "less quantization loss" (buyer review 2026-12-02, task H3: bf16 was said to lose less, not nothing)."""
    none = up in ("bf16", "fp16", "fp32") or up == release
    return Message("plan.reason.loss_none" if none else "plan.reason.loss_less")


def next_precision_up(precision: str, release: str, available: set[str]) -> str | None:
    """The precision just above `precision` (toward the checkpoint's release dtype `release`) among `available`
    (the precisions the device has a fitting, priced layout at); None when the plan is at its release dtype or above,
    or no such layout exists."""
    if precision not in _ORDER or release not in _ORDER:
        return None
    lo, hi = _ORDER.index(release), _ORDER.index(precision)
    for p in reversed(_ORDER[lo:hi]):
        if p in available:
            return p
    return None


def offers_range(n: int, lo: float, cheapest: Offer, hi: float, dearest: Offer) -> Message | None:
    """The one sentence on the offers that priced a row (buyer review F 7; `suanli tco` lists every offer): how many,
    and the range from `lo` on `cheapest` (the plan's cost is that floor; its kind said) to `hi` on `dearest` (its
    price's top, `price_cny_max`). Where the two ends bill in different units each end says its unit, and a unit
    longer than an hour that whole units are billed: a 4.7 h job on a monthly offer pays its whole month, which is
    no price for the same rental as the hourly end; and an end on an offer with a minimum term (`min_units`) says the
    term, which its bill counts as plan's cost does (`plan.cost.billed_cost`): SMM's H200 cluster quote bills a
    five-year minimum, ¥55,440,000, beside ¥658,000 for the month (buyer review 2026-12-03). None when no offer
    priced it."""
    if n <= 0:
        return None
    kind = Message(f"offer_kind.{cheapest.kind}")
    if n == 1:
        return Message("plan.reason.offers_one", offer=cheapest.id, kind=kind)
    if cheapest.billing_unit == dearest.billing_unit and cheapest.min_units == dearest.min_units == 1:
        return Message("plan.reason.offers_range", n=n, lo=lo, hi=hi, offer=cheapest.id, kind=kind)
    return Message("plan.reason.offers_range_units", n=n, lo=lo, offer=cheapest.id, kind=kind, per=_billed_per(cheapest),
                   hi=hi, offer_hi=dearest.id, per_hi=_billed_per(dearest))


def _billed_per(o: Offer) -> Message:
    """An offer's billing unit as the offers line says it: 'per hour'; a longer unit, that whole units are billed; a
    minimum term, its length (billed whole)."""
    if o.min_units > 1:
        return Message("plan.reason.offers_per_min", billing_unit=o.billing_unit, units=o.min_units)
    whole = UNIT_HOURS[o.billing_unit] > 1.0
    return Message("plan.reason.offers_per_whole" if whole else "plan.reason.offers_per", billing_unit=o.billing_unit)


def unvalidated_label(bands: dict[str, ErrorBand], stack: SoftwareStack, moe: bool, groups: tuple[str, ...],
                      stack_name: Any, lora: bool = False) -> Message | None:
    """'unvalidated on <stack>' where a speed group has fewer than LITTLE_EVIDENCE_CASES out-of-sample cases on the
    stack for the model's family (an MoE model: the stack's MoE cases) or, for a LoRA/QLoRA job (`lora`), for that
    task (the stack's LoRA cases, `estimate.lora_stack_band`, where the bands count them): the row's rank rests on
    other stacks' (or dense models', or full and pre-training) evidence, not a validated pass. None with enough cases,
    or without per-stack bands."""
    for g in groups:
        checks = [(moe_stack_band(bands, stack.id, g) if moe else stack_band(bands, stack.id, g),
                   "plan.family.moe" if moe else "plan.family.any")]
        if lora:
            checks.append((lora_stack_band(bands, stack.id, g), "plan.family.lora"))
        for sb, family in checks:
            if sb is not None and sb.cases < LITTLE_EVIDENCE_CASES:
                return Message("plan.reason.unvalidated", stack=stack_name, group=Message(f"band.{g}"),
                               cases=sb.cases, family=Message(family), need=LITTLE_EVIDENCE_CASES)
    return None
