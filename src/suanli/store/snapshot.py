"""A snapshot of the store's effective catalog for commands that only read it (`suanli plan`, `compare`, …).

Opening the store imports SQLAlchemy and Alembic and checks the schema (≈0.5 s on 2 cores). For a SQLite store a
command can instead read a few numbers with the standard library — the schema revision, the catalog versions and
the newest packaged-catalog sync, the price/source revision that `Store.revision()` also uses — and load the
catalog a previous full open wrote as JSON under `$SUANLI_HOME/cache/`. Any change (an import, a rollback, a migration, new packaged data, new
code) changes the key, and the next command takes the full path and writes a new snapshot. PostgreSQL always
takes the full path."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path
from urllib.parse import unquote

from suanli.catalog.load import _cache_dir, _packaged_key
from suanli.catalog.schema import Catalog

__all__ = ["load_snapshot", "snapshot_key", "write_snapshot"]

_MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"


def _sqlite_path(url: str) -> Path | None:
    """The file of a SQLAlchemy SQLite URL (`sqlite:///relative.db`, `sqlite:////absolute.db`), else None."""
    if not url.startswith("sqlite:///"):
        return None
    p = unquote(url[len("sqlite:///"):].split("?", 1)[0])
    return None if p in ("", ":memory:") else Path(p)


def snapshot_key(url: str) -> str | None:
    """The key of the store's current effective catalog, read with sqlite3 only; None when it cannot be read
    this way (not SQLite, no file, an unmigrated or unreadable database)."""
    path = _sqlite_path(url)
    if path is None or not path.is_file():
        return None
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            version = con.execute("SELECT version_num FROM alembic_version").fetchall()
            catalogs = con.execute("SELECT data_sha256 FROM catalog_versions ORDER BY id").fetchall()
            catalogs += con.execute("SELECT max(id) FROM catalog_syncs").fetchall()  # which version is current
            revision = con.execute(
                "SELECT (SELECT max(id) FROM price_history), (SELECT count(id) FROM sources), "
                "(SELECT count(id) FROM price_history WHERE rolled_back)").fetchall()
        finally:
            con.close()
    except sqlite3.Error:
        return None
    h = hashlib.sha256()
    for part in (str(path.resolve()), repr(version), repr(catalogs), repr(revision), _packaged_key()):
        h.update(part.encode())
        h.update(b"\0")
    for p in sorted(_MIGRATIONS.glob("*.py")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:24]


def _path(key: str) -> Path:
    return _cache_dir() / f"store-{key}.json"


def load_snapshot(url: str) -> Catalog | None:
    """The snapshot for the store's current state, or None (then open the store and `write_snapshot`)."""
    if os.environ.get("SUANLI_NO_CACHE"):
        return None
    key = snapshot_key(url)
    if key is None:
        return None
    try:
        return Catalog.model_validate_json(_path(key).read_bytes())
    except (OSError, ValueError):
        return None


def write_snapshot(url: str, cat: Catalog) -> None:
    """Keep `cat` as the snapshot of the store's current state (atomically; older snapshots removed)."""
    if os.environ.get("SUANLI_NO_CACHE"):
        return
    key = snapshot_key(url)
    if key is None:
        return
    path = _path(key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(cat.model_dump_json(), encoding="utf-8")
        os.replace(tmp, path)
        for old in path.parent.glob("store-*.json"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        pass
