"""Find things in a `Catalog` by name: canonical ids, aliases, case-insensitive, did-you-mean on a miss."""

from __future__ import annotations

import re
import unicodedata

from suanli.catalog.schema import Accelerator, Catalog, ModelArch, Offer, SoftwareStack
from suanli.errors import NotFoundError, did_you_mean

__all__ = [
    "VENDOR_ALIASES",
    "accelerator",
    "checkpoint_id",
    "compact",
    "context_of",
    "family_ids",
    "model",
    "normalize",
    "offers_for",
    "stack",
    "variants",
    "variants_of",
    "vendor",
]

# What people type for a vendor → the catalog's vendor id (Chinese names, brands, spaced or not).
VENDOR_ALIASES: dict[str, str] = {
    "nvidia": "nvidia", "英伟达": "nvidia", "辉达": "nvidia", "nv": "nvidia", "geforce": "nvidia",
    "huawei": "huawei", "华为": "huawei", "ascend": "huawei", "昇腾": "huawei",
    "hygon": "hygon", "海光": "hygon", "dcu": "hygon",
    "cambricon": "cambricon", "寒武纪": "cambricon", "思元": "cambricon",
    "metax": "metax", "沐曦": "metax", "曦云": "metax",
    "moore-threads": "moore-threads", "moorethreads": "moore-threads", "mthreads": "moore-threads",
    "摩尔线程": "moore-threads", "mtt": "moore-threads",
    "kunlunxin": "kunlunxin", "kunlun": "kunlunxin", "昆仑芯": "kunlunxin", "昆仑": "kunlunxin",
    "baidu": "kunlunxin", "百度": "kunlunxin",
}
# company names that may precede a device name ("英伟达H100", "NVIDIA RTX 4090", "华为昇腾910B")
_COMPANY_PREFIXES = ("nvidia", "英伟达", "辉达", "huawei", "华为", "hygon", "海光", "cambricon", "寒武纪",
                     "metax", "沐曦", "moorethreads", "摩尔线程", "kunlunxin", "昆仑芯", "百度")


def normalize(name: str) -> str:
    """'NVIDIA H100 SXM' -> 'nvidia-h100-sxm'; case, spaces and underscores do not matter."""
    return re.sub(r"[\s_]+", "-", name.strip().lower())


def compact(name: str) -> str:
    """'RTX 4090 D' -> 'rtx4090d': case, spaces, hyphens, underscores and full-width forms do not matter."""
    return re.sub(r"[\s_\-\u3000·]+", "", unicodedata.normalize("NFKC", name).strip().lower())


def _names(a: Accelerator) -> list[str]:
    return [a.id, *a.aliases, a.name]


def _without_company(key: str) -> str:
    for p in _COMPANY_PREFIXES:
        if key.startswith(p) and len(key) > len(p):
            return key[len(p):]
    return key


def accelerator(catalog: Catalog, name: str) -> Accelerator:
    """By id, alias or full name, spelled as people type them: 'rtx4090', '4090 D', '英伟达H100',
    'NVIDIA H100', '华为昇腾910B' — case, spacing and a leading company name do not matter."""
    key = normalize(name)
    for a in catalog.accelerators:
        if key in {normalize(n) for n in _names(a)}:
            return a
    tight = compact(name)
    for k in (tight, _without_company(tight)):
        for a in catalog.accelerators:
            if k in {compact(n) for n in _names(a)}:
                return a
    to_id = {n: a.id for a in catalog.accelerators for n in (a.id, *a.aliases)}  # an alias suggests its device's id
    raise NotFoundError("gpu", name, list(to_id), [a.id for a in catalog.accelerators], _vendor_devices(catalog, tight),
                        to_id)


def _vendor_devices(catalog: Catalog, key: str) -> list[str]:
    """A vendor's name typed for a device ('华为', 'NVIDIA', 'cambricon'): that vendor's devices (families first, at
    most 8) to suggest; none for anything else."""
    keys = {key, _without_company(key)}  # '华为昇腾': 昇腾
    v = next((v for k, v in VENDOR_ALIASES.items() if compact(k) in keys), key)
    mine = [a for a in catalog.accelerators if a.vendor == v]
    return [a.id for a in sorted(mine, key=lambda a: (a.variant_of is not None, a.id))][:8]


def vendor(catalog: Catalog, name: str, field: str = "vendor") -> str:
    """The catalog's vendor id for what a user typed: 'nvidia', 'NVIDIA', '华为', '摩尔线程', 'Moore Threads'.
    Unknown: NotFoundError naming `field` (the input that held the name), with the closest vendors."""
    known = sorted({a.vendor for a in catalog.accelerators})
    key = compact(name)
    for v in known:
        if compact(v) == key:
            return v
    hit = next((v for k, v in VENDOR_ALIASES.items() if compact(k) == key), None)
    if hit is not None and hit in known:
        return hit
    to_id: dict[str, str] = {**{v: v for v in known}, **{k: v for k, v in VENDOR_ALIASES.items() if v in known}}
    # a vendor is a company name: a typo of one keeps most of its letters ('nvida', 'hauwei': ratio 0.8 and more);
    # a name two letters alike is another company ('amd' and 'baidu', 0.5, suggested kunlunxin: buyer review C, F11),
    # so below 0.75 the known vendors are listed instead
    close = did_you_mean(name, list(to_id), ids=to_id, cutoff=0.75)
    raise NotFoundError(field, name, list(to_id) if close else [], known, near=close, ids=to_id, kind="vendor")


def _model_keys(m: ModelArch) -> set[str]:
    keys = {normalize(m.id), *(normalize(a) for a in m.aliases)}
    if "/" in m.id:
        keys.add(normalize(m.id.split("/", 1)[1]))
    return keys


def model(catalog: Catalog, name: str) -> ModelArch:
    """By Hugging Face id or alias, case-insensitive, organisation optional."""
    key = normalize(name)
    bare = key.split("/", 1)[1] if "/" in key else key
    for m in catalog.models:
        keys = _model_keys(m)
        if key in keys or bare in keys:
            return m
    to_id = {n: m.id for m in catalog.models for n in (m.id, *m.aliases)}  # an alias suggests its model's id
    raise NotFoundError("model", name, list(to_id), [m.id for m in catalog.models], ids=to_id)


_TRAINING_TASKS = ("pretrain", "full", "lora", "qlora")
# a name that is the tuned checkpoint's own: an "instruct", "chat" or "it" word (qwen2.5-7b-instruct, glm-4-9b-chat,
# llama-2-7b-chat, gemma-2b-it); not chatglm3-6b, whose "chat" is part of the family's name
_TUNED_WORD = re.compile(r"(^|[-/.])(instruct|chat|it)($|[-/.])")


def _typed_hf_id(m: ModelArch, asked: str) -> str | None:
    """The catalog's spelling of a full Hugging Face id (organisation/name) typed as the preset's id or one of its
    aliases; None for a short name, a config.json path or an organisation the preset does not name."""
    if "/" not in asked:
        return None
    key = normalize(asked)
    return next((n for n in (m.id, *m.aliases) if "/" in n and normalize(n) == key), None)


def checkpoint_id(m: ModelArch, task: str, asked: str | None = None) -> str:
    """The Hugging Face id a job downloads. Training (pretrain, full, lora, qlora) starts from the pre-trained base
    checkpoint, serving (inference) loads the instruction-tuned one, same architecture: a preset whose id is the tuned
    checkpoint names its base in `base_id` (Qwen2.5-7B-Instruct -> Qwen2.5-7B), one whose id is the base names its
    tuned checkpoint in `instruct_id` (Llama-3.1-8B -> Llama-3.1-8B-Instruct); a preset with neither is both.
    What was asked for overrides the task: a full Hugging Face id typed (meta-llama/Llama-3.1-8B, Qwen/Qwen3-8B-Base)
    is the checkpoint, as typed; a short name with an "instruct", "chat" or "it" word (qwen2.5-7b-instruct,
    llama-3.1-8b-instruct, gemma-2b-it) is the tuned one for every task."""
    if asked is not None:
        typed = _typed_hf_id(m, asked)
        if typed is not None:
            return typed
        if _TUNED_WORD.search(normalize(asked)):
            return m.instruct_id or m.id
    if task in _TRAINING_TASKS:
        return m.base_id or m.id
    return m.instruct_id or m.id


def context_of(m: ModelArch, task: str, asked: str | None = None) -> int | None:
    """The context (max_position_embeddings) of the checkpoint the job downloads (`checkpoint_id`): the base's
    `base_max_context` where the job trains the base and its config.json sets another (Qwen2.5-72B 131072, its
    -Instruct 32768), else `max_context`."""
    if m.base_id is not None and m.base_max_context is not None and checkpoint_id(m, task, asked) == m.base_id:
        return m.base_max_context
    return m.max_context


def stack(catalog: Catalog, name: str, field: str = "stack") -> SoftwareStack:
    """A software stack by id or name as people type them: 'cann', 'CANN', 'Huawei Ascend CANN', '华为昇腾 CANN'
    (case, spaces, hyphens and full-width forms do not matter, as for devices and vendors), or its vendor's name
    where the vendor has that one stack ('昇腾', 'Ascend', '华为': cann). Unknown: NotFoundError naming `field`
    (the input that held the name), with the closest stacks."""
    key = normalize(name)
    for s in catalog.stacks:
        if s.id == key:
            return s
    tight = compact(name)
    for s in catalog.stacks:
        if tight in {compact(n) for n in (s.id, s.name, s.name_zh) if n}:
            return s
    v = next((v for k, v in VENDOR_ALIASES.items() if compact(k) == tight), None)
    theirs = [s for s in catalog.stacks if v is not None and s.vendor == v]
    if len(theirs) == 1:
        return theirs[0]
    to_id = {n: s.id for s in catalog.stacks for n in (s.id, s.name, s.name_zh) if n}  # a name suggests its id
    raise NotFoundError(field, name, list(to_id), [s.id for s in catalog.stacks], ids=to_id, kind="stack")


def variants(catalog: Catalog, acc: Accelerator) -> list[Accelerator]:
    """The family members of `acc`: its parent and siblings (e.g. 910B1–B4), itself excluded."""
    root = acc.variant_of or acc.id
    return [
        a for a in catalog.accelerators
        if a.id != acc.id and (a.id == root or a.variant_of == root)
    ]


def variants_of(catalog: Catalog, device_id: str) -> list[Accelerator]:
    """The catalog's variants of a generic device (`variant_of: <device_id>`: ascend-910b1 … 910b4 of ascend-910b);
    none for a variant or a device without any."""
    return [a for a in catalog.accelerators if a.variant_of == device_id]


def family_ids(catalog: Catalog, device_id: str) -> tuple[str, ...]:
    """What a buyer asking for `device_id` means when listing offers: the device and, for a generic one, its
    variants (910b: ascend-910b, then ascend-910b1 … 910b4, whose offers name the variant); a variant (910b3) is
    itself alone."""
    return (device_id, *(a.id for a in variants_of(catalog, device_id)))


def offers_for(catalog: Catalog, device_id: str) -> list[Offer]:
    return [o for o in catalog.offers if o.device == device_id]
