"""The last English in `--lang zh` (buyer check 2026-12-01): `offers import` of a CSV missing a required column, an
empty file, bad YAML (the parser's own text framed in Chinese) and a missing path; `offers rollback` and `plans
--show` of an unknown id (the label before the colon in Chinese: an argument has no flag to keep); the relax hint
that lists lighter tasks joins them with 或."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .test_errors_zh import _run_cli, english_words

# the words these lines may keep: the parser's own text (quoted by the catalog message), column names, task ids
_PARSER = re.compile(r"(不是有效的 YAML：).*$", re.M)


def _bad_files(tmp_path: Path) -> dict[str, Path]:
    files = {"miss.csv": "id,provider,device,cards,billing_unit,price_cny,date\nx,p,rtx-4090,1,hour,1,2026-01-01\n",
             "twice.csv": "id,id,provider,device,cards,billing_unit,price_cny,date,source\n",
             "empty.csv": "", "bad.yaml": "a: [1, 2\nb: 3\n"}
    out = {}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        out[name] = tmp_path / name
    out["nope.csv"] = tmp_path / "nope.csv"
    return out


CASES = [
    ("miss.csv", "，第 1 行，字段 source：表头缺少必需的列"),
    ("twice.csv", "，第 1 行，字段 id：此列在表头中出现了两次"),
    ("empty.csv", "：文件为空：没有表头行"),
    ("bad.yaml", "，第 2 行：不是有效的 YAML：expected ',' or ']', but got ':'"),
    ("nope.csv", "' 不存在"),
]


@pytest.mark.parametrize(("name", "tail"), CASES, ids=[c[0] for c in CASES])
def test_offers_import_refusals_in_chinese(name: str, tail: str, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _bad_files(tmp_path)[name]
    err = _run_cli(("--lang", "zh", "offers", "import", str(path)), monkeypatch, capsys, tmp_path)
    line = err.strip().splitlines()[-1]
    assert line.startswith("错误：") and line.endswith(tail), err
    if name == "nope.csv":
        assert line.startswith("错误：文件：'"), err  # not `file:`
    said = re.sub(r"字段 \w+", "字段", line.replace(str(path), ""))  # a column keeps its name
    assert english_words(_PARSER.sub(r"\1", said)) == [], err
    assert "file" not in line.replace(str(path), "") and "header" not in line, err


@pytest.mark.parametrize(("args", "line"), [
    (("offers", "rollback", "nope"), "错误：导入批次编号：必须是整数（实际为 'nope'）"),
    (("offers", "rollback", "5"), "错误：导入批次：未知的导入批次：'5'。"),
    (("plans", "--show", "99"), "错误：方案：未知的方案：'99'。"),
], ids=["rollback-nope", "rollback-5", "plans-show-99"])
def test_argument_labels_in_chinese(args: tuple[str, ...], line: str, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    err = _run_cli(("--lang", "zh", *args), monkeypatch, capsys, tmp_path)
    assert err.strip().splitlines()[-1] == line, err
    assert not re.search(r"\b(import|import_id|import-id|plan):", err), err


def test_argument_labels_stay_in_english(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    err = _run_cli(("offers", "rollback", "nope"), monkeypatch, capsys, tmp_path)
    assert err.strip().splitlines()[-1] == "error: import_id: must be a whole number (got 'nope')", err
    err = _run_cli(("offers", "import", str(tmp_path / "empty.csv")), monkeypatch, capsys, tmp_path)
    assert err.strip().endswith("file: '" + str(tmp_path / "empty.csv") + "' does not exist"), err


def test_relax_lighter_tasks_joined_in_chinese(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from suanli.cli.main import app

    args = ["plan", "--model", "llama-3.1-70b", "--task", "full", "--tokens", "1e9", "--domestic-only"]
    env = {"COLUMNS": "300", "SUANLI_HOME": str(tmp_path)}
    zh = CliRunner().invoke(app, ["--lang", "zh", *args], env=env).output
    assert "lora 或 qlora" in zh and " or " not in zh, zh
    en = CliRunner().invoke(app, ["--lang", "en", *args], env=env).output
    assert "lora or qlora" in en, en
