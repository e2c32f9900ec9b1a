"""The storage backends a store test runs on (the one copy of what three test files each wrote): SQLite always,
PostgreSQL where SUANLI_TEST_POSTGRES_URL is set (`.ci/run` sets it; else those runs skip with the reason).
Importable from every test: tests/conftest.py puts its folder on sys.path."""

from __future__ import annotations

import os

import pytest

PG = os.environ.get("SUANLI_TEST_POSTGRES_URL")
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.skipif(
    not PG, reason="SUANLI_TEST_POSTGRES_URL is not set: `source .ci/postgres.sh` starts a server"))]
