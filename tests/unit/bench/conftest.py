"""Shared fixtures for the bench tests: the tiny preset on the CPU and a store in a temporary directory."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # `from factories import ...` in the bench tests


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own SUANLI_HOME so nothing touches the user's store."""
    home = tmp_path / "suanli-home"
    monkeypatch.setenv("SUANLI_HOME", str(home))
    return home


@pytest.fixture
def tiny() -> Any:
    from suanli.bench.models import load_model

    return load_model("tiny-llama", "fp32", "cpu")


@pytest.fixture
def small_spec() -> Any:
    """A run small enough for CI: short sequences, one repeat, tiny microbenchmarks."""
    from suanli.bench.run import BenchSpec

    return BenchSpec(
        device="cpu",
        model="tiny-llama",
        precision="fp32",
        batch=2,
        input_tokens=16,
        output_tokens=5,
        warmup=1,
        repeats=2,
        matmul_n=64,
        bandwidth_bytes=1 << 20,
        micro_warmup=1,
        micro_repeats=2,
    )
