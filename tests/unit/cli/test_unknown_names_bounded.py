"""Review 2026-12-01 (full-hB): `suanli gpu <60 KB>` printed a 60 KB line and `suanli gpu h1` suggested h100,
h100-sxm, h100-80gb (one device), `gpu x` mlu370-x8 three ways, `gpu 华为` the alphabetical list."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner


def _err(args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> str:
    code, _, err = run_cli(["--lang", "en", *args], monkeypatch, capsys, tmp_path)
    assert code == 2
    return err


@pytest.mark.parametrize("args", [["gpu", "x" * 60_000], ["model", "x" * 60_000],
                                  ["estimate", "--model", "qwen2.5-7b", "--gpu", "x" * 60_000]])
def test_a_long_name_is_one_short_line(args: list[str], monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    err = _err(args, monkeypatch, capsys, tmp_path)
    assert len(err) < 600 and "'" + "x" * 80 + "…'" in err, err[:600]


@pytest.mark.parametrize(("args", "said"), [
    (["gpu", "h1"], "Did you mean: h100-sxm"),
    (["gpu", "x"], "unknown gpu 'x'; known: a10, "),
    (["gpu", "0"], "unknown gpu '0'; known: a10, "),
    (["gpu", "华为"], "Did you mean: ascend-910b"),
    (["model", "q"], "unknown model 'q'; known: "),
])
def test_suggestions(args: list[str], said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                     tmp_path: Path) -> None:
    err = _err(args, monkeypatch, capsys, tmp_path)
    assert said in err and "h100-80gb" not in err and "寒武纪" not in err, err
    if "Did you mean: " in err:
        names = err.split("Did you mean: ", 1)[1].split("?", 1)[0].split(", ")
        assert len(names) == len(set(names)), names
