"""SQLAlchemy 2 tables of the store. The schema is created and changed only by the Alembic migrations in
`suanli/store/migrations/versions/`; these classes must match them (tests/unit/store checks it)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint, false
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "Base",
    "BenchResultRow",
    "CatalogEntryRow",
    "CatalogSyncRow",
    "CatalogVersionRow",
    "ImportRow",
    "OfferRow",
    "PriceRow",
    "SavedPlanRow",
    "SourceRow",
]


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0, tzinfo=None)


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class CatalogVersionRow(Base):
    """One seeded version of the packaged catalog: the SHA-256 of its data files."""

    __tablename__ = "catalog_versions"
    __table_args__ = (UniqueConstraint("data_sha256", name="uq_catalog_versions_data_sha256"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    data_sha256: Mapped[str] = mapped_column(String(64))
    suanli_version: Mapped[str] = mapped_column(String(32))
    seeded_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    counts: Mapped[dict[str, Any]] = mapped_column(JSON)


class CatalogEntryRow(Base):
    """One row of one section (accelerators, models, offers, …) of a seeded catalog version, as JSON."""

    __tablename__ = "catalog_entries"
    __table_args__ = (UniqueConstraint("version_id", "section", "entry_id", name="uq_catalog_entry"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    version_id: Mapped[int] = mapped_column(ForeignKey("catalog_versions.id", ondelete="CASCADE"), index=True)
    section: Mapped[str] = mapped_column(String(32))
    entry_id: Mapped[str] = mapped_column(String(300))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)


class CatalogSyncRow(Base):
    """One sync of the packaged catalog's offers into the store (migration 0003): at start, when the packaged data
    files differ from the version the last sync brought the store to. The packaged price rows then follow the
    files exactly; `changes` names the offer ids added, changed and removed. The newest sync's version is the
    store's current catalog version."""

    __tablename__ = "catalog_syncs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    version_id: Mapped[int] = mapped_column(ForeignKey("catalog_versions.id", name="fk_catalog_syncs_version_id"),
                                            index=True)
    suanli_version: Mapped[str] = mapped_column(String(32))
    synced_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    offers: Mapped[int] = mapped_column(Integer)  # packaged offers in the files
    added: Mapped[int] = mapped_column(Integer)
    changed: Mapped[int] = mapped_column(Integer)
    removed: Mapped[int] = mapped_column(Integer)
    unchanged: Mapped[int] = mapped_column(Integer)
    changes: Mapped[dict[str, Any]] = mapped_column(JSON)  # {"added": [ids], "changed": [ids], "removed": [ids]}


class SourceRow(Base):
    """A source id (packaged or introduced by an import) with its title, kind, url and date."""

    __tablename__ = "sources"
    id: Mapped[str] = mapped_column(String(300), primary_key=True)
    title: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(32))
    url: Mapped[str | None] = mapped_column(Text, nullable=True)
    date: Mapped[str | None] = mapped_column(String(10), nullable=True)
    note: Mapped[str | None] = mapped_column(Text, nullable=True)
    origin: Mapped[str] = mapped_column(String(16))  # packaged | import
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class ImportRow(Base):
    """One import that added at least one price (an import that adds nothing leaves no row)."""

    __tablename__ = "imports"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    filename: Mapped[str] = mapped_column(Text)
    file_sha256: Mapped[str] = mapped_column(String(64), index=True)
    format: Mapped[str] = mapped_column(String(8))
    rows: Mapped[int] = mapped_column(Integer)
    new_prices: Mapped[int] = mapped_column(Integer)
    via: Mapped[str] = mapped_column(String(16))  # cli | api
    imported_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    # issue 11: `suanli offers rollback ID` (migration 0002); `forced`: imported with --force past the plausibility band
    rolled_back_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    rolled_back_via: Mapped[str | None] = mapped_column(String(16), nullable=True)
    forced: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class OfferRow(Base):
    """An offer id; its prices (and the full offer as each source gave it) are in price_history."""

    __tablename__ = "offers"
    id: Mapped[str] = mapped_column(String(300), primary_key=True)
    device: Mapped[str] = mapped_column(String(100), index=True)
    provider: Mapped[str] = mapped_column(String(300))
    origin: Mapped[str] = mapped_column(String(16))  # packaged | import (where the id first came from)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class PriceRow(Base):
    """One price of one offer at one date from one source. Never deleted: history only grows. A row stops counting
    when its import is rolled back, or (packaged rows) when a catalog sync finds it no longer in the packaged
    files (`retired_by`); both keep it, with `rolled_back` set.
    `fingerprint` (SHA-256 of the offer's canonical JSON without default values, `importer.offer_fingerprint`)
    makes re-importing the same row a no-op; a row that no longer counts has `rolled-back:ID` or `retired:ID`."""

    __tablename__ = "price_history"
    __table_args__ = (UniqueConstraint("fingerprint", name="uq_price_history_fingerprint"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    offer_id: Mapped[str] = mapped_column(ForeignKey("offers.id"), index=True)
    device: Mapped[str] = mapped_column(String(100), index=True)
    cards: Mapped[int] = mapped_column(Integer)
    billing_unit: Mapped[str] = mapped_column(String(16))
    price_cny: Mapped[float] = mapped_column(Float)
    price_cny_max: Mapped[float | None] = mapped_column(Float, nullable=True)
    date: Mapped[str] = mapped_column(String(10))
    source: Mapped[str] = mapped_column(String(300))
    origin: Mapped[str] = mapped_column(String(16))  # packaged | import
    import_id: Mapped[int | None] = mapped_column(ForeignKey("imports.id"), nullable=True, index=True)
    rolled_back: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())  # kept, not counted
    # migration 0003: the packaged-catalog sync that added the row, and the one that retired it
    sync_id: Mapped[int | None] = mapped_column(ForeignKey("catalog_syncs.id", name="fk_price_history_sync_id"),
                                                nullable=True, index=True)
    retired_by: Mapped[int | None] = mapped_column(
        ForeignKey("catalog_syncs.id", name="fk_price_history_retired_by"), nullable=True)
    offer: Mapped[dict[str, Any]] = mapped_column(JSON)
    fingerprint: Mapped[str] = mapped_column(String(64))
    recorded_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class SavedPlanRow(Base):
    __tablename__ = "saved_plans"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str | None] = mapped_column(String(300), nullable=True)
    model: Mapped[str] = mapped_column(String(300))
    request: Mapped[dict[str, Any]] = mapped_column(JSON)
    result: Mapped[dict[str, Any]] = mapped_column(JSON)
    catalog_version_id: Mapped[int | None] = mapped_column(ForeignKey("catalog_versions.id"), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class BenchResultRow(Base):
    """A `suanli.bench.results.BenchResult` (its JSON in `data`), keyed by the result's own id."""

    __tablename__ = "bench_results"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime)
    accelerator: Mapped[str | None] = mapped_column(String(100), nullable=True, index=True)
    device: Mapped[str] = mapped_column(String(100))
    model: Mapped[str] = mapped_column(String(300))
    precision: Mapped[str] = mapped_column(String(16))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    saved_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
