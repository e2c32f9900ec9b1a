"""Alembic environment: run programmatically by `suanli.store.db.Store.upgrade` with an open connection
in `config.attributes["connection"]` (no alembic.ini, no logging set-up)."""

from __future__ import annotations

from alembic import context

from suanli.store.models import Base

config = context.config
target_metadata = Base.metadata


def run() -> None:
    connection = config.attributes.get("connection")
    if connection is None:  # offline SQL generation: `alembic upgrade --sql` style
        context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata,
                          literal_binds=True, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


run()
