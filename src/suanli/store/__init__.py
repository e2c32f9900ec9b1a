"""Storage: SQLite by default (a file in the data directory), PostgreSQL with `SUANLI_DATABASE_URL`.

`open_store()` migrates (Alembic, programmatically) and seeds the packaged catalog on first use.

The names below are loaded on first use (PEP 562), so `suanli.store.settings` — which every planning command
reads to find out whether a database exists — does not import SQLAlchemy."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "ImportResult",
    "OfferImportError",
    "RowError",
    "Store",
    "StoreError",
    "catalog_data_sha256",
    "data_dir",
    "database_url",
    "open_store",
    "parse_offers",
]

_WHERE = {
    "ImportResult": "db", "Store": "db", "StoreError": "db", "catalog_data_sha256": "db", "open_store": "db",
    "OfferImportError": "importer", "RowError": "importer", "parse_offers": "importer",
    "data_dir": "settings", "database_url": "settings",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'suanli.store' has no attribute {name!r}")
    return getattr(importlib.import_module(f"suanli.store.{_WHERE[name]}"), name)
