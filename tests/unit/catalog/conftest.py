"""Shared fixtures for the catalog data tests: a module sets `FILE` (a data file) and gets its rows as `raw`."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from suanli.catalog.load import packaged_catalog
from suanli.catalog.schema import Catalog, Offer


@pytest.fixture(scope="module")
def raw(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The module's data file (`FILE`) as written, so a row that silently disappears from the merged catalog is caught."""
    data = yaml.safe_load(request.module.FILE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return packaged_catalog()


@pytest.fixture(scope="module")
def mine(raw: dict[str, Any], cat: Catalog) -> list[Offer]:
    """The module file's offers as the merged catalog holds them (every one must be there)."""
    ids = [r["id"] for r in raw["offers"]]
    by_id = {o.id: o for o in cat.offers}
    assert set(ids) <= set(by_id), set(ids) - set(by_id)
    return [by_id[i] for i in ids]
