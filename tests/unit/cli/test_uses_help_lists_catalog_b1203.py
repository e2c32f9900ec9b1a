"""`--uses` of `migrate check` and `migrate cost` listed a typed "flash-attn, bitsandbytes, gptq, awq, fp8, deepspeed,
…" that f004834's triton, apex, xformers and liger-kernel rows were missing from. The help's list is now the data's
(`{libraries}` in help.migrate.*.uses, filled from libraries.yaml when help prints: migrate.libraries.uses_names), in
English and Chinese: every library id the catalog has is in it, and a row added to the data is in it without another
edit. The API's `uses` descriptions: tests/unit/api/test_uses_description_b1203.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_run import run_cli

import suanli.migrate.libraries as libraries_mod
from suanli.migrate.libraries import Library, load_libraries

COMMANDS = [["migrate", "check"], ["migrate", "cost"]]


def _uses_help(words: list[str], lang: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
               tmp_path: Path) -> str:
    code, out, err = run_cli(["--lang", lang, *words, "--help"], monkeypatch, capsys, tmp_path, columns=400)
    assert code == 0, err
    rows = [line.strip(" │") for line in out.splitlines()]
    start = next(i for i, r in enumerate(rows) if r.startswith("--uses"))
    end = next(i for i in range(start + 1, len(rows)) if rows[i].startswith("--") or rows[i].startswith("╰"))
    return " ".join(" ".join(rows[start:end]).split())


def _named(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_uses_help_names_every_catalog_library(words: list[str], lang: str, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = _uses_help(words, lang, monkeypatch, capsys, tmp_path)
    ids = [lib.id for lib in load_libraries().libraries]
    assert {"triton", "apex", "xformers", "liger-kernel"} <= set(ids)
    assert [i for i in ids if not _named(text, i)] == [], text
    assert "{libraries}" not in text and "…" not in text and "`" not in text, text  # the whole list, unquoted
    assert ("xformers、liger-kernel" if lang == "zh" else "xformers, liger-kernel") in text, text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_library_added_to_the_data_is_in_the_help(lang: str, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    libs = load_libraries()
    extra = Library(id="my-cuda-kernels", names=("my-cuda-kernels",), status="none", message="m", message_zh="m",
                    sources=())
    monkeypatch.setattr(libraries_mod, "load_libraries",
                        lambda *a: libs.model_copy(update={"libraries": (*libs.libraries, extra)}))
    for words in COMMANDS:
        assert _named(_uses_help(words, lang, monkeypatch, capsys, tmp_path), "my-cuda-kernels")
