"""The storage tests of tests/unit/store/test_store.py against a real PostgreSQL server.

Start one with `source .ci/postgres.sh` (exports SUANLI_TEST_POSTGRES_URL); without it these tests skip.
Each test gets an empty `public` schema."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from pathlib import Path

import pytest

URL = os.environ.get("SUANLI_TEST_POSTGRES_URL")
if not URL:
    pytest.skip("SUANLI_TEST_POSTGRES_URL is not set: start a server with `source .ci/postgres.sh`",
                allow_module_level=True)
pytest.importorskip("psycopg")
pytest.importorskip("sqlalchemy")

_spec = importlib.util.spec_from_file_location(
    "suanli_store_cases", Path(__file__).resolve().parents[1] / "unit" / "store" / "test_store.py")
assert _spec and _spec.loader
_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cases)

for _name in dir(_cases):
    if _name.startswith("test_"):
        globals()[_name] = getattr(_cases, _name)


@pytest.fixture
def store_url(reset_postgres: Callable[[str], str]) -> str:
    assert URL
    return reset_postgres(URL)


def test_dialect_is_postgresql(store_url: str) -> None:
    from suanli.store import open_store

    assert open_store(store_url).dialect == "postgresql"
