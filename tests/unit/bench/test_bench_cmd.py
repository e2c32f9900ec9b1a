"""`suanli bench run|list` through typer's test runner, on the CPU with the tiny preset."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from typer.testing import CliRunner  # noqa: E402

from suanli.bench.accuracy import AccuracyMismatch  # noqa: E402
from suanli.bench.results import ReferenceRun, ResultStore  # noqa: E402
from suanli.cli.bench_cmd import app  # noqa: E402

SMALL = ["--input", "16", "--output", "4", "--repeats", "1", "--warmup", "0", "--no-micro"]


def test_run_json_prints_throughput_memory_and_a_verdict(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        app, ["run", "--device", "cpu", "--model", "tiny-llama", "--json", "--store", str(tmp_path), *SMALL]
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    tp = out["throughput"]
    assert tp["decode_tokens_per_s"] > 0 and tp["prefill_tokens_per_s"] > 0 and tp["peak_memory_bytes"] > 0
    assert out["accuracy"]["passed"] is True and out["accuracy"]["verdict"].startswith("pass")
    assert out["command"].startswith("suanli bench run --device cpu --model tiny-llama --precision fp32")
    assert [r.id for r in ResultStore(tmp_path).results()] == [out["id"]]

    listed = CliRunner().invoke(app, ["list", "--store", str(tmp_path), "--json"])
    assert listed.exit_code == 0
    assert [r["id"] for r in json.loads(listed.stdout)] == [out["id"]]
    table = CliRunner().invoke(app, ["list", "--store", str(tmp_path)])
    assert "Benchmark results" in table.stdout and "pass" in table.stdout


def test_run_fails_clearly_when_the_stored_reference_disagrees(tmp_path: Path) -> None:
    store = ResultStore(tmp_path)
    ref = store.reference("tiny-llama")
    assert ref is not None
    shifted = ref.logits() + np.float32(0.5)  # a different function
    store.save_reference(
        ref.model_copy(update={"id": "shifted", "logits_f32_b64": ReferenceRun.encode_logits(shifted)})
    )
    res = CliRunner().invoke(app, ["run", "--store", str(tmp_path), *SMALL])
    assert isinstance(res.exception, AccuracyMismatch)
    assert str(res.exception).startswith("accuracy: FAIL: tiny-llama in fp32 on cpu does not compute the reference")
    assert "reference shifted" in str(res.exception)


def test_list_on_an_empty_store(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["list", "--store", str(tmp_path / "empty")])
    assert res.exit_code == 0 and "no stored results" in res.stdout
