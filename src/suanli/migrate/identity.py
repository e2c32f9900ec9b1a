"""Which catalog preset a Hugging Face config.json is, for the Ascend adapted lists (pure: no I/O, no torch).

The adapted lists in the catalog (stacks.yaml `adapted_lists`: vLLM-Ascend, MindSpeed-LLM, MindIE-LLM) name
checkpoints by Hugging Face id, not families (vLLM-Ascend's family rows are expanded to their checkpoints there),
so a config is put on a list only through a preset with the same shapes: the same transformers class (the
equivalent class `hf_config.from_hf_config` gives, so remote-code Qwen-1 meets the Qwen-1 presets) and the same
dimensions (hidden size, layers, attention and KV heads, FFN width, vocabulary, MoE experts, top-k, shared experts,
expert width). The file's path never counts: a fine-tune saved in `ft/` is the model it was trained from.

Several presets can share every dimension (Qwen2-7B, Qwen2.5-7B, Qwen2.5-Coder-7B and DeepSeek-R1-Distill-Qwen-7B);
a config cannot tell them apart, so all are named and a list that names any of them counts (the catalog's lists
already count a post-trained variant of a listed base as listed: stacks.yaml, MindSpeed-LLM list note). The
config's `_name_or_path`, where present, is a hint only: it picks one of those presets when it names one, and a
preset it names whose dimensions differ is never matched.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from suanli.catalog.schema import ModelArch
from suanli.i18n import Message

__all__ = ["DIMENSIONS", "ListIdentity", "dimension_key", "identify_config", "identify_preset", "preset_name"]

# the fields compared, in the order a mismatch is named (ModelArch / MoEConfig names)
DIMENSIONS: tuple[str, ...] = (
    "hf_architecture", "hidden_size", "num_layers", "num_attention_heads", "num_key_value_heads",
    "intermediate_size", "vocab_size", "moe.num_experts", "moe.top_k", "moe.num_shared_experts",
    "moe.expert_intermediate_size",
)


@dataclass(frozen=True)
class ListIdentity:
    """The names a model is looked up by on the adapted lists, and why (`message`, shown by migrate check)."""

    names: tuple[str, ...]
    basis: str  # preset | dimensions | dimensions+hint | no-match | unreadable
    message: Message
    preset: str | None = None  # the one preset matched (unique, or picked by the hint); None when none or several
    presets: tuple[str, ...] = field(default_factory=tuple)  # every preset with the same architecture and dimensions

    def to_json(self) -> dict[str, Any]:
        from suanli.i18n import render

        return {"basis": self.basis, "preset": self.preset, "presets": list(self.presets),
                "text": render(self.message)}


def _value(m: ModelArch, name: str) -> Any:
    if name.startswith("moe."):
        return getattr(m.moe, name[4:]) if m.moe is not None else None
    if name == "num_key_value_heads":
        return m.num_key_value_heads or m.num_attention_heads  # None in a preset means one KV head per head (MHA)
    return getattr(m, name)


def dimension_key(m: ModelArch) -> tuple[Any, ...]:
    """What identifies a family member: the transformers class and the shapes (`DIMENSIONS`)."""
    return tuple(_value(m, n) for n in DIMENSIONS)


def preset_name(m: ModelArch) -> str:
    """The short name people type for a preset (its first alias, e.g. qwen2.5-7b), else its id."""
    return m.aliases[0] if m.aliases else m.id


def _keys(name: str) -> set[str]:
    from suanli.catalog.lookup import normalize

    k = normalize(name)
    return {k, k.rsplit("/", 1)[1]} if "/" in k else {k}


def _hint(cfg: Mapping[str, Any]) -> str | None:
    """`_name_or_path` as transformers' save_pretrained writes it: a Hub id, or a local folder (its last part)."""
    given = cfg.get("_name_or_path")
    if not isinstance(given, str) or not given.strip().rstrip("/\\"):
        return None
    given = given.strip().rstrip("/\\").replace("\\", "/")
    local = given.startswith(("/", ".", "~")) or given.count("/") > 1
    return given.rsplit("/", 1)[-1] if local else given


def _architecture(cfg: Mapping[str, Any], arch: ModelArch | None) -> str:
    archs = cfg.get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        return archs[0]
    return str(cfg.get("model_type") or (arch.hf_architecture if arch else "") or "?")


def _names_of(presets: Iterable[ModelArch]) -> tuple[str, ...]:
    return tuple(n for p in presets for n in (p.id, *p.aliases))


def identify_preset(m: ModelArch) -> ListIdentity:
    """A catalog preset is looked up by its own id and aliases."""
    return ListIdentity(names=(m.id, *m.aliases), basis="preset", preset=preset_name(m), presets=(preset_name(m),),
                        message=Message("mig.match.preset", preset=preset_name(m)))


def identify_config(models: Iterable[ModelArch], arch: ModelArch | None, cfg: Mapping[str, Any]) -> ListIdentity:
    """The presets among `models` (the catalog's) that a config.json is, by what the file says.

    `arch` is the config read by `hf_config.from_hf_config` (None when it could not be read)."""
    if arch is None:
        return ListIdentity(names=(), basis="unreadable", message=Message("mig.match.unreadable"))
    presets = [p for p in models if p.kind == "llm"]
    key = dimension_key(arch)
    twins = [p for p in presets if dimension_key(p) == key]
    architecture = _architecture(cfg, arch)
    hint = _hint(cfg)
    hinted = [p for p in presets if hint and _keys(hint) & set().union(*(_keys(n) for n in (p.id, *p.aliases)))]
    notes: list[Message] = []
    for p in hinted:
        if p not in twins:  # the name says one thing, the shapes another: the shapes win
            differ = [n for n in DIMENSIONS if _value(p, n) != _value(arch, n)]
            notes.append(Message("mig.match.hint_contradicted", hint=hint, preset=preset_name(p),
                                 fields=", ".join(f"{n} {_value(arch, n)} ≠ {_value(p, n)}" for n in differ)))
    picked = [p for p in hinted if p in twins]
    if not twins:
        msg = Message("mig.match.none", arch=architecture)
        return ListIdentity(names=(), basis="no-match", message=_join(msg, notes))
    if picked:
        chosen = picked[0]
        msg = Message("mig.match.hint", preset=preset_name(chosen), arch=architecture, hint=hint)
        return ListIdentity(names=_names_of([chosen]), basis="dimensions+hint", preset=preset_name(chosen),
                            presets=tuple(preset_name(p) for p in twins), message=_join(msg, notes))
    if len(twins) == 1:
        msg = Message("mig.match.dims", preset=preset_name(twins[0]), arch=architecture)
        return ListIdentity(names=_names_of(twins), basis="dimensions", preset=preset_name(twins[0]),
                            presets=(preset_name(twins[0]),), message=_join(msg, notes))
    msg = Message("mig.match.twins", presets=", ".join(preset_name(p) for p in twins), arch=architecture)
    return ListIdentity(names=_names_of(twins), basis="dimensions", presets=tuple(preset_name(p) for p in twins),
                        message=_join(msg, notes))


def _join(msg: Message, notes: list[Message]) -> Message:
    """The match with the first contradicted hint (a hint names one preset: ids and aliases are unique)."""
    return Message("mig.match.with_note", match=msg, note=notes[0]) if notes else msg
