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


def test_cached_yaml_gives_the_document_and_follows_the_file(home: Path, tmp_path: Path) -> None:
    """`cached_yaml` (the error bands every estimate quotes, read without PyYAML): the JSON copy gives the very
    document, an edited file gets a new key (the old copy goes), and a document JSON would change is not kept."""
    from suanli.validate.bands import BANDS_PATH

    assert load.cached_yaml(BANDS_PATH) == load.read_yaml(BANDS_PATH) == load.cached_yaml(BANDS_PATH)
    assert len(list((home / "cache").glob("yaml-error_bands-*.json"))) == 1
    f = tmp_path / "bands.yaml"
    f.write_text("groups:\n  a: {median_abs_pct: 1.5, cases: 3, sample: null}\n", encoding="utf-8")
    assert load.cached_yaml(f) == {"groups": {"a": {"median_abs_pct": 1.5, "cases": 3, "sample": None}}}
    f.write_text("groups:\n  a: {median_abs_pct: 2.5, cases: 3, sample: null}\n", encoding="utf-8")
    assert load.cached_yaml(f)["groups"]["a"]["median_abs_pct"] == 2.5
    assert len(list((home / "cache").glob("yaml-bands-*.json"))) == 1
    dated = tmp_path / "dated.yaml"
    dated.write_text("when: 2026-11-30\n1: one\n", encoding="utf-8")
    assert load.cached_yaml(dated) == load.read_yaml(dated)
    assert not list((home / "cache").glob("yaml-dated-*.json"))

