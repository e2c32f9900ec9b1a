"""Every line the CLI prints fits the terminal, in English and Chinese (native reader's review 2026-12-01, items 1
and 9): compare, rent-vs-buy, tco, migrate cost/check, offers and bench show wrap their sentences at COLUMNS with
the one line breaker (`output.echo`), as plan and estimate do, so the terminal never wraps a line by itself and
splits a number from its unit. No Chinese line (or table cell line) starts with closing punctuation or "·", an
identifier (SUANLI_API_TOKEN, tpot_steady_s) is never split at its "_", and a short Chinese word (华为昇腾, （按月）)
or a header (样本内中位数) is never split inside."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from cli_run import run_cli
from rich.cells import cell_len

from suanli.cli import output

COMMANDS = [
    ["compare", "--model", "qwen2.5-14b", "--gpu", "h800", "--gpu", "910b", "--gpus", "2", "--concurrent-users", "100",
     "--tpot", "0.05"],
    ["compare", "--model", "qwen2.5-14b", "--task", "lora", "--gpu", "rtx-4090", "--gpu", "a100-80g", "--gpu", "910b",
     "--gpus", "8", "--tokens", "1e8"],
    ["rent-vs-buy", "--gpu", "910b", "--cards", "16"],
    ["rent-vs-buy", "--gpu", "h20", "--offer-kinds", "all"],
    ["tco", "--gpu", "h100", "--gpus", "8", "--hours", "40", "--offer-kinds", "all"],
    ["tco", "--gpu", "910b", "--gpus", "8", "--hours", "300", "--subsidy", "0.25", "--tokens-per-s", "5000"],
    ["migrate", "cost", "--model", "qwen2.5-72b", "--task", "full", "--from-gpu", "h800", "--to-gpu", "a800",
     "--region", "any", "--offer-kinds", "all", "--gpus", "8"],
    ["migrate", "cost", "--model", "qwen2.5-14b", "--from-gpu", "h100", "--to-gpu", "910b", "--monthly-spend",
     "100000", "--offer-kinds", "listing,index"],
    ["migrate", "check", "--model", "qwen3-30b-a3b", "--task", "full", "--torch-npu", "2.6"],
    ["offers", "--device", "rtx-4090", "--billing-unit", "hour"],
    ["offers", "--region", "cn", "--offer-kinds", "listing"],
    ["plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8"],
    ["estimate", "--model", "qwen2.5-72b", "--task", "inference", "--gpu", "h20", "--gpus", "4", "--tp", "4",
     "--batch", "32", "--engine", "vllm", "--precision", "fp8"],
    ["gpu", "910b"],
    ["validate"],
]

# what no Chinese line, and no line of a table cell, may start with (a cell's line follows two spaces of gap)
_BAD_START = re.compile(r"(?:^|\S  +)([，。、；：）」·])")


def _bench_store(tmp_path: Path) -> Path:
    spec = importlib.util.spec_from_file_location("b3_factories", Path(__file__).parents[1] / "bench" / "factories.py")
    assert spec and spec.loader
    factories = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(factories)
    from suanli.bench.results import ResultStore

    ResultStore(tmp_path / "bench").save(factories.small_result())
    return tmp_path / "bench"


_IDENT = re.compile(r"(?<![\w-])[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+(?![\w-])")  # SUANLI_API_TOKEN, tpot_steady_s


def _check(text: str, wide: str, columns: int, zh: bool, where: str) -> None:
    for line in text.splitlines():
        assert cell_len(line) <= columns, f"{where}: {cell_len(line)} > {columns}: {line!r}"
        assert not line.strip().startswith("·"), f"{where}: {line!r}"
        if zh:
            assert not _BAD_START.search(line), f"{where}: {line!r}"
            assert not re.search(r"华为昇$|^腾|（按$|^月）", line.strip()), f"{where}: {line!r}"
    # each identifier of the unwrapped output (400 columns) is whole at this width; a table that left a column out
    # at this width (named under it: migrate check's NPU kernels) does not show that column's cells
    left_out = any(x in text.replace("\n", "") for x in ("columns left out at", "未显示的列"))
    idents = {x for line in wide.splitlines() if not (left_out and re.search(r"\S {2,}\S", line))
              for x in _IDENT.findall(line)}
    assert not {x for x in idents if x not in text}, where


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_line_fits_the_terminal(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    commands = [*COMMANDS, ["bench", "show", "--store", str(_bench_store(tmp_path))]]
    for args in commands:
        _, wide, _ = run_cli(["--lang", lang, *args], monkeypatch, capsys, home, columns=400)
        for columns in (80, 120):
            code, out, err = run_cli(["--lang", lang, *args], monkeypatch, capsys, home, columns=columns)
            assert code == 0, f"{args}: {out}{err}"
            _check(out + err, wide, columns, lang == "zh", f"{lang} {columns} {' '.join(args)}")


def test_zh_validate_headers_whole_at_120(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """样本内中位数 wraps at its space (样本内 | 中位数), never 样本 | 内中 | 位数, at 80 and 120 columns."""
    for columns in (80, 120):
        code, out, _ = run_cli(["--lang", "zh", "validate"], monkeypatch, capsys, tmp_path, columns=columns)
        assert code == 0
        cells = {c for line in out.splitlines() for c in re.split(r"\s{2,}", line.strip())}
        assert not cells & {"样本", "内中", "位数", "原文方法中", "参考文章方法中", "中位"}, cells


@pytest.mark.parametrize("text", ["tp1 × 2 个副本 · 批大小 241 · vllm-ascend", "华为昇腾 910B 2.57（按月）",
                                  "set SUANLI_API_TOKEN or attn_implementation, see tpot_steady_s"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_breaker_keeps_words_and_dots(text: str, lang: str) -> None:
    output.set_lang(lang)
    try:
        pieces = [p.strip() for p in output.line_pieces(text)]
    finally:
        output.set_lang(None)
    assert "".join(output.line_pieces(text)) == text
    assert "·" not in pieces  # " · " stays at the end of the piece before it
    for word in ("SUANLI_API_TOKEN", "attn_implementation,", "tpot_steady_s"):
        assert word not in text or word in pieces
    if lang == "zh":
        for word in ("华为昇腾", "（按月）", "批大小", "2 个副本 ·"):
            assert word not in text or word in pieces, pieces
