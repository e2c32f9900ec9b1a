"""The packaged catalog's offers follow the packaged files on each sync, and fingerprints ignore defaults.

`catalog_syncs` records each sync of the packaged catalog (the version it brought the store to; the offer ids
added, changed and removed). `price_history.sync_id` is the sync that added a packaged row, `retired_by` the
one that found it no longer in the packaged files (the row is kept, marked rolled back, as rolled-back imports
are). No sync row is written here: the first start after this upgrade syncs, retiring packaged rows that
earlier releases left behind.

Fingerprints become the SHA-256 of the offer's JSON without default values (`importer.offer_fingerprint`), so a
field added to the offer schema with a default does not change them: every counted row is re-keyed from its
stored offer. A row whose new key another counted row already has (the same offer stored twice, before and
after a field was added) keeps counting under `duplicate:ID`.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import context, op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_PRICES = sa.table(
    "price_history",
    sa.column("id", sa.Integer()),
    sa.column("offer", sa.JSON()),
    sa.column("fingerprint", sa.String(64)),
    sa.column("rolled_back", sa.Boolean()),
)


def _rekey(conn: Any) -> None:
    from pydantic import ValidationError

    from suanli.catalog.schema import Offer
    from suanli.store.importer import offer_fingerprint

    rows = conn.execute(sa.select(_PRICES.c.id, _PRICES.c.offer, _PRICES.c.fingerprint)
                        .where(_PRICES.c.rolled_back == sa.false()).order_by(_PRICES.c.id)).all()
    new: dict[int, str] = {}
    taken: set[str] = set()
    for pid, offer, old in rows:
        try:
            fp = offer_fingerprint(Offer.model_validate(offer))
        except ValidationError:  # an offer the current schema cannot read: keep its key
            fp = old
        if fp in taken:
            fp = f"duplicate:{pid}"
        taken.add(fp)
        if fp != old:
            new[pid] = fp
    if not new:
        return
    stmt = sa.update(_PRICES).where(_PRICES.c.id == sa.bindparam("pid")).values(fingerprint=sa.bindparam("fp"))
    # two passes, so that no intermediate state collides on the unique fingerprint
    conn.execute(stmt, [{"pid": pid, "fp": f"rekey:{pid}"} for pid in new])
    conn.execute(stmt, [{"pid": pid, "fp": fp} for pid, fp in new.items()])


def upgrade() -> None:
    op.create_table(
        "catalog_syncs",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("version_id", sa.Integer(),
                  sa.ForeignKey("catalog_versions.id", name="fk_catalog_syncs_version_id"), nullable=False),
        sa.Column("suanli_version", sa.String(32), nullable=False),
        sa.Column("synced_at", sa.DateTime(), nullable=False),
        sa.Column("offers", sa.Integer(), nullable=False),
        sa.Column("added", sa.Integer(), nullable=False),
        sa.Column("changed", sa.Integer(), nullable=False),
        sa.Column("removed", sa.Integer(), nullable=False),
        sa.Column("unchanged", sa.Integer(), nullable=False),
        sa.Column("changes", sa.JSON(), nullable=False),
    )
    op.create_index("ix_catalog_syncs_version_id", "catalog_syncs", ["version_id"])
    with op.batch_alter_table("price_history") as b:
        b.add_column(sa.Column("sync_id", sa.Integer(), nullable=True))
        b.add_column(sa.Column("retired_by", sa.Integer(), nullable=True))
        b.create_foreign_key("fk_price_history_sync_id", "catalog_syncs", ["sync_id"], ["id"])
        b.create_foreign_key("fk_price_history_retired_by", "catalog_syncs", ["retired_by"], ["id"])
    op.create_index("ix_price_history_sync_id", "price_history", ["sync_id"])
    if not context.is_offline_mode():  # `--sql` output has no rows to re-key
        _rekey(op.get_bind())


def downgrade() -> None:
    """Drops the sync records; fingerprints stay re-keyed (the old ones cannot be told from the new)."""
    op.drop_index("ix_price_history_sync_id", "price_history")
    with op.batch_alter_table("price_history") as b:
        b.drop_constraint("fk_price_history_retired_by", type_="foreignkey")
        b.drop_constraint("fk_price_history_sync_id", type_="foreignkey")
        b.drop_column("retired_by")
        b.drop_column("sync_id")
    op.drop_index("ix_catalog_syncs_version_id", "catalog_syncs")
    op.drop_table("catalog_syncs")
