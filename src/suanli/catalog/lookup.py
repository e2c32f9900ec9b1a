"""Find things in a `Catalog` by name: canonical ids, aliases, case-insensitive, did-you-mean on a miss."""

from __future__ import annotations

import re
import unicodedata

from suanli.catalog.schema import Accelerator, Catalog, ModelArch, Offer, SoftwareStack
from suanli.errors import NotFoundError

__all__ = [
    "VENDOR_ALIASES",
    "accelerator",
    "checkpoint_id",
    "compact",
    "model",
    "normalize",
    "offers_for",
    "stack",
    "variants",
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
    raise NotFoundError("gpu", name, [n for a in catalog.accelerators for n in (a.id, *a.aliases)],
                        [a.id for a in catalog.accelerators])


def vendor(catalog: Catalog, name: str) -> str:
    """The catalog's vendor id for what a user typed: 'nvidia', 'NVIDIA', '华为', '摩尔线程', 'Moore Threads'."""
    known = sorted({a.vendor for a in catalog.accelerators})
    key = compact(name)
    for v in known:
        if compact(v) == key:
            return v
    hit = next((v for k, v in VENDOR_ALIASES.items() if compact(k) == key), None)
    if hit is not None and hit in known:
        return hit
    raise NotFoundError("vendor", name, [*known, *(k for k, v in VENDOR_ALIASES.items() if v in known)], known)


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
    raise NotFoundError("model", name, [n for m in catalog.models for n in (m.id, *m.aliases)],
                        [m.id for m in catalog.models])


_TRAINING_TASKS = ("pretrain", "full", "lora", "qlora")


def checkpoint_id(m: ModelArch, task: str, asked: str | None = None) -> str:
    """The Hugging Face id a job downloads: training (pretrain, full, lora, qlora) starts from the pre-trained base
    checkpoint (`base_id`) of an instruction-tuned preset, same architecture; inference serves the preset's own id.
    A name asked for that is the tuned checkpoint's own (`asked` with an "instruct" or "chat" word: qwen2.5-7b-instruct,
    glm-4-9b-chat; not chatglm3-6b) keeps it."""
    if m.base_id is None or task not in _TRAINING_TASKS:
        return m.id
    if asked is not None and re.search(r"(^|[-/.])(instruct|chat)($|[-/.])", normalize(asked)):
        return m.id
    return m.base_id


def stack(catalog: Catalog, stack_id: str) -> SoftwareStack:
    for s in catalog.stacks:
        if s.id == normalize(stack_id):
            return s
    raise NotFoundError("stack", stack_id, [s.id for s in catalog.stacks])


def variants(catalog: Catalog, acc: Accelerator) -> list[Accelerator]:
    """The family members of `acc`: its parent and siblings (e.g. 910B1–B4), itself excluded."""
    root = acc.variant_of or acc.id
    return [
        a for a in catalog.accelerators
        if a.id != acc.id and (a.id == root or a.variant_of == root)
    ]


def offers_for(catalog: Catalog, device_id: str) -> list[Offer]:
    return [o for o in catalog.offers if o.device == device_id]
