"""Which catalog a command plans with: the database's (packaged catalog plus imported offers) once one
exists or `SUANLI_DATABASE_URL` is set, else the packaged catalog."""

from __future__ import annotations

import os

from suanli.catalog.load import packaged_catalog
from suanli.catalog.schema import Catalog
from suanli.views.dates import as_of  # one date source with the API (SUANLI_TODAY)

__all__ = ["as_of", "plan_search_catalog", "planning_catalog"]


def planning_catalog() -> Catalog:
    """The catalog plan, compare, tco, rent-vs-buy and scenarios compute with: with the calibration file's factors
    as `suanli estimate` applies them (`views.estimates.calibrated`), so they agree with it for the same layout."""
    from suanli.views.estimates import calibrated

    return calibrated(_stored_catalog())


def plan_search_catalog() -> Catalog:
    """The catalog `suanli plan` searches: `planning_catalog` less the offers the planner could never choose
    (`catalog.offers.planning_offers`, the one rule POST /api/plan's `Store.planning_catalog` applies), so the CLI
    and the API choose the same offer from the same database."""
    from suanli.catalog.offers import planning_offers

    return planning_offers(planning_catalog())


def _stored_catalog() -> Catalog:
    try:
        from suanli.store.settings import data_dir
    except ImportError:  # the service extra is not installed: no database
        return packaged_catalog()
    if not os.environ.get("SUANLI_DATABASE_URL") and not (data_dir() / "suanli.db").exists():
        return packaged_catalog()
    from suanli.store.settings import database_url
    from suanli.store.snapshot import load_snapshot, write_snapshot

    url = database_url()
    cat = load_snapshot(url)  # unchanged SQLite store: no SQLAlchemy, no migration check
    if cat is not None:
        return cat
    from suanli.store.db import open_store

    cat = open_store().catalog()
    write_snapshot(url, cat)
    return cat
