"""The packaged catalog is cached as validated JSON keyed by a hash of its data files: the cache gives the
same catalog, a changed data file gets a new key, and a damaged or unwritable cache is rebuilt or ignored."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from suanli.catalog import load


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))
    monkeypatch.delenv("SUANLI_NO_CACHE", raising=False)
    return tmp_path


def _fresh() -> load.Catalog:
    return load.packaged_catalog.__wrapped__()  # type: ignore[attr-defined]


def test_cache_round_trip(home: Path) -> None:
    first = _fresh()
    files = list((home / "cache").glob("catalog-*.json"))
    assert len(files) == 1
    assert _fresh() == first == load.load_catalog()


def test_damaged_cache_is_rebuilt(home: Path) -> None:
    _fresh()
    (f,) = (home / "cache").glob("catalog-*.json")
    f.write_text("{not json", encoding="utf-8")
    assert _fresh() == load.load_catalog()
    assert f.read_text(encoding="utf-8").startswith("{\"sources\"")


def test_key_follows_the_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "catalog"
    shutil.copytree(load.DATA_DIR, data)
    monkeypatch.setattr(load, "DATA_DIR", data)
    before = load._packaged_key()
    f = sorted(data.glob("*.yaml"))[0]
    f.write_text(f.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert load._packaged_key() != before


def test_unwritable_cache_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("SUANLI_HOME", str(blocker))  # cache dir would be inside a regular file
    assert _fresh() == load.load_catalog()
