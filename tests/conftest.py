"""Shared fixtures: the packaged catalog, loaded once."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from suanli.catalog.load import packaged_catalog
from suanli.catalog.schema import Catalog

sys.path.insert(0, str(Path(__file__).resolve().parent))  # `from cli_run import run_cli` (tests/cli_run.py)

# CI (CI=true) runs hypothesis with a fixed seed so a landing cannot go red on a draw; local runs keep exploring, and
# what they find is saved in .hypothesis/ and replayed until fixed
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="session", autouse=True)
def _private_suanli_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The tests' own data directory: a user's database (~/.local/share/suanli) or `SUANLI_DATABASE_URL` must not
    change what they see (code review; only .ci/run set a temporary SUANLI_HOME). A test that needs a database sets
    its own (monkeypatch); the PostgreSQL tests read SUANLI_TEST_POSTGRES_URL, which stays."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SUANLI_HOME", str(tmp_path_factory.mktemp("suanli-home")))
        mp.delenv("SUANLI_DATABASE_URL", raising=False)
        yield


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


@pytest.fixture(scope="session")
def reset_postgres() -> Callable[[str], str]:
    """A function that empties the test PostgreSQL database (drops and recreates schema public) and returns its URL."""
    def reset(url: str) -> str:
        from sqlalchemy import create_engine, text

        eng = create_engine(url)
        with eng.begin() as conn:
            conn.execute(text("DROP SCHEMA public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
        eng.dispose()
        return url

    return reset
