from __future__ import annotations

import re
from pathlib import Path

import pytest
from factories import small_result

from suanli.bench.results import BenchResult, ResultStore, _read, default_store_dir
from suanli.errors import DataFileError, InputError, NotFoundError


def test_default_store_dir_follows_suanli_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))
    assert default_store_dir() == tmp_path / "bench"
    monkeypatch.delenv("SUANLI_HOME")
    assert default_store_dir() == Path.home() / ".local" / "share" / "suanli" / "bench"


def test_store_round_trip_in_creation_order(tmp_path: Path) -> None:
    store = ResultStore(tmp_path)
    assert store.results() == []
    b, a = small_result(2), small_result(1)
    store.save(b)
    path = store.save(a)
    assert path == tmp_path / "results" / f"{a.id}.json"
    assert [r.id for r in store.results()] == [a.id, b.id]
    assert store.get(a.id[:-1]) == a
    assert BenchResult.model_validate_json(a.to_json()) == a


def test_get_unknown_or_ambiguous(tmp_path: Path) -> None:
    store = ResultStore(tmp_path)
    store.save(small_result(1))
    store.save(small_result(2))
    with pytest.raises(NotFoundError):
        store.get("nope")
    with pytest.raises(InputError, match="matches 2 results"):
        store.get("2026")


def test_corrupt_result_file_names_the_file_and_field(tmp_path: Path) -> None:
    store = ResultStore(tmp_path)
    p = store.save(small_result(1))
    store.save(small_result(2))
    p.write_text(p.read_text().replace('"decode_tokens_per_s": 2.0', '"decode_tokens_per_s": "fast"'))
    # a damaged file does not hide the others; it is named with its field
    assert len(store.results()) == 1
    assert any(re.search(r"results/.*\.json, field throughput\.decode_tokens_per_s", u) for u in store.unreadable)
    with pytest.raises(DataFileError, match=r"field throughput\.decode_tokens_per_s"):
        _read(p, BenchResult)


def test_no_reference_for_an_unknown_model(tmp_path: Path) -> None:
    assert ResultStore(tmp_path).reference("no-such-model") is None


def test_results_stored_with_the_dropped_model_fields_still_read(tmp_path: Path) -> None:
    """Results written before the bench stopped keeping its own FLOP-parameter and KV-bytes-per-token formulas
    (code review: they counted every MoE expert and ignored MLA, sliding windows and 8-bit caches; calibration
    takes both from the estimator on the model's architecture) carry `flop_params` and `kv_cache_bytes_per_token`:
    the file store reads them, without those fields."""
    import json

    r = small_result(1)
    doc = json.loads(r.to_json())
    assert "flop_params" not in doc["model"] and "kv_cache_bytes_per_token" not in doc["model"]
    doc["model"].update(flop_params=8, kv_cache_bytes_per_token=32)  # as stored before
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / f"{r.id}.json").write_text(json.dumps(doc), encoding="utf-8")
    assert ResultStore(tmp_path).get(r.id) == r
