"""`bench import` refuses a result file holding NaN or Infinity (Python's JSON reader takes them) in one line that
names the file and the field's dotted path, in English and in Chinese, and imports nothing."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from factories import synthetic

from suanli.bench.results import ResultStore
from suanli.bench.suite import CaseRecord, Environment, SuiteCase
from suanli.bench.suite_import import import_suite
from suanli.catalog.load import packaged_catalog
from suanli.errors import InputError, error_text


def _suite(tmp_path: Path, edit: Any) -> Path:
    out = tmp_path / "suite"
    out.mkdir()
    env = Environment(date=dt.datetime(2026, 12, 1, tzinfo=dt.UTC), host="h", python="3.12", platform="linux",
                      suanli_version="0", torch="2.5", transformers="4.50", peft="0.14", backend="cuda",
                      device="cuda:0", device_name="NVIDIA H100 80GB HBM3", memory_kind="device-max-allocated")
    rec = CaseRecord(
        run_id="20261201T000000Z-0a5f1b", status="ok", command="suanli bench suite out", environment=env,
        accelerator="h100-sxm",
        case=SuiteCase(id="decode-tiny-b1-loop", kind="inference", phase=2, shape="tiny", model="tiny-llama",
                       measure="decode", mode="loop", input_tokens=64, output_tokens=16),
        hf_config={"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
                   "num_key_value_heads": 2, "intermediate_size": 512, "vocab_size": 1000},
        metrics={"decode_tokens_per_s": 100.0, "peak_memory_bytes": 1000, "memory_kind": "device-max-allocated"},
        bench_result=synthetic(0.5, 0.4, 0.8, 0.9, accelerator="h100-sxm"))
    doc: dict[str, Any] = json.loads(rec.model_dump_json())
    edit(doc)
    (out / "decode-tiny-b1-loop.json").write_text(json.dumps(doc))  # NaN / Infinity as Python writes them
    return out


def _metrics(doc: dict[str, Any]) -> None:
    doc["metrics"]["decode_tokens_per_s"] = float("nan")


def _nested(doc: dict[str, Any]) -> None:
    doc["bench_result"]["micro"]["matmul"][1]["tflops"] = float("inf")


@pytest.mark.parametrize(("edit", "path", "shown"), [(_metrics, "metrics.decode_tokens_per_s", "NaN"),
                                                     (_nested, "bench_result.micro.matmul.1.tflops", "Infinity")])
def test_a_non_finite_number_is_named_by_its_path(tmp_path: Path, edit: Any, path: str, shown: str) -> None:
    store = ResultStore(tmp_path / "store")
    with pytest.raises(InputError) as e:
        import_suite(packaged_catalog(), _suite(tmp_path, edit), store, tmp_path / "cases")
    en, zh = error_text(e.value, "en"), error_text(e.value, "zh")
    assert f"decode-tiny-b1-loop.json: {path}: must be a finite number (got {shown}); nothing was imported" in en, en
    assert f"decode-tiny-b1-loop.json：{path}：必须是有限数（实际为 {shown}）；未导入任何内容" in zh, zh
    assert not (tmp_path / "cases").exists() and not (tmp_path / "store").exists()
