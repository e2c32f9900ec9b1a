"""Migration effort: the one rule that charges calendar weeks for moving a model onto a stack (pure Python).

`suanli migrate check` (`coverage.classify`, with what the trace found) and `plan.search.migration_weeks` (`migrate
cost`, plan, compare, scenarios, POST /api/migrate) both ask this module; neither has a copy of the rule.

Two steps, each one function:

1. `listing`: is the model on the stack's adapted lists **for the task**? A stack that splits its lists by use
   (CANN: vLLM-Ascend and MindIE-LLM for inference, MindSpeed-LLM for training) is looked up in the lists for the
   task (`list_use`: inference, or training for full / lora / qlora / pretrain); a model on the training list only
   (Mixtral-8x7B) is not adapted for serving. The reason names the lists consulted, so `migrate check --task
   inference` and `migrate cost --task full` say why they differ.
2. `effort`: the stack's range (stacks.yaml, seed-000: 1–2 weeks on the list, 2–4 off it; seed-003: 1–2 months
   for MoE/multimodal). An MoE/multimodal model on the list spans both sources (the adapted low to the MoE high:
   seed-000 prices it by the list, seed-003 by the architecture, neither says which wins). A CPU-fallback operator
   (the trace) or a library with no NPU build (`migrate.libraries`) is a port: a listed model takes the range it
   would take off the list. A stack that publishes no list gets the catalog's own range, labelled assumed where
   the catalog assumes it. A preset whose released checkpoint is stored in a dtype with no NPU kernel
   (`checkpoint_uses`: DeepSeek-V3/R1's FP8) is a conversion step, not a port (`LibraryUse.converts`, never
   `blocks`): the vendor's tools convert it (msModelSlim W8A8/W4A8, or bf16; libraries.yaml `checkpoint`), so the
   weeks are the model's adapted-list range in every caller — `migrate check`, `migrate cost` and plan alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from suanli.i18n import Message, both

__all__ = ["AdaptedList", "Effort", "Listing", "checkpoint_uses", "complex_arch", "effort", "list_use", "listing",
           "model_names", "stack_lists"]

Use = Literal["inference", "training"]

_ADAPTED, _UNADAPTED, _MOE = "migration_weeks_adapted", "migration_weeks_unadapted", "migration_weeks_moe_multimodal"


class AdaptedList(BaseModel):
    """Whether the model is on one of a stack's adapted-model lists (a row of `migrate check`'s report)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    stack: str
    name: str
    name_zh: str | None = Field(None, description="the list's name in Chinese (zh output), as the catalog's name_zh")
    use: Literal["inference", "training", "both"] = "both"
    listed: bool | None = Field(description="None when the catalog has no adapted list for the stack")
    source: str | None = None
    matched: str | None = Field(None, description="the list's entry the model was found as (a config.json: a preset's)")


def list_use(task: str) -> Use:
    """The adapted lists a task is looked up in: serving (`inference`) or training (full, lora, qlora, pretrain)."""
    return "inference" if task == "inference" else "training"


_EXPERT_KEYS = ("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts")


def complex_arch(m: Any, cfg: Mapping[str, Any] | None = None) -> bool:
    """MoE, multimodal or diffusion: the stack's longer range applies (seed-003). `m` the catalog model (None where
    a config could not be read as one); `cfg` the transformers config where there is one (`migrate check` traces
    it): experts (`num_experts` and kin above 1) or a vision/audio tower count too."""
    if m is not None and (getattr(m, "moe", None) is not None or getattr(m, "kind", None) == "diffusion"):
        return True
    cfg = cfg or {}
    return any(isinstance(cfg.get(k), int) and cfg[k] > 1 for k in _EXPERT_KEYS) or (
        "vision_config" in cfg or "audio_config" in cfg)


def checkpoint_uses(m: Any, cat: Any) -> list[Any]:
    """The library a model's released checkpoint needs by itself (`migrate.libraries.from_checkpoint`): a preset whose
    weights ship in a dtype with no NPU kernel (ModelArch.native_dtype: FP8) uses it as a conversion (status convert,
    not a port), with the source of that fact (the preset's config.json source, as a URL where the catalog has one).
    `m` None or without a native dtype: none."""
    from suanli.migrate.libraries import from_checkpoint

    if m is None or getattr(m, "native_dtype", None) is None:
        return []
    sources = getattr(cat, "sources", None) or {}
    src = sources.get(m.source) if m.source else None
    return from_checkpoint(m.id, m.native_dtype, (src.url or m.source) if src is not None else m.source)


def model_names(m: Any) -> tuple[str, ...]:
    """The names a catalog model is looked up by: its id and aliases; a config.json model (`source` user-config) by
    its aliases alone — the presets it is by architecture and dimensions (`migrate.identity`), never its file's name."""
    own = () if getattr(m, "source", None) == "user-config" else (m.id,)
    return (*own, *m.aliases)


def _keys(name: str) -> set[str]:
    from suanli.catalog.lookup import normalize

    k = normalize(name)
    return {k, k.rsplit("/", 1)[1]} if "/" in k else {k}


def stack_lists(stack: Any, names: Iterable[str]) -> list[AdaptedList]:
    """One row per adapted list of `stack` saying whether any of `names` is on it: each of its `adapted_lists`
    (vLLM-Ascend, MindSpeed-LLM, MindIE, ...), else one row for the union `adapted_models`, else one row with
    listed None (the vendor publishes no list). No names (a config.json matched to no preset) is on no list."""
    mine: set[str] = set().union(*(_keys(n) for n in names if n.strip()))

    def found(models: Iterable[str]) -> str | None:
        return next((x for x in models if _keys(x) & mine), None)

    lists = tuple(getattr(stack, "adapted_lists", ()) or ())
    if lists:
        out = []
        for lst in lists:
            hit = found(lst.models.value)
            out.append(AdaptedList(stack=stack.id, name=lst.name, name_zh=lst.name_zh, use=lst.use,
                                   listed=hit is not None, source=lst.models.source, matched=hit))
        return out
    models = tuple(getattr(stack, "adapted_models", ()) or ())
    hit = found(models)
    return [AdaptedList(stack=stack.id, name=stack.name, name_zh=getattr(stack, "name_zh", None),
                        listed=(hit is not None) if models else None, source=getattr(stack, "adapted_source", None),
                        matched=hit)]


@dataclass(frozen=True)
class Listing:
    """Whether the model is on the adapted lists consulted for the task, and which lists those were."""

    listed: bool | None  # None: no list says (the vendor publishes none, or none was looked up)
    lists: tuple[AdaptedList, ...]  # the lists consulted: the task's, else all there are
    use: Use | None  # the task the consulted lists are for; None when they are not split by use


def listing(rows: Sequence[AdaptedList], task: str) -> Listing:
    """The one rule for "is the model on the adapted list": the lists for the task (`list_use`, or those for both
    uses); a stack with no list for the task is looked up in all it has."""
    want = list_use(task)
    relevant = tuple(a for a in rows if a.use in (want, "both")) or tuple(rows)
    listed = True if any(a.listed for a in relevant) else (
        None if all(a.listed is None for a in relevant) else False)
    uses = {a.use for a in relevant}
    use: Use | None = "inference" if uses == {"inference"} else "training" if uses == {"training"} else None
    return Listing(listed=listed, lists=relevant, use=use)


@dataclass(frozen=True)
class Effort:
    """Calendar weeks (None: unknown) and why; `field`/`source`: the stacks.yaml range(s) charged and their sources
    (None for CUDA and unknown effort)."""

    weeks: tuple[float, float] | None
    why: Message
    field: str | None = None
    source: str | None = None


def _list_message(stack: Any, lst: Listing) -> Message:
    name = both(stack.name, getattr(stack, "name_zh", None))
    if lst.use is None or not lst.lists:
        return Message("migration.list.union", stack=name)
    en = ", ".join(a.name for a in lst.lists)
    zh = "、".join(a.name_zh or a.name for a in lst.lists)
    return Message("migration.list.one" if len(lst.lists) == 1 else "migration.list.many", stack=name,
                   use=Message("migration.use.inference") if lst.use == "inference" else Message("migration.use.training"),
                   names={"en": en, "zh": zh} if zh != en else en)


def effort(stack: Any, lst: Listing, *, complex_arch: bool, has_fallback: bool = False,
           blocking_libraries: Sequence[str] = (), ops_missing: bool | None = None,
           unknown_libraries: Sequence[str] = ()) -> Effort:
    """The weeks the engineers take to move the model onto `stack` (see the module's rule). `lst`: `listing`'s
    answer for the task; `complex_arch`: MoE or multimodal (or diffusion); `has_fallback`: the trace found
    CPU-fallback operators (migrate check only); `blocking_libraries`: libraries with no NPU build the model uses;
    `ops_missing` False: a trace found every operator covered and no library to port, so an unlisted model's range
    is worded as the price of being off the list; `unknown_libraries`: libraries the catalog has no Ascend source
    for (`LibraryUse.unknown`): the range is the one without them, and the reason says it assumes they run."""
    if stack.id == "cuda":
        return Effort((0.0, 0.0), Message("migration.cuda"))
    name = both(stack.name, getattr(stack, "name_zh", None))
    ports = tuple(dict.fromkeys(blocking_libraries))
    unknown = ", ".join(dict.fromkeys(unknown_libraries))
    publishes = bool(getattr(stack, "adapted_models", ()) or getattr(stack, "adapted_lists", ()))
    moe = getattr(stack, _MOE, None)
    off_list = _MOE if complex_arch and moe is not None else _UNADAPTED
    why: Message | None = None
    if lst.listed and not has_fallback and not ports:
        field = _ADAPTED
    elif not publishes:
        field = off_list
    else:
        field, where = off_list, _list_message(stack, lst)
        if lst.listed and has_fallback:
            why = Message("migration.adapted_fallback", list=where)
        elif lst.listed:
            why = Message("migration.adapted_libraries", list=where, libs=", ".join(ports))
        elif field == _MOE:
            why = Message("migration.moe_not_adapted", list=where)
        elif ops_missing is False and unknown:  # the off-list range already; not "no library missing"
            why = Message("migration.not_adapted_unknown", list=where, libs=unknown)
        elif ops_missing is False:
            why = Message("migration.not_adapted_covered", list=where)
        else:
            why = Message("migration.not_adapted", list=where)
    rng = getattr(stack, field, None)
    if rng is None:
        return Effort(None, Message("migration.no_data", stack=name, key=field))
    c = rng.chosen
    lo, hi = (float(x) for x in c.value)
    if field == _ADAPTED:
        where = _list_message(stack, lst)
        if complex_arch and moe is not None:
            moe_lo, moe_hi = (float(x) for x in moe.chosen.value)
            span = Message("migration.adapted_moe", list=where, adapted_hi=hi, moe_lo=moe_lo, moe_hi=moe_hi)
            return Effort((lo, max(hi, moe_hi)), Message("migration.unknown_libraries", why=span, libs=unknown)
                          if unknown else span, f"{_ADAPTED} … {_MOE}", f"{c.source}, {moe.chosen.source}")
        why = Message("migration.adapted", list=where)
    elif not publishes:
        # the vendor publishes no adapted-model list (DTK, Neuware, MACA, XPU, MUSA): not "off the list", and the
        # range is the catalog's own for the stack, said with its source (assumed there, with why: stacks.yaml note)
        why = Message("migration.no_list_assumed" if c.source == "assumed" else "migration.no_list",
                      stack=name, source=c.source, note=both(c.note or "", c.note_zh))
    assert why is not None
    if unknown and field == _ADAPTED:  # the adapted range holds only if the unknown library runs
        why = Message("migration.unknown_libraries", why=why, libs=unknown)
    return Effort((lo, hi), why, field, c.source)
