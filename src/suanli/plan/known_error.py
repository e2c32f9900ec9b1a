"""The known-error rules plan, `suanli estimate` and compare share: a margin (TPOT, TTFT, deadline, memory headroom)
under a stack's validated out-of-sample error is warned of (`known_error`, `error_rule`, `warn_limit`), and one the
pooled bias also exceeds is demoted (`demoted`); estimate's memory check asks `memory_within_error` and
`memory_likely_short`. Kept apart from the planner's search (`plan.search` imports them) so a command that only
judges one estimate does not import — and, without bytecode, compile — the search (`suanli estimate`: ~0.05 s;
tests/unit/cli/test_startup.py)."""

from __future__ import annotations

import math
from typing import Any

from suanli.catalog.schema import SoftwareStack
from suanli.estimate import xp
from suanli.estimate.estimate import LITTLE_EVIDENCE_CASES, ErrorBand, pooled_bias, stack_band
from suanli.i18n import Message, both, render
from suanli.units import GiB

__all__ = ["band_error_pct", "bias_evidence", "demoted", "error_rule", "fit_label", "fit_word", "known_error", "latency_margin_pct", "likely_missed",
           "margin_warned", "memory_group", "memory_headroom_pct", "memory_likely_short", "memory_within_error",
           "pooled_evidence", "risk_pct", "stack_name", "warn_limit"]


def stack_name(stack: SoftwareStack) -> str | dict[str, str]:
    """The stack's name in a message, in Chinese output as its vendor writes it where the catalog has that."""
    return both(stack.name, stack.name_zh)


def known_error(bands: dict[str, ErrorBand], stack: SoftwareStack, group: str, metric: str, estimate_: Any,
                 target: Any, margin_pct: float, memory: bool = False, dies: int = 1) -> Message | None:
    """A warning when the margin a target leaves (`margin_pct`: how much slower the real speed may be; `memory`: the
    memory headroom, how much more the real need may be) is smaller than the known error of the group on the stack
    (its out-of-sample |error|, `band_error_pct`: the median for speed, the p90 for memory), or of all stacks where
    the stack has no out-of-sample case (memory: fewer than LITTLE_EVIDENCE_CASES); None otherwise or when no band is stored. It carries the bias demotion is judged on
    (`estimate.pooled_bias`: `bias`, `bias_cases`, `all_signed`, `prior`). The memory of a card of `dies` dies (the
    910C) is a rank's, worded "usable GiB per die" (the `_dies` ids)."""
    sb = stack_band(bands, stack.id, group)
    pb = pooled_bias(bands, stack.id, group)
    limit = warn_limit(bands, stack.id, group, memory)
    kw = dict(metric=metric, estimate=estimate_, target=target, group=Message(f"band.{group}"),
              stack=stack_name(stack), margin=margin_pct)
    if pb is not None:
        kw.update(bias=pb.bias_pct, bias_cases=pb.cases, bias_own=pb.stack_pct,
                  all_signed=pb.all_pct if pb.all_pct is not None else 0.0,
                  all_cases=pb.all_cases, prior=pb.prior_cases)
    per_die = "_dies" if memory and dies > 1 else ""
    ids = (f"plan.warn.memory_within_error{per_die}", f"plan.warn.memory_within_error_all{per_die}") if memory else (
        "plan.warn.within_error", "plan.warn.within_error_all")
    if limit is None or not margin_warned(margin_pct, limit):  # the one rule for memory, speed and deadline
        return None
    own = band_error_pct(sb, memory) if sb is not None else None
    if sb is not None and sb.cases >= LITTLE_EVIDENCE_CASES and own is not None:
        return Message(ids[0], kw, cases=sb.cases, signed=sb.median_signed_pct or 0.0, median=own)
    overall = bands.get(group)
    if sb is not None and sb.cases and own is not None and overall is not None:
        # 1–4 cases: their |error| shrunk toward all stacks' (buyer regression 6: not the few cases' alone)
        return Message(f"plan.warn.memory_within_error_pooled{per_die}" if memory else "plan.warn.within_error_pooled", kw,
                       own_cases=sb.cases, own=own, all=band_error_pct(overall, memory) or 0.0,
                       cases=overall.cases, prior=LITTLE_EVIDENCE_CASES, median=limit)
    if overall is None:
        return None
    # none on the stack (sb.cases 0), or bands stored before per-stack entries (sb None: not known)
    none: Message | str = ""
    if sb is not None:
        none = (Message("plan.warn.few_on_stack", stack=stack_name(stack), cases=sb.cases) if sb.cases
                else Message("plan.warn.none_on_stack", stack=stack_name(stack)))
    return Message(ids[1], kw, cases=overall.cases, median=band_error_pct(overall, memory), none=none)


def warn_limit(bands: dict[str, ErrorBand], stack_id: str, group: str, memory: bool) -> float | None:
    """The margin (%) under which plan warns of `group` on a stack (`known_error`, `margin_warned`): `error_rule`'s
    limit where a warning can be worded — the stack has LITTLE_EVIDENCE_CASES or more cases, or all stacks' band is
    stored — else None (no warning at any margin). The capacity quote's comfortable rate (`_serve_checks`) uses it."""
    limit, _ = error_rule(bands, stack_id, group, memory)
    sb = stack_band(bands, stack_id, group)
    if limit is None:
        return None
    if sb is not None and sb.cases >= LITTLE_EVIDENCE_CASES and sb.median_abs_pct is not None:
        return limit
    return limit if bands.get(group) is not None else None


def margin_warned(margin_pct: Any, limit: Any) -> Any:
    """The one thin-margin rule: a margin (TPOT, TTFT, deadline, memory headroom, in %) under the known error
    `limit` (`warn_limit`) is warned of — plan's warnings (`known_error`) and the capacity quote's comfortable rate
    (`_serve_checks`) both ask it (arrays or floats; a NaN limit warns of nothing)."""
    return xp.asarray(margin_pct) < xp.asarray(limit) if xp.ndim(margin_pct) or xp.ndim(limit) else bool(
        margin_pct < limit)


def latency_margin_pct(est_s: Any, target_s: float) -> Any:
    """How much slower the real speed may be than the estimate `est_s` before it misses `target_s`, in %
    (plan's warnings, its evidence step and the capacity quote's comfortable rate); inf where there is no estimate."""
    if not xp.ndim(est_s):  # one estimate (`suanli estimate`: without numpy)
        return 100 * (target_s / float(est_s) - 1) if est_s > 0 else math.inf
    import numpy as np  # plan's arrays

    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.asarray(est_s) > 0, 100 * (target_s / np.asarray(est_s) - 1), np.inf)


def band_error_pct(band: ErrorBand, memory: bool) -> float | None:
    """The |error| of a band a margin is judged against: for speed and deadlines its median (a margin under it is
    missed about as often as not), for memory its p90 — running out of memory loses the run rather than slowing it, so
    a headroom is thin until it covers the error nine estimates in ten stay within (buyer review 2026-12-01 item 1: at
    the median, 0.5 % of the inference-memory band, a 0.4 % headroom on an engine the band has no case of passed)."""
    return band.p90_abs_pct if memory else band.median_abs_pct


def error_rule(bands: dict[str, ErrorBand], stack_id: str, group: str, memory: bool) -> tuple[float | None, float | None]:
    """(limit, risk) for `group` on a stack: a margin (TPOT, TTFT, deadline, memory headroom, in %) under `limit` is
    warned of — the stack's out-of-sample |error| (`band_error_pct`: the median for speed, the p90 for memory) with
    LITTLE_EVIDENCE_CASES or more cases, else all stacks'
    (buyer regression 6: one stack case's |error| no longer outweighs the pooled figure the ranking uses) — and one
    also under `risk` (the pooled bias, `estimate.pooled_bias`, as the risk it means: speed +, memory −) is demoted.
    None where no band is stored. Plan, its layout reduction (`_evidence_fails`), estimate and compare use it."""
    sb = stack_band(bands, stack_id, group)
    overall = bands.get(group)
    all_abs = band_error_pct(overall, memory) if overall is not None else None
    limit: float | None = all_abs
    own = band_error_pct(sb, memory) if sb is not None else None
    if sb is not None and own is not None and sb.cases:
        n, k = sb.cases, LITTLE_EVIDENCE_CASES
        # 5+ cases: the stack's own; fewer: shrunk toward all stacks' as the bias is (`estimate.pooled_bias`)
        limit = own if n >= k or all_abs is None else (n * own + k * all_abs) / (n + k)
    pb = pooled_bias(bands, stack_id, group)
    risk = None if pb is None else (-pb.bias_pct if memory else pb.bias_pct)
    return limit, risk


def memory_headroom_pct(needed_bytes: Any, usable_bytes: Any) -> Any:
    """How much larger the real need may be than the estimate before it no longer fits, in % of the estimate's
    signed error: a need estimated e too low, (est − real) / real = −e, still fits while e <= 1 − est / usable."""
    if xp.ndim(usable_bytes) or xp.ndim(needed_bytes):  # `_serve_checks`' arrays
        import numpy as np

        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(usable_bytes > 0, 100 * (usable_bytes - needed_bytes) / usable_bytes, 0.0)
    return 100 * (usable_bytes - needed_bytes) / usable_bytes if usable_bytes > 0 else 0.0


def memory_group(task: str) -> str:
    """The validated memory group a task's fit is judged on."""
    return "inference-memory" if task == "inference" else "training-memory"


def memory_within_error(bands: dict[str, ErrorBand], stack: SoftwareStack, task: str, needed_bytes: float,
                        usable_bytes: float, dies: int = 1) -> Message | None:
    """The one memory-within-error check (`plan.warn.memory_within_error`, `error_rule`): a memory headroom smaller
    than the task's known memory error on the stack; plan, `suanli estimate` and `compare` call it (buyer
    regression 4). None where it fits with room, does not fit at all, or no band is stored. `dies`: the dies of a
    card whose bytes are a rank's (the 910C: 2), said per die."""
    if usable_bytes <= 0 or needed_bytes <= 0 or needed_bytes > usable_bytes:
        return None
    return known_error(bands, stack, memory_group(task), "memory", needed_bytes / GiB, usable_bytes / GiB,
                        memory_headroom_pct(needed_bytes, usable_bytes), memory=True, dies=dies)


def memory_likely_short(w: Message | None) -> Message | None:
    """A memory-within-error warning (`memory_within_error`) whose pooled bias exceeds the headroom (`demoted`): the
    plan's sentence ("memory likely short if the known … error holds (…)"), without the ranking clause — estimate and
    compare say "likely short" rather than "fits (tight)" for it (final buyer check 1); None otherwise."""
    if w is None or not w.id.startswith("plan.warn.memory") or not demoted(w):
        return None
    return Message("plan.reason.memory_likely_short", group=w.params["group"], evidence=bias_evidence(w),
                   bias=w.params["bias"], margin=w.params["margin"], rank="")


def fit_word(tight: Message | None) -> Message:
    """A fit in the words of estimate's and compare's fits cell, the one rule: "likely short (known bias … vs
    headroom …)" where the pooled bias exceeds the headroom (`memory_likely_short`), "fits (tight)" where the headroom
    lies within the known error (`tight`: `memory_within_error`'s warning), else "fits" (buyer review H: compare's
    "yes" beside a "likely short" note)."""
    if tight is not None and memory_likely_short(tight) is not None:
        return Message("est.likely_short", bias=tight.params["bias"], margin=tight.params["margin"])
    return Message("est.fits_tight") if tight is not None else Message("est.fits")


def fit_label(tight: Message | None, fits: bool | None) -> dict[str, Any]:
    """`fit_label` and its message (`views.estimate_shapes.MemoryVerdictJson`): the fits cell's words
    (`fit_word`) where it fits, else null."""
    word = fit_word(tight) if fits else None
    return {"fit_label": render(word) if word is not None else None,
            "fit_label_i18n": word.to_json() if word is not None else None}


def risk_pct(w: Message, pct: Any) -> float | None:
    """A signed error as the risk it means for the plan: speed + (the estimate faster than measured), memory −
    (the estimate lower than measured)."""
    if pct is None:
        return None
    return -float(pct) if w.id.startswith("plan.warn.memory") else float(pct)


def likely_missed(w: Message) -> bool:
    """The bias demotion is judged on (`estimate.pooled_bias`: the stack's median signed error on 5+ cases, shrunk
    toward all stacks' below that, all stacks' on none) exceeds the plan's headroom."""
    risk = risk_pct(w, w.params.get("bias"))
    return risk is not None and risk > float(w.params["margin"])


def demoted(w: Message) -> bool:
    """A plan with this warning ranks after the plans that pass: the pooled bias exceeds its headroom, by one rule for
    every stack whatever its number of cases (README, "How sure a plan's speed is")."""
    return likely_missed(w)


def pooled_evidence(cases: int, stack: Any, signed: float | None, all_signed: float, all_cases: int,
                    prior: int) -> Message:
    """What a pooled bias (`estimate.pooled_bias`) rests on: the stack's cases (5+), them shrunk toward all stacks'
    figure at an assumed weight of `prior` cases, or all stacks' alone."""
    if cases >= LITTLE_EVIDENCE_CASES:
        return Message("plan.evidence.stack", cases=cases, stack=stack)
    if cases:
        return Message("plan.evidence.pooled", cases=cases, stack=stack, signed=signed or 0.0, all_signed=all_signed,
                       all_cases=all_cases, prior=prior)
    return Message("plan.evidence.all", stack=stack, all_cases=all_cases)


def bias_evidence(w: Message) -> Message:
    """What the pooled bias a warning carries rests on (`pooled_evidence`)."""
    return pooled_evidence(int(w.params.get("bias_cases") or 0), w.params["stack"], w.params.get("bias_own"),
                           w.params["all_signed"], w.params["all_cases"], w.params["prior"])
