"""Buyer review C (2026-12-02): `suanli compare --model DeepSeek-R1-Distill-Qwen-32B --gpu rtx-4090 --gpu a100 --gpus 4
--concurrent-users 100 --tpot 0.05 --ttft 1` printed the 4090 row "fits: yes … cost ¥5,490" — the cheapest cost in
the table — for cards that hold 24 of the 100 users (said only in a line under the table). The fits cell now says
"yes, short of the load" (zh "是，承载不了该负载") on a row whose cards fit but do not carry the stated rate or users;
a row that carries it, and every row without a rate, reads as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner

ARGS = ("compare", "--model", "DeepSeek-R1-Distill-Qwen-32B", "--gpu", "rtx-4090", "--gpu", "a100", "--gpus", "4")
USERS = ("--concurrent-users", "100", "--tpot", "0.05", "--ttft", "1")


def _row(out: str, name: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(name))


@pytest.mark.parametrize(("lang", "short", "yes"), [("en", "yes, short of the load", "yes"),
                                                    ("zh", "是，承载不了该负载", "是")])
def test_a_row_short_of_the_users_says_so_in_its_fits_cell(lang: str, short: str, yes: str,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(("--lang", lang, *ARGS, *USERS), monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert short in _row(out, "NVIDIA GeForce RTX 4090")
    a100 = _row(out, "NVIDIA A100")
    assert short not in a100 and f" {yes} " in a100


def test_a_stated_rate_short_is_said_too(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    code, out, err = run_cli(("--lang", "en", *ARGS, "--requests-per-s", "20"), monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert "short of the load" in _row(out, "NVIDIA A100")  # 4 A100s serve at most ~15 req/s
    assert "likely short" in _row(out, "NVIDIA GeForce RTX 4090")  # a memory verdict stays first


def test_without_a_rate_the_cell_is_as_before(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    code, out, err = run_cli(("--lang", "en", *ARGS), monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert "short of the load" not in out
