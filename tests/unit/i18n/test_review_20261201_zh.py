"""Buyer's review 2026-12-01 items 6 and 10: Chinese output with no English left — the NF4 warning names the stack
as its vendor writes it and quotes the catalog's Chinese note, migrate check names the adapted lists in Chinese,
POST /api/estimate carries the CLI's notes (one source: views.estimates.engine_default_note) rendered by ?lang=,
and tco's notes are numbered under the table so the column does not wrap a sentence to a few characters a line."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from suanli.cli.main import app

from .test_cli_zh import _en, _zh

QLORA_72B = ("plan", "--model", "qwen2.5-72b", "--task", "qlora", "--tokens", "1e7", "--gpus", "1")


def _flat(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("args", [QLORA_72B, ("plan", "--model", "qwen2.5-7b", "--task", "qlora", "--tokens", "1e7",
                                              "--domestic-only")])
def test_nf4_warning_in_chinese(args: tuple[str, ...]) -> None:
    out = _flat(_zh(*args))
    assert "华为昇腾CANN：NF4（QLoRA）反量化路径未经优化（NF4量化/反量化暂以普通PyTorch算子实现" in out
    assert "HuaweiAscend" not in out and "plainPyTorch" not in out and "noslowdown" not in out


def test_nf4_warning_in_english_unchanged() -> None:
    out = " ".join(_en(*QLORA_72B).split())
    assert "Huawei Ascend CANN: the NF4 (QLoRA) dequantization path is unoptimised (NF4 quant/dequant implemented in " \
           "plain PyTorch" in out


def test_migrate_check_names_adapted_lists_in_chinese() -> None:
    out = _zh("migrate", "check", "--model", "qwen2.5-7b")
    assert "适配清单 vLLM-Ascend 支持的模型（仅 ✅）：" in out and "适配清单 MindSpeed-LLM 支持的模型：" in out
    assert "supported models" not in out
    en = _en("migrate", "check", "--model", "qwen2.5-7b")
    assert "adapted list vLLM-Ascend supported models (✅ only): " in en


def _client():  # type: ignore[no-untyped-def]
    pytest.importorskip("fastapi", reason="the API is the optional `service` extra; `make test` installs it")
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app

    return TestClient(create_app(Settings(database_url="sqlite:///:memory:", api_token=None)))


def test_api_estimate_notes_are_the_clis() -> None:
    body = {"model": "qwen2.5-7b", "gpu": "910b", "task": "inference"}
    c = _client()
    zh = c.post("/api/estimate?lang=zh", json=body).json()
    en = c.post("/api/estimate", json=body).json()
    cli = json.loads(_en("estimate", "--model", "qwen2.5-7b", "--gpu", "910b", "--task", "inference", "--json"))
    assert en["notes"][0] == "engine vllm-ascend: the default on Huawei Ascend CANN (`engine` to choose)"
    assert cli["notes"][0] == "engine vllm-ascend: the default on Huawei Ascend CANN (--engine to choose)"
    assert zh["notes"][0] == "推理引擎 vllm-ascend：华为昇腾 CANN 上的默认引擎（可用 `engine` 选择）"
    assert en["notes_i18n"] == cli["notes_i18n"] and len(zh["notes"]) == len(cli["notes"])
    # the memory notes too: in Chinese, not the English contract
    assert zh["memory"]["notes"] and not any(re.search(r"[a-z]{4,} [a-z]{4,}", n) for n in zh["memory"]["notes"])
    text = _zh("estimate", "--model", "qwen2.5-7b", "--gpu", "910b", "--task", "inference")
    assert zh["notes"][0].replace("`engine`", "--engine") in text
    # an engine named: no default note anywhere
    named = c.post("/api/estimate?lang=zh", json={**body, "engine": "mindie"}).json()
    assert not any("默认引擎" in n for n in named["notes"])


def test_tco_notes_numbered_under_the_table() -> None:
    args = ("tco", "--gpu", "h100", "--gpus", "8", "--hours", "40", "--offer-kinds", "all")
    for lang, note in (("zh", "(1) 按 1 个月计费 = 730 小时，任务只需 40 小时"),
                       ("en", "(1) billed 1 month = 730 h for a 40.0 h job")):
        r = CliRunner().invoke(app, ["--lang", lang, *args], env={"COLUMNS": "80"})
        assert r.exit_code == 0, r.output
        lines = r.stdout.splitlines()
        assert note in lines  # whole, on one line
        # every table row ends in its note numbers, not a sentence wrapped a few characters a line
        table = lines[:lines.index(note)]  # the price line under the notes wraps too (review 2026-12-01)
        rows = [ln for ln in table if "seed-000" in ln and "¥" not in ln]
        assert rows and all(ln.rstrip().endswith("(1)") for ln in rows)
        assert max(len(ln) for ln in lines if not ln.startswith(("价格", "prices", "注意", "warning", "(", "columns",
                                                                       "--json", "终端"))) <= 80
