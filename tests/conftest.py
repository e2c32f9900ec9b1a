"""Shared fixtures: the packaged catalog, loaded once."""

from __future__ import annotations

import pytest

from suanli.catalog.load import packaged_catalog
from suanli.catalog.schema import Catalog


@pytest.fixture(scope="session")
def cat() -> Catalog:
    return packaged_catalog()
