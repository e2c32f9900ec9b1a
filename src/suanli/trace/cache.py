"""A trace result kept on disk, so a second `suanli migrate check` of the same model skips torch altogether.

Building a model on the meta device and tracing it takes seconds (buyer review 2026-12-01: 6–8 s per check,
~2.6 s building, ~2.2 s tracing, the rest importing torch and transformers); the recorded operators depend only
on the config, the task, the operators the target keeps whole (the torch_npu op list), the installed torch and
transformers, and suanli's tracer. The key (`trace_key`) holds all of these, and also what decides an entry's
shape: the cache format (`TRACE_CACHE_FORMAT`, raised by hand when the entry layout changes), a hash of
`OpTrace`'s JSON schema (a field added to `OpTrace`, even one with a default, makes old entries miss instead of
being served with the default filled in) and a hash of the code the trace comes from (`suanli/trace/ops.py`,
`suanli/trace/__init__.py` and `suanli/migrate/coverage.py`, where `OpTrace` lives). `suanli.__version__` alone
is not enough: it stays the same across source edits. The result is written as JSON to
`$SUANLI_HOME/cache/trace-<request>-<key>.json` (request = a hash of what was asked: config, model name, task, op
list, kept-whole operators; key = a hash of the whole key), atomically (a temporary file renamed over the entry);
an entry that cannot be read, does not validate or was written for another key is ignored and traced again.
Writing an entry deletes the other entries of the same request (written under older versions, tracer or schema:
they can never be read again), entries named in the old one-hash layout, and, past `MAX_ENTRIES`, the oldest.
`SUANLI_NO_CACHE=1` turns the cache off.

Stdlib and pydantic only: no torch import here (reading a hit must stay cheap).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from suanli import __version__
from suanli.migrate.coverage import OpTrace

__all__ = ["MAX_ENTRIES", "TRACE_CACHE_FORMAT", "cache_dir", "cached_trace", "trace_key"]

TRACE_CACHE_FORMAT = 2  # 1: the unversioned entries of trace-<24 hex>.json; 2: format and schema hash in the key
MAX_ENTRIES = 64  # trace entries kept in the folder (a few kB each); the oldest beyond this are deleted

_HERE = Path(__file__).resolve().parent
_TRACER_FILES = (_HERE / "ops.py", _HERE / "__init__.py", _HERE.parent / "migrate" / "coverage.py")
_REQUEST_FIELDS = ("config_sha256", "name", "task", "torch_npu_op_list", "keep_whole_sha256")
_LEGACY = re.compile(r"trace-[0-9a-f]{24}\.json")


def cache_dir() -> Path:
    """`$SUANLI_HOME/cache` (the catalog cache's folder, `suanli.catalog.load`)."""
    home = os.environ.get("SUANLI_HOME")
    return (Path(home) if home else Path.home() / ".local" / "share" / "suanli") / "cache"


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _tracer_sha256() -> str:
    """The tracing code and `OpTrace`'s module, file by file (a missing file hashes as its name alone)."""
    h = hashlib.sha256()
    for f in _TRACER_FILES:
        h.update(f.name.encode("utf-8") + b"\0")
        if f.is_file():
            h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def _schema_sha256() -> str:
    schema = json.dumps(OpTrace.model_json_schema(), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(schema.encode("utf-8")).hexdigest()


def trace_key(hf_config: dict[str, Any], *, name: str, task: str, op_list_version: str,
              keep_whole: Iterable[str]) -> dict[str, Any]:
    """Everything a trace depends on, as plain data: the config's content hash, the task, the op list's version
    and the operators kept whole, torch / transformers / torch_npu versions, suanli's version, the cache format,
    `OpTrace`'s schema and the tracing code."""
    config = json.dumps(hf_config, sort_keys=True, ensure_ascii=False, default=str)
    return {
        "format": TRACE_CACHE_FORMAT,
        "config_sha256": hashlib.sha256(config.encode("utf-8")).hexdigest(),
        "name": name,
        "task": task,
        "torch_npu_op_list": op_list_version,
        "keep_whole_sha256": hashlib.sha256("\n".join(sorted(set(keep_whole))).encode("utf-8")).hexdigest(),
        "torch": _version("torch"),
        "transformers": _version("transformers"),
        "torch_npu": _version("torch_npu"),
        "suanli": __version__,
        "optrace_schema_sha256": _schema_sha256(),
        "tracer_sha256": _tracer_sha256(),
    }


def _digest(doc: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def _path(key: dict[str, Any]) -> Path:
    request = _digest({k: key.get(k) for k in _REQUEST_FIELDS})
    return cache_dir() / f"trace-{request}-{_digest(key)}.json"


def _prune(path: Path) -> None:
    """After writing `path`: delete the same request's other entries, old-layout entries, and the oldest past
    `MAX_ENTRIES`. Best effort: a file that cannot be listed or deleted is left."""
    request = path.name.split("-")[1]
    try:
        entries = [p for p in path.parent.glob("trace-*.json") if p != path]
        stale = [p for p in entries if _LEGACY.fullmatch(p.name) or p.name.startswith(f"trace-{request}-")]
        rest = [p for p in entries if p not in stale]
        if len(rest) + 1 > MAX_ENTRIES:
            rest.sort(key=lambda p: p.stat().st_mtime if p.exists() else 0.0)
            stale += rest[: len(rest) + 1 - MAX_ENTRIES]
    except OSError:
        return
    for p in stale:
        try:
            p.unlink(missing_ok=True)
        except OSError:
            pass


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
        return
    _prune(path)


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
