from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

try:
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app
except ImportError:  # the service extra is not installed: skip this directory
    collect_ignore_glob = ["test_*.py"]

TOKEN = "test-token-123"


@pytest.fixture(scope="module")
def make_client(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., TestClient]:
    def make(token: str | None = TOKEN, raise_server_exceptions: bool = True) -> TestClient:
        db = tmp_path_factory.mktemp("api") / "suanli.db"
        return TestClient(create_app(Settings(database_url=f"sqlite:///{db}", api_token=token)),
                          raise_server_exceptions=raise_server_exceptions)

    return make


@pytest.fixture(scope="module")
def client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client()


def auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def csv_file(tmp_path: Path) -> Callable[[str], tuple[str, bytes]]:
    def make(body: str, name: str = "offers.csv") -> tuple[str, bytes]:
        return name, ("id,provider,device,cards,billing_unit,price_cny,date,source\n" + body).encode()

    return make


@pytest.fixture
def bench_result_json() -> Callable[..., dict[str, object]]:
    """A minimal stored benchmark result (CPU, a 10-parameter preset model), as POST /api/bench-results takes it."""
    from suanli.bench.results import BenchResult

    def make(**backend: str) -> dict[str, object]:
        bench = {"backend": {"backend": "cpu", "device": "cpu", "device_name": "cpu", "memory_kind": "process-peak-rss",
                             **backend},
                 "model": {"name": "m", "kind": "preset", "key": "m", "architecture": "LlamaForCausalLM",
                           "random_weights": True, "params": 10, "flop_params": 8, "weight_bytes": 40,
                           "precision": "fp32", "num_layers": 1, "hidden_size": 4, "num_attention_heads": 1,
                           "num_kv_heads": 1, "head_dim": 4, "vocab_size": 2, "kv_cache_bytes_per_token": 32},
                 "config": {"device": "cpu", "model": "m", "precision": "fp32", "batch": 1, "input_tokens": 4,
                            "output_tokens": 3, "warmup": 0, "repeats": 1}}
        return BenchResult.model_validate(bench).model_dump(mode="json")

    return make
