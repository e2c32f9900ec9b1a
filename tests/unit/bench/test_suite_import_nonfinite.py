"""`bench import` refuses a result file holding NaN or Infinity (Python's JSON reader takes them) in one line that
names the file and the field's dotted path, in English and in Chinese, and imports nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from factories import suite_case_doc

from suanli.bench.results import ResultStore
from suanli.bench.suite_import import import_suite
from suanli.catalog.load import packaged_catalog
from suanli.errors import InputError, error_text


def _suite(tmp_path: Path, edit: Any) -> Path:
    out = tmp_path / "suite"
    out.mkdir()
    doc = suite_case_doc()
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
