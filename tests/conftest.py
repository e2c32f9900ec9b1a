"""Shared fixtures: the packaged catalog, loaded once."""

from __future__ import annotations

import pytest

from suanli.catalog.load import packaged_catalog
from suanli.catalog.schema import Catalog


@pytest.fixture(scope="session")
def cat() -> Catalog:
    return packaged_catalog()


@pytest.fixture(autouse=True)
def _english_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outputs (goldens, messages) are asserted in English unless a test asks for Chinese: a developer's
    zh_CN locale must not change them. Tests of the language choice pass their own environment."""
    monkeypatch.setenv("LC_ALL", "en_US.UTF-8")
    from suanli.cli import output

    monkeypatch.setattr(output, "_lang", None)
