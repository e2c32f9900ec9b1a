"""A trace result kept on disk, so a second `suanli migrate check` of the same model skips torch altogether.

Building a model on the meta device and tracing it takes seconds (buyer review 2026-12-01: 6–8 s per check,
~2.6 s building, ~2.2 s tracing, the rest importing torch and transformers); the recorded operators depend only
on the config, the task, the operators the target keeps whole (the torch_npu op list), the installed torch and
transformers, and suanli's tracer. The result (`OpTrace`) is written as JSON to
`$SUANLI_HOME/cache/trace-<key>.json`, key = a hash of all of these (`trace_key`), atomically (a temporary file
renamed over the entry); an entry that cannot be read, does not validate or was written for another key is
ignored and traced again. `SUANLI_NO_CACHE=1` turns the cache off.

Stdlib and pydantic only: no torch import here (reading a hit must stay cheap).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from suanli import __version__
from suanli.migrate.coverage import OpTrace

__all__ = ["cache_dir", "cached_trace", "trace_key"]

_TRACER = Path(__file__).resolve().parent / "ops.py"


def cache_dir() -> Path:
    """`$SUANLI_HOME/cache` (the catalog cache's folder, `suanli.catalog.load`)."""
    home = os.environ.get("SUANLI_HOME")
    return (Path(home) if home else Path.home() / ".local" / "share" / "suanli") / "cache"


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def trace_key(hf_config: dict[str, Any], *, name: str, task: str, op_list_version: str,
              keep_whole: Iterable[str]) -> dict[str, Any]:
    """Everything a trace depends on, as plain data: the config's content hash, the task, the op list's version
    and the operators kept whole, torch / transformers / torch_npu versions, suanli's version and tracer code."""
    config = json.dumps(hf_config, sort_keys=True, ensure_ascii=False, default=str)
    return {
        "config_sha256": hashlib.sha256(config.encode("utf-8")).hexdigest(),
        "name": name,
        "task": task,
        "torch_npu_op_list": op_list_version,
        "keep_whole_sha256": hashlib.sha256("\n".join(sorted(set(keep_whole))).encode("utf-8")).hexdigest(),
        "torch": _version("torch"),
        "transformers": _version("transformers"),
        "torch_npu": _version("torch_npu"),
        "suanli": __version__,
        "tracer_sha256": hashlib.sha256(_TRACER.read_bytes()).hexdigest() if _TRACER.is_file() else None,
    }


def _path(key: dict[str, Any]) -> Path:
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode("utf-8")).hexdigest()[:24]
    return cache_dir() / f"trace-{digest}.json"


def _read(path: Path, key: dict[str, Any]) -> OpTrace | None:
    try:
        doc = json.loads(path.read_bytes())
        if not isinstance(doc, dict) or doc.get("key") != key:
            return None
        trace = OpTrace.model_validate(doc["trace"])
        i18n = doc.get("warnings_i18n")
        if not isinstance(i18n, list):
            return None
        return trace.model_copy(update={"warnings_i18n": i18n, "cached": True})
    except (OSError, ValueError, TypeError, KeyError):  # absent, unreadable, not JSON, not a trace
        return None


def _write(path: Path, key: dict[str, Any], trace: OpTrace) -> None:
    """Write atomically: a concurrent reader sees no entry or the whole one; an unwritable cache is ignored."""
    doc = {"key": key, "trace": trace.model_dump(mode="json", exclude={"cached"}),
           "warnings_i18n": list(trace.warnings_i18n)}
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    except (OSError, TypeError, ValueError):
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


def cached_trace(hf_config: dict[str, Any], *, name: str, task: str, op_list_version: str,
                 keep_whole: Iterable[str], trace: Callable[[], OpTrace]) -> OpTrace:
    """The cached trace for this key (`cached=True`), else `trace()`'s result, written to the cache."""
    keep = list(keep_whole)
    if os.environ.get("SUANLI_NO_CACHE"):
        return trace()
    key = trace_key(hf_config, name=name, task=task, op_list_version=op_list_version, keep_whole=keep)
    path = _path(key)
    hit = _read(path, key)
    if hit is not None:
        return hit
    result = trace()
    _write(path, key, result)
    return result
