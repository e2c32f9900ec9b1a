"""Offer imports can be rolled back (issue 11): the rollback is recorded on the import, and the import's price
rows are kept (history) but marked rolled back, so they no longer count.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("imports") as b:
        b.add_column(sa.Column("rolled_back_at", sa.DateTime(), nullable=True))
        b.add_column(sa.Column("rolled_back_via", sa.String(16), nullable=True))
        b.add_column(sa.Column("forced", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("price_history") as b:
        b.add_column(sa.Column("rolled_back", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_index("ix_price_history_import_id", "price_history", ["import_id"])


def downgrade() -> None:
    op.drop_index("ix_price_history_import_id", "price_history")
    with op.batch_alter_table("price_history") as b:
        b.drop_column("rolled_back")
    with op.batch_alter_table("imports") as b:
        b.drop_column("forced")
        b.drop_column("rolled_back_via")
        b.drop_column("rolled_back_at")
