"""Storage: SQLite by default (a file in the data directory), PostgreSQL with `SUANLI_DATABASE_URL`.

`open_store()` migrates (Alembic, programmatically) and seeds the packaged catalog on first use."""

from __future__ import annotations

from suanli.store.db import ImportResult, Store, StoreError, catalog_data_sha256, open_store
from suanli.store.importer import OfferImportError, RowError, parse_offers
from suanli.store.settings import data_dir, database_url

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
