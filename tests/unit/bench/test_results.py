from __future__ import annotations

import re

import datetime as dt
from pathlib import Path

import pytest

from suanli.bench.backends import BackendInfo
from suanli.bench.models import ModelInfo
from suanli.bench.results import BenchResult, ResultStore, RunConfig, Throughput, _read, default_store_dir
from suanli.errors import DataFileError, InputError, NotFoundError


def _result(i: int = 0) -> BenchResult:
    return BenchResult(
        id=f"20260101T00000{i}Z-abc{i}",
        created_at=dt.datetime(2026, 1, 1, 0, 0, i, tzinfo=dt.UTC),
        backend=BackendInfo(backend="cpu", device="cpu", device_name="test cpu", memory_kind="process-peak-rss"),
        model=ModelInfo(
            name="m",
            kind="preset",
            key="m",
            architecture="LlamaForCausalLM",
            random_weights=True,
            params=10,
            flop_params=8,
            weight_bytes=40,
            precision="fp32",
            num_layers=1,
            hidden_size=4,
            num_attention_heads=1,
            num_kv_heads=1,
            head_dim=4,
            vocab_size=2,
            kv_cache_bytes_per_token=32,
        ),
        config=RunConfig(
            device="cpu", model="m", precision="fp32", batch=1, input_tokens=4, output_tokens=3, warmup=0, repeats=1
        ),
        throughput=Throughput(
            prefill_tokens=4,
            prefill_time_s=0.5,
            prefill_tokens_per_s=8.0,
            ttft_s=0.6,
            decode_steps=2,
            decode_tokens=2,
            decode_time_s=1.0,
            decode_tokens_per_s=2.0,
            decode_step_latency_s=0.5,
            peak_memory_bytes=1000,
            memory_kind="process-peak-rss",
        ),
    )


def test_default_store_dir_follows_suanli_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))
    assert default_store_dir() == tmp_path / "bench"
    monkeypatch.delenv("SUANLI_HOME")
    assert default_store_dir() == Path.home() / ".local" / "share" / "suanli" / "bench"


def test_store_round_trip_in_creation_order(tmp_path: Path) -> None:
    store = ResultStore(tmp_path)
    assert store.results() == []
    b, a = _result(2), _result(1)
    store.save(b)
    path = store.save(a)
    assert path == tmp_path / "results" / f"{a.id}.json"
    assert [r.id for r in store.results()] == [a.id, b.id]
    assert store.get(a.id[:-1]) == a
    assert BenchResult.model_validate_json(a.to_json()) == a


def test_get_unknown_or_ambiguous(tmp_path: Path) -> None:
    store = ResultStore(tmp_path)
    store.save(_result(1))
    store.save(_result(2))
    with pytest.raises(NotFoundError):
        store.get("nope")
    with pytest.raises(InputError, match="matches 2 results"):
        store.get("2026")


def test_corrupt_result_file_names_the_file_and_field(tmp_path: Path) -> None:
    store = ResultStore(tmp_path)
    p = store.save(_result(1))
    store.save(_result(2))
    p.write_text(p.read_text().replace('"decode_tokens_per_s": 2.0', '"decode_tokens_per_s": "fast"'))
    # a damaged file does not hide the others; it is named with its field
    assert len(store.results()) == 1
    assert any(re.search(r"results/.*\.json, field throughput\.decode_tokens_per_s", u) for u in store.unreadable)
    with pytest.raises(DataFileError, match=r"field throughput\.decode_tokens_per_s"):
        _read(p, BenchResult)


def test_no_reference_for_an_unknown_model(tmp_path: Path) -> None:
    assert ResultStore(tmp_path).reference("no-such-model") is None
