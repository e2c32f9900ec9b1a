"""Find things in a `Catalog` by name: canonical ids, aliases, case-insensitive, did-you-mean on a miss."""

from __future__ import annotations

import re

from suanli.catalog.schema import Accelerator, Catalog, ModelArch, Offer, SoftwareStack
from suanli.errors import NotFoundError

__all__ = [
    "accelerator",
    "model",
    "normalize",
    "offers_for",
    "stack",
    "variants",
]


def normalize(name: str) -> str:
    """'NVIDIA H100 SXM' -> 'nvidia-h100-sxm'; case, spaces and underscores do not matter."""
    return re.sub(r"[\s_]+", "-", name.strip().lower())


def _names(a: Accelerator) -> list[str]:
    return [a.id, *a.aliases, a.name]


def accelerator(catalog: Catalog, name: str) -> Accelerator:
    key = normalize(name)
    for a in catalog.accelerators:
        if key in {normalize(n) for n in _names(a)}:
            return a
    raise NotFoundError("gpu", name, [n for a in catalog.accelerators for n in (a.id, *a.aliases)])


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
    raise NotFoundError("model", name, [n for m in catalog.models for n in (m.id, *m.aliases)])


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
