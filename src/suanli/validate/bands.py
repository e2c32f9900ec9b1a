"""The validated error bands that `suanli validate --write` stores and every estimate quotes."""

from __future__ import annotations

import functools
from pathlib import Path

from suanli.catalog.load import cached_yaml
from suanli.catalog.schema import Catalog
from suanli.estimate.estimate import LORA_TASKS, ErrorBand

__all__ = ["BANDS_PATH", "out_of_sample_case_ids", "packaged_error_bands", "write_error_bands"]

BANDS_PATH = Path(__file__).resolve().parent.parent / "data" / "validation" / "error_bands.yaml"


@functools.cache
def packaged_error_bands(path: Path = BANDS_PATH) -> dict[str, ErrorBand]:
    if not path.is_file():
        return {}
    raw = cached_yaml(path) or {}  # every `suanli estimate` quotes them: kept as JSON, PyYAML not imported
    return {g: ErrorBand(group=g, **v) for g, v in (raw.get("groups") or {}).items()}


def write_error_bands(bands: dict[str, ErrorBand], command: str, path: Path = BANDS_PATH) -> None:
    doc = {
        "generated_by": command,
        # per-stack fields only where set: the group bands keep their four keys
        "groups": {g: b.model_dump(exclude={"group", "on_stack", "on_stack_moe", "on_stack_lora", *(k for k in ("stack", "median_signed_pct")
                                                                     if getattr(b, k) is None)})
                   for g, b in sorted(bands.items())},
    }
    import yaml

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    tmp.replace(path)


def out_of_sample_case_ids(cat: Catalog, stack: str, group: str, moe: bool = False,
                           directory: Path = BANDS_PATH.parent, lora: bool = False) -> tuple[str, ...]:
    """The ids of the out-of-sample (`holdout: true`) cases of `group` on `stack` in the packaged case files (an MoE
    model: only those of MoE presets; `lora`: only LoRA/QLoRA cases, `estimate.LORA_TASKS`), read without running
    them: what a `stack:<stack>:<group>` band (`:moe`, `:lora`) counts, where
    every such case ran (`migrate cost` names them beside the band's figure; it checks their number against the
    band's). Cases on a CPU, or naming a device the catalog lacks, are left out."""
    from suanli.catalog import lookup
    from suanli.errors import NotFoundError

    out: list[str] = []
    for path in sorted(directory.glob("*.yaml")):
        if path.name == BANDS_PATH.name:
            continue
        for c in (cached_yaml(path) or {}).get("cases") or []:
            if not c.get("holdout") or c.get("group") != group or c.get("device", "cpu") == "cpu":
                continue
            if lora and c.get("task") not in LORA_TASKS:
                continue
            try:
                if lookup.accelerator(cat, c["device"]).stack != stack:
                    continue
                if moe and (c.get("config") or lookup.model(cat, c["model"]).moe is None):
                    continue
            except (NotFoundError, KeyError):
                continue
            out.append(str(c["id"]))
    return tuple(out)
