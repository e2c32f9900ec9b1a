"""Chinese output as a native reader expects it at the CLI's render step (review 2026-12-01, task full-B): code
printed without the catalog's backticks (both languages, the CLI only), one line breaker for table cells and
wrapped paragraphs (no line starts with ，。、；：）」, a number stays with its unit), one term per concept in
zh.json, validate's groups named in Chinese and tco's count with its unit at 80 columns."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_run import run_cli
from rich.console import Console

from suanli.cli import output
from suanli.i18n import messages

NO_LINE_START = "，。、；：）」"
WIDTHS = (80, 120)


@pytest.fixture
def zh() -> object:
    output.set_lang("zh")
    yield
    output.set_lang(None)


def _lines_ok(text: str) -> None:
    for line in text.splitlines():
        body = line.strip()
        assert not body or body[0] not in NO_LINE_START, line


# 1. backticks -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_error_prints_code_without_backticks(lang: str, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(["--lang", lang, "bench", "compare"], monkeypatch, capsys, tmp_path, columns=80)
    assert code == 2 and "suanli bench run" in err and "`" not in err
    assert "`suanli bench run`" in messages(lang)["error.no_results"]  # the catalog keeps them (JSON, API, page)


@pytest.mark.parametrize(("lang", "args"), [("zh", ["migrate", "check", "--help"]), ("en", ["plans", "--help"]),
                                            ("zh", ["bench", "suite", "--help"])])
def test_help_prints_code_without_backticks(lang: str, args: list[str], monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for width in WIDTHS:
        code, out, _ = run_cli(["--lang", lang, *args], monkeypatch, capsys, tmp_path, columns=width)
        assert code == 0 and out.strip() and "`" not in out


def test_tables_and_json_json_keeps_backticks(zh: object, capsys: pytest.CaptureFixture[str]) -> None:
    output.emit_rows([{"a": "用 `--offer-kinds listing,index` 纳入"}], ["a"], headers={"a": "`说明`"})
    shown = capsys.readouterr().out
    assert "用 --offer-kinds listing,index 纳入" in shown and "`" not in shown
    output.emit_json({"note": "用 `--offer-kinds all`"})
    assert json.loads(capsys.readouterr().out)["note"] == "用 `--offer-kinds all`"
    assert output.unquote("a ` b") == "a ` b"  # a lone backtick is text


# 2. one line breaker -------------------------------------------------------------------------------------------

SENTENCES = ["按 1 个月计费 = 730 小时，任务只需 4,380 个小时；标价 ¥150/卡时，即 2.57（按月）元/卡时",
             "8 卡 NVLink + NVSwitch 集群：> 90% 的算力是有效的，每卡 80 GiB、显存带宽 3,350 GB/s。",
             "Llama-2-7B 全参训练，ZeRO-3，8× H100 SXM，微批 1 × 2048「引用」：结束）"]
UNITS = ["4,380 个小时", "¥150/卡时", "80 GiB", "730 小时", "1 个月", "3,350 GB/s", "90%"]


@pytest.mark.parametrize("width", range(6, 41))
def test_cells_never_start_a_line_with_closing_punctuation(zh: object, width: int) -> None:
    for text in SENTENCES:
        wrapped = output.wrap_cell(text, width)
        _lines_ok(wrapped)
        lines = wrapped.split("\n")
        for unit in UNITS:
            if unit in text and width >= len(unit) + 4:
                assert any(unit in line for line in lines), (unit, lines)


@pytest.mark.parametrize("width", [20, 27, 33, 40])
def test_paragraphs_break_as_cells_do(zh: object, width: int) -> None:
    con = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    for text in SENTENCES:
        con.print(text, highlight=False)
    shown = con.export_text()
    _lines_ok(shown)
    for unit in ("4,380 个小时", "¥150/卡时", "80 GiB"):
        assert unit in shown  # never split over two lines
    assert max(len(x) for x in shown.splitlines()) <= width


def test_english_breaks_as_before() -> None:
    output.set_lang("en")
    try:
        assert output.line_pieces("tp2·pp4 80 GiB hello—world") == ["tp2·", "pp4 ", "80 ", "GiB ", "hello—world"]
    finally:
        output.set_lang(None)


# 3. one term per concept in zh.json ------------------------------------------------------------------------------

FORBIDDEN = {"卡·时": "卡时", "卡小时": "卡时", "KV cache": "KV 缓存", "KV-cache": "KV 缓存", "每月平均": "平均每月",
             "月平均": "平均每月", "月均": "平均每月", "地方算力补贴": "国产算力补贴", "补助": "补贴", "津贴": "补贴",
             # native reader's review, 2026-12-01 (task full-B2): one word each for the seed articles, region, offer
             # kind, TPOT, batch size, card-hours, "you", quotes; 730 h is an average month, not a calendar one
             "种子文章": "参考文章", "种子资料": "参考文章", "原文": "参考文章", "地区": "区域", "价格类型": "报价类型",
             "报价类别": "报价类型", "每个输出 token": "每 token 间隔", "批量": "批大小", "GPU·小时": "卡时", "您": "你",
             "「": "“", "」": "”", "自然月": "平均每月", "日历月": "平均每月", "吉比特": "Gbit/s"}
# 目录 is a directory (存储目录); the catalog is 型号库: 目录 only in these words
DIRECTORY_WORDS = ("数据目录", "存储目录", "模型目录", "输出目录", "结果文件目录", "此目录")


def _prose(text: str) -> str:
    return re.sub(r"`[^`]*`", "", text)  # code in backticks is quoted as it is (`hybrid KV cache manager`)


def test_zh_catalog_uses_one_term_per_concept() -> None:
    bad = [(k, word) for k, v in messages("zh").items() for word in FORBIDDEN if word.lower() in _prose(v).lower()]
    assert not bad, f"use {[FORBIDDEN[w] for _, w in bad]}: {bad}"


def test_zh_catalog_names_the_catalog_not_a_directory() -> None:
    bad = []
    for k, v in messages("zh").items():
        prose = _prose(v)
        for word in DIRECTORY_WORDS:
            prose = prose.replace(word, "")
        if "目录" in prose:
            bad.append(k)
    assert not bad, f"the catalog is 型号库: {bad}"


def test_zh_catalog_percent_and_lists() -> None:
    for k, v in messages("zh").items():
        prose = _prose(v)
        assert not re.search(r"[\d}] %", prose), k  # 60%, not 60 %
        # a list is joined with 、; ", " only inside an interval ([lo, hi], (0, 3600])
        outside = re.sub(r"[\[(][^\[\]()]*, [^\[\]()]*[\])]", "", prose)
        assert ", " not in outside, k


def test_zh_scenarios_never_print_a_device_twice(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for lang in ("zh", "en"):
        code, out, _ = run_cli(["--lang", lang, "scenarios"], monkeypatch, capsys, tmp_path, columns=300)
        assert code == 0 and not re.search(r"\b([a-z0-9]+(?:-[a-z0-9]+)+)[：:] ?\1[：:]", out), out


# 4. validate's groups in Chinese ---------------------------------------------------------------------------------

@pytest.mark.parametrize("width", WIDTHS)
def test_validate_names_groups_in_chinese(width: int, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run_cli(["--lang", "zh", "validate"], monkeypatch, capsys, tmp_path, columns=width)
    assert code == 0
    table = out.split("原文关于")[0]
    for group in ("推理显存", "训练显存", "解码速度", "预填充速度", "训练吞吐"):
        assert group in table  # whole, on one line
    assert "inference-memory" not in table and "decode-speed" not in table
    _lines_ok(out)
    code, out, _ = run_cli(["--lang", "en", "validate"], monkeypatch, capsys, tmp_path, columns=width)
    assert "inference-memory" in out


# 5. tco: the count with its unit ---------------------------------------------------------------------------------

@pytest.mark.parametrize("width", WIDTHS)
def test_tco_keeps_count_and_unit_together(width: int, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = ["tco", "--gpu", "h800", "--gpus", "8", "--hours", "40"]
    code, out, _ = run_cli(["--lang", "zh", *args], monkeypatch, capsys, tmp_path, columns=width)
    assert code == 0 and "1 个月" in out and "40 小时" in out and "计费数" not in out
    _lines_ok(out)
    if width == 80:
        assert "报价类型、" in out  # the columns left out, joined as a Chinese list
    code, out, _ = run_cli(["--lang", "en", *args], monkeypatch, capsys, tmp_path, columns=width)
    assert code == 0 and "units" in out.splitlines()[1]  # English keeps its two columns
