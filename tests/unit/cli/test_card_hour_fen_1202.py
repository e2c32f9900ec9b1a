"""Every ¥/card-h cell prints to the fen (buyer review 2026-12-02): tco printed the 910B month's job price as '2.6' beside
the list price '2.57', compare printed 'job ¥/card-h' the same way; output.Price with 2 decimals, as offers does."""

from __future__ import annotations

import re


def test_tco_and_compare_print_card_hour_prices_to_the_fen(monkeypatch, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from cli_run import run_cli

    def cli(*args: str) -> str:
        code, out, err = run_cli(args, monkeypatch, capsys, tmp_path, columns=220)
        assert code == 0, err
        return out

    tco = cli("tco", "--gpu", "910b", "--hours", "720", "--gpus", "8", "--offer-kinds", "all")
    row = next(line for line in tco.splitlines() if "omniyq" in line)
    assert re.search(r"\b2\.57\s+2\.60\b", row), row  # list and job price, both to the fen
    cmp = cli("compare", "--model", "qwen2.5-7b", "--task", "lora", "--gpu", "910b", "--gpu", "a100-80g", "--gpus", "8",
              "--tokens", "1e8")
    prices = re.findall(r"\b\d[\d,]*\.\d+\b", next(line for line in cmp.splitlines() if "910B" in line))
    assert prices and all(re.fullmatch(r"[\d,]+\.\d\d\d?", p) for p in prices), prices
