"""Help in Chinese: under `--lang zh` (or a zh LC_ALL / LANG) every command's text and every option's help comes
from the message catalog (`help.<command>.<flag>`, or `help.<flag>` where every command words it alike; a
sub-command's text `help.<group>.<sub>`, a command's `cmd.<name>`), and English help stays byte-identical to what
the source's `help=` strings print (help_en_golden.txt, rendered at COLUMNS=80 before the catalog existed;
regenerate with SUANLI_UPDATE_GOLDEN=1 only for an intended change of an English help)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import typer.main
from cli_run import run_cli

from suanli.cli.main import _command_text, app, filled_help, help_key_candidates
from suanli.cli.output import unquote
from suanli.i18n import messages

GOLDEN = Path(__file__).resolve().parent / "help_en_golden.txt"


_CTX: list[Any] = []


def _tree() -> list[tuple[list[str], Any]]:
    """Every command as (its words after `suanli`, the click command), the root first."""
    root: Any = typer.main.get_command(app)
    ctx = root.make_context("suanli", ["--help"], resilient_parsing=True)
    _CTX[:] = [ctx]
    out: list[tuple[list[str], Any]] = [([], root)]

    def walk(words: list[str], cmd: Any) -> None:
        out.append((words, cmd))
        for sub, c in (getattr(cmd, "commands", None) or {}).items():
            walk([*words, sub], c)

    for name in root.list_commands(ctx):
        walk([name], root.get_command(ctx, name))
    return out


def _help(words: list[str], lang: str | None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
          tmp_path: Path, columns: int = 80, lc_all: str | None = None) -> str:
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    if lc_all:
        monkeypatch.setenv("LC_ALL", lc_all)
    monkeypatch.setenv("LANG", "C.UTF-8")
    # click names the program after sys.argv[0] only when `__main__` is a file: under `python -m pytest` it would
    # print "python -m pytest.suanli" in the usage line
    monkeypatch.setattr(sys.modules["__main__"], "__package__", None, raising=False)
    args = [*(["--lang", lang] if lang else []), *words, "--help"]
    code, out, err = run_cli(args, monkeypatch, capsys, tmp_path, columns=columns)
    assert code == 0, (args, err)
    return out


def _options(cmd: Any) -> list[Any]:
    """A command's options and arguments, --help included."""
    return [*cmd.params, *filter(None, [cmd.get_help_option(_CTX[0])])]


def test_every_option_and_command_has_a_chinese_help() -> None:
    zh, en = messages("zh"), messages("en")
    missing = []
    for words, cmd in _tree():
        path = ".".join(words) or "suanli"
        for p in _options(cmd):
            keys = [k for k in help_key_candidates(path, p) if en.get(k) == p.help]
            if not keys or keys[0] not in zh:
                missing.append(f"{path} {p.opts or p.name}: {p.help!r}")
        if words and cmd.help and _command_text(path, cmd.help, zh, en) is None:
            missing.append(f"{path}: {cmd.help!r}")
    assert missing == []


def test_every_help_id_names_an_option_or_a_command() -> None:
    """No stale ids: each `help.*` is the help of a flag or argument of a command, each `cmd.<group>.<sub>` and
    `cmd.<command>.more` a command's own text (tests/unit/i18n/test_catalog_ids.py leaves these ids to this test)."""
    names: set[str] = set()
    for words, cmd in _tree():
        path = ".".join(words) or "suanli"
        names.update({f"cmd.{path}", f"cmd.{path}.more"})
        for p in _options(cmd):
            names.update(help_key_candidates(path, p))
    stale = sorted(k for k in messages("en") if (k.startswith("help.") or k.startswith("cmd.") and "." in k[4:])
                   and k not in names)
    assert stale == []


def test_english_help_is_unchanged(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                   tmp_path: Path) -> None:
    got = "".join(f"=== suanli {' '.join(w)}\n" + _help(w, None, monkeypatch, capsys, tmp_path) for w, _ in _tree())
    assert got == _help_with_lang_en(monkeypatch, capsys, tmp_path)
    if os.environ.get("SUANLI_UPDATE_GOLDEN") or not GOLDEN.exists():
        GOLDEN.write_text(got, encoding="utf-8")
    assert got == GOLDEN.read_text(encoding="utf-8")


def _help_with_lang_en(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> str:
    return "".join(f"=== suanli {' '.join(w)}\n" + _help(w, "en", monkeypatch, capsys, tmp_path) for w, _ in _tree())


# an English sentence: four Latin words in a row (flags, `code`, 'quoted', ids and units removed first)
_ENGLISH = re.compile(r"[A-Za-z]{2,}(?:[ ,;:/()-]+[A-Za-z]{2,}){3,}")
_NOT_PROSE = re.compile(r"`[^`]*`|'[^']*'|(?<![\w-])--?[\w-]+|\$\w+|\w+\.(?:yaml|json)|https?://\S+|\{[^}]*\}")


def _english_runs(text: str) -> list[str]:
    return _ENGLISH.findall(_NOT_PROSE.sub(" ", text))


def _code_removed(text: str) -> str:
    """Printed help with the catalog's code removed: the CLI prints it without its backticks (output.unquote), so
    the code the zh catalog quotes (`suanli bench import OUTDIR`) is found by its text."""
    spans = sorted({c for v in messages("zh").values() for c in re.findall(r"`([^`]+)`", v)}, key=len, reverse=True)
    return re.sub(r"(?<![\w-])(?:" + "|".join(map(re.escape, spans)) + r")(?![\w-])", " ", text)


@pytest.mark.parametrize("env", [None, "zh_CN.UTF-8"])
def test_chinese_help_has_no_english_sentence(env: str | None, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad: dict[str, list[str]] = {}
    for words, _ in _tree():
        out = _help(words, None if env else "zh", monkeypatch, capsys, tmp_path, lc_all=env)
        # the rows of the tables and the text, joined across the table's wrapped lines; not the usage line
        # (`suanli rent-vs-buy [OPTIONS]`), whose Chinese label the test below checks
        text = " ".join(line.strip(" │╭╮╰╯─") for line in out.splitlines() if not line.strip().startswith("用法："))
        runs = _english_runs(_code_removed(text))
        if runs:
            bad[" ".join(words) or "suanli"] = runs
        assert "选项" in out, out
    assert bad == {}


def test_chinese_help_fits_80_columns(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                      tmp_path: Path) -> None:
    """Every line within 80 cells, every row in its box, and every option's Chinese help printed whole: rich breaks
    lines at spaces only and crops a longer run with "…" (output._breaker, output._rstrip_end_cells); code printed
    without its backticks (output.unquote)."""
    from rich.cells import cell_len

    en = messages("en")
    for words, cmd in _tree():
        out = _help(words, "zh", monkeypatch, capsys, tmp_path)
        for line in out.splitlines():
            assert cell_len(line) <= 80, (words, line)
        rows = [line for line in out.splitlines() if line.startswith("│")]
        assert all(line.endswith("│") for line in rows), (words, out)  # no table row broken out of its box
        printed = re.sub(r"[\s│]", "", out)
        for p in _options(cmd):
            k = next(k for k in help_key_candidates(".".join(words) or "suanli", p) if en.get(k) == p.help)
            text = filled_help(k, "zh")  # a field of the data's (`{libraries}`) as help prints it
            assert re.sub(r"\s", "", unquote(text)) in printed, (words, text)


def test_the_english_sentence_check_sees_english() -> None:
    assert _english_runs("推理服务：serving: time-per-output-token target, s") == ["serving: time-per-output-token target"]
    assert _english_runs("固定精度：bf16、fp8 `all-linear for q v` --max-gpus 'a b c d'") == []


def test_chinese_plan_help_reads(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                 tmp_path: Path) -> None:
    out = _help(["plan"], "zh", monkeypatch, capsys, tmp_path)
    assert "用法：suanli plan [OPTIONS]" in out and "每秒请求数" in out and "--requests-per-s" in out
    assert "用哪种卡、几张" in out and "Options" not in out


def test_english_help_ids_quote_the_source() -> None:
    """en.json's `help.*` is the source's `help=` text (the key a Chinese help is found by); the zh text says the
    same with the same flags."""
    zh, en = messages("zh"), messages("en")
    for k, v in en.items():
        if k.startswith("help."):
            flags = set(re.findall(r"--[a-z][\w-]*", v))
            assert flags <= set(re.findall(r"--[a-z][\w-]*", zh[k])), k
