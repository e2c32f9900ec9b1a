"""Audit 2026-12-01 (8): `suanli compare` prints each row's bill notes (tco's: billing rounding, a machine or block
rented whole) numbered under the table, one number per distinct sentence naming its devices, in en and zh."""

from __future__ import annotations

import os
import subprocess
import sys

ARGS = ("compare", "--model", "qwen2.5-14b", "--task", "lora", "--gpu", "a100-80g", "--gpu", "910b", "--gpus", "8",
        "--tokens", "1e8")


def _run(*args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "220"})
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_compare_prints_the_billing_note_numbered() -> None:
    # one number per distinct sentence: since 89a0e8a LLaMA-Factory on the 910B takes mfu-default (1.8 h against the
    # A100's 1.4 h), so the two rows' bills are two sentences, each naming its device
    lines = [x for x in _run(*ARGS).splitlines() if x[:4] in ("(1) ", "(2) ", "(3) ")]
    assert len(lines) == 2, lines
    assert "A100" in lines[0] and "910B" not in lines[0] and "billed 1 month = 730 h for a 1.4 h job" in lines[0]
    assert "910B" in lines[1] and "A100" not in lines[1] and "billed 1 month = 730 h for a 1.8 h job" in lines[1]


def test_compare_prints_the_billing_note_in_chinese() -> None:
    lines = [x for x in _run("--lang", "zh", *ARGS).splitlines() if x.startswith("(1) ")]
    assert len(lines) == 1 and "按 1 个月计费 = 730 小时" in lines[0] and "billed" not in lines[0], lines
