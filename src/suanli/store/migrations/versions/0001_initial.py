"""Initial schema: catalog versions and entries, sources, offers, price history, imports, saved plans,
benchmark results.

Revision ID: 0001
Revises:
Create Date: 2026-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "catalog_versions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("data_sha256", sa.String(64), nullable=False),
        sa.Column("suanli_version", sa.String(32), nullable=False),
        sa.Column("seeded_at", sa.DateTime(), nullable=False),
        sa.Column("counts", sa.JSON(), nullable=False),
        sa.UniqueConstraint("data_sha256", name="uq_catalog_versions_data_sha256"),
    )
    op.create_table(
        "catalog_entries",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("version_id", sa.Integer(), sa.ForeignKey("catalog_versions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("section", sa.String(32), nullable=False),
        sa.Column("entry_id", sa.String(300), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.UniqueConstraint("version_id", "section", "entry_id", name="uq_catalog_entry"),
    )
    op.create_index("ix_catalog_entries_version_id", "catalog_entries", ["version_id"])
    op.create_table(
        "sources",
        sa.Column("id", sa.String(300), primary_key=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("date", sa.String(10), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "imports",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("filename", sa.Text(), nullable=False),
        sa.Column("file_sha256", sa.String(64), nullable=False),
        sa.Column("format", sa.String(8), nullable=False),
        sa.Column("rows", sa.Integer(), nullable=False),
        sa.Column("new_prices", sa.Integer(), nullable=False),
        sa.Column("via", sa.String(16), nullable=False),
        sa.Column("imported_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_imports_file_sha256", "imports", ["file_sha256"])
    op.create_table(
        "offers",
        sa.Column("id", sa.String(300), primary_key=True),
        sa.Column("device", sa.String(100), nullable=False),
        sa.Column("provider", sa.String(300), nullable=False),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_offers_device", "offers", ["device"])
    op.create_table(
        "price_history",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("offer_id", sa.String(300), sa.ForeignKey("offers.id"), nullable=False),
        sa.Column("device", sa.String(100), nullable=False),
        sa.Column("cards", sa.Integer(), nullable=False),
        sa.Column("billing_unit", sa.String(16), nullable=False),
        sa.Column("price_cny", sa.Float(), nullable=False),
        sa.Column("price_cny_max", sa.Float(), nullable=True),
        sa.Column("date", sa.String(10), nullable=False),
        sa.Column("source", sa.String(300), nullable=False),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("import_id", sa.Integer(), sa.ForeignKey("imports.id"), nullable=True),
        sa.Column("offer", sa.JSON(), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("recorded_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("fingerprint", name="uq_price_history_fingerprint"),
    )
    op.create_index("ix_price_history_offer_id", "price_history", ["offer_id"])
    op.create_index("ix_price_history_device", "price_history", ["device"])
    op.create_table(
        "saved_plans",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(300), nullable=True),
        sa.Column("model", sa.String(300), nullable=False),
        sa.Column("request", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("catalog_version_id", sa.Integer(), sa.ForeignKey("catalog_versions.id"), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "bench_results",
        sa.Column("id", sa.String(100), primary_key=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("accelerator", sa.String(100), nullable=True),
        sa.Column("device", sa.String(100), nullable=False),
        sa.Column("model", sa.String(300), nullable=False),
        sa.Column("precision", sa.String(16), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("saved_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_bench_results_accelerator", "bench_results", ["accelerator"])


def downgrade() -> None:
    for name in ("bench_results", "saved_plans", "price_history", "offers", "imports", "sources",
                 "catalog_entries", "catalog_versions"):
        op.drop_table(name)
