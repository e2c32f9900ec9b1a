"""The validated error bands that `suanli validate --write` stores and every estimate quotes."""

from __future__ import annotations

import functools
from pathlib import Path

from suanli.catalog.load import cached_yaml
from suanli.estimate.estimate import ErrorBand

__all__ = ["BANDS_PATH", "packaged_error_bands", "write_error_bands"]

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
        "groups": {g: b.model_dump(exclude={"group", "on_stack", "on_stack_moe", *(k for k in ("stack", "median_signed_pct")
                                                                     if getattr(b, k) is None)})
                   for g, b in sorted(bands.items())},
    }
    import yaml

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    tmp.replace(path)
