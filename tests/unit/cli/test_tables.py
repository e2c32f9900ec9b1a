"""CLI tables keep words whole at 80 columns (issue 13 item 5): cells wrap only at spaces, after · _ and
between CJK characters (never inside 1,600, GB/s or rtx-4090); low-value columns (the caller's, then constant
ones) go before anything wraps, and columns that cannot fit are named under the table. `plans --show` prints
a saved plan as tables; `gpu NAME` speaks the run's language."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
import pytest
from rich.cells import cell_len

from suanli.cli.output import _GAP, _min_width, _pieces, fit_columns, wrap_cell

WORD = st.text(alphabet="abcxyz0123456789-.·/,_¥算力显存", min_size=1, max_size=14)
TEXT = st.lists(st.one_of(WORD, st.just(" "), st.just("  ")), min_size=1, max_size=12).map("".join)


def _bare(text: str) -> str:
    """`text` without white space and without "·": wrap_cell drops a separating dot at a break ('0 ·' at width 1,
    '力·0' after a CJK character), so a dot is not counted; every other character is."""
    return re.sub(r"[\s·]", "", text)


@given(text=TEXT, extra=st.integers(0, 30))
def test_wrap_keeps_pieces_whole_and_within_width(text: str, extra: int) -> None:
    width = max(1, _min_width(text)) + extra
    out = wrap_cell(text, width)
    assert all(cell_len(line) <= width for line in out.split("\n"))
    # nothing lost or added but line breaks and separating dots dropped at a break
    assert _bare(out) == _bare(text)
    lines = out.split("\n")
    for piece in _pieces(text):
        if piece.strip() and piece.strip() != "·":  # a separating dot may be dropped at a break (`_bare`)
            assert any(piece.strip() in line for line in lines), (piece, out)


def test_wrap_breaks_only_at_allowed_places() -> None:
    assert wrap_cell("rtx-4090 llama-factory", 14).split("\n") == ["rtx-4090", "llama-factory"]
    assert wrap_cell("tp1·pp1·dp4·z3", 8).split("\n") == ["tp1·pp1·", "dp4·z3"]
    # an identifier never splits at its "_" (review 2026-12-01: SUANLI_ | API_TOKEN, tpot_ | steady_s)
    assert wrap_cell("memory_bandwidth_gb_per_s tpot_steady_s", 25).split("\n") == ["memory_bandwidth_gb_per_s",
                                                                                "tpot_steady_s"]
    assert wrap_cell("没有公开的显存带宽", 8).split("\n") == ["没有公开", "的显存带", "宽"]
    assert wrap_cell("1,600 GB/s", 6).split("\n") == ["1,600", "GB/s"]


@given(rows=st.lists(st.lists(TEXT, min_size=4, max_size=4), min_size=1, max_size=6), width=st.integers(20, 120))
def test_fit_columns_fits_the_width_with_words_whole(rows: list[list[str]], width: int) -> None:
    cells = [["#", "device", "cards", "reason"], *rows]
    keep, widths = fit_columns(cells, width)
    assert keep[0] == 0 and len(keep) == len(widths)
    if len(keep) > 1:
        assert sum(widths) + _GAP * (len(keep) - 1) <= width
    lo = [max(_min_width(r[j]) for r in cells) for j in range(4)]
    if sum(lo) + _GAP * 3 <= width:  # every word fits whole: nothing is cut, only constant columns left out
        assert all(w >= lo[j] for j, w in zip(keep, widths))
        assert all(len({r[j] for r in cells[1:]}) == 1 for j in range(4) if j not in keep)


def test_long_ids_are_cut_before_a_column_goes() -> None:
    cells = [["id", "device", "acc"], ["20261130T214233-cpu-tiny-llama-fp32-b1-in128-out64", "cpu Intel Xeon", "pass"]]
    keep, widths = fit_columns(cells, 30)
    assert keep == [0, 1, 2] and sum(widths) + 2 * _GAP <= 30


def test_constant_and_zero_columns_go_first() -> None:
    cells = [["#", "device", "fw", "¥ migr", "¥ total"],
             ["1", "rtx-4090", "llama-factory", "0", "13.64"], ["2", "rtx-3090", "llama-factory", "0", "21.28"]]
    assert fit_columns(cells, 80)[0] == [0, 1, 2, 3, 4]
    assert fit_columns(cells, 40)[0] == [0, 1, 2, 4]  # the all-zero column first
    assert fit_columns(cells, 25)[0] == [0, 1, 4]


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    e = {**os.environ, "COLUMNS": "80", "LANG": "en_US.UTF-8", "LC_ALL": "", **(env or {})}
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True, env=e,
                          timeout=120)


PLAN = ["plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--region", "any", "--offer-kinds", "all"]


def _table_lines(out: str) -> list[str]:
    return out.splitlines()


def test_plan_at_80_columns_keeps_names_whole(tmp_path: Path) -> None:
    plans = json.loads(_run(*PLAN, "--json").stdout)["plans"]
    for lang in ("en", "zh"):
        r = _run("--lang", lang, *PLAN)
        assert r.returncode == 0, r.stderr
        lines = _table_lines(r.stdout)
        assert max(cell_len(x) for x in lines) <= 80
        for p in plans:  # every device id whole on one line of the table
            assert any(re.search(rf"^\s*{p['rank']}\s+{re.escape(p['device'])}(\s|$)", x) for x in lines), (p["device"], r.stdout)


def test_gpu_detail_at_80_columns_keeps_names_whole() -> None:
    zh = _run("--lang", "zh", "gpu", "910b")
    assert "显存带宽（GB/s）" in zh.stdout and "来源不一致的字段" in zh.stdout and "sources disagree" not in zh.stdout
    r = _run("gpu", "910b")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert max(cell_len(x) for x in lines) <= 80
    # the note's identifier 'intra_node_bandwidth' stays whole (review 2026-12-01), so a source id may break after
    # its '-' (gitee-ascend- | clusters), never inside a part
    for word in ("ascend-perf-model", "'intra_node_bandwidth',", "bandwidth", "2026-11-30", "1,600"):
        assert any(word in x for x in lines), word
    assert any("gitee-ascend-clusters" in x for x in lines) or (
        any("gitee-ascend- " in x for x in lines) and any(" clusters " in x for x in lines))
    assert not any(x.rstrip().endswith(("ascend-perf-m", "ascend-p")) for x in lines)


def test_plans_show_prints_tables(tmp_path: Path) -> None:
    env = {"SUANLI_DATABASE_URL": f"sqlite:///{tmp_path / 'plans.db'}"}
    saved = _run(*PLAN, "--save", "--json", env=env)
    assert saved.returncode == 0, saved.stderr
    device = json.loads(saved.stdout)["plans"][0]["device"]
    r = _run("--lang", "zh", "plans", "--show", "1", env=env)
    assert r.returncode == 0, r.stderr
    assert "推荐方案" in r.stdout and device in r.stdout and not r.stdout.lstrip().startswith("{")
    as_json = _run("plans", "--show", "1", "--json", env=env)
    assert json.loads(as_json.stdout)["id"] == 1


def test_fit_columns_measures_no_word_when_every_column_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table that fits at its full widths gets them without splitting a cell into words (the steps that drop,
    wrap or cut columns come to the same widths: ~10 M instructions of `suanli estimate`)."""
    from suanli.cli import output

    cells = [["item", "per GPU"], ["weights", "13.48 GB (12.55 GiB)"], ["KV cache", "0.40 GB (0.38 GiB)"]]
    expected = fit_columns(cells, 80)

    def no_words(text: str) -> list[str]:
        raise AssertionError(f"measured the words of {text!r}")

    monkeypatch.setattr(output, "_pieces", no_words)
    assert fit_columns(cells, 80) == expected == ([0, 1], [8, 20])
    with pytest.raises(AssertionError, match="measured the words"):  # a table too wide measures them
        fit_columns(cells, 20)
