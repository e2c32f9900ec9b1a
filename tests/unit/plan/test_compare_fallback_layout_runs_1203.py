"""Buyer review 2026-12-03 (task J.3): `compare --model qwen2.5-7b --task lora --gpus 8 --gpu h100 --gpu ascend-910b1`
failed outright with MindSpeed-LLM's head rule ("--tp 8 must divide … 28 attention heads") although no tp was pinned:
the 910B1 (no published bandwidth) got compare's no-framework fallback layout, tp 8, which `estimate` refuses. The
fallback is now the widest tp (ZeRO 3, then 1, then 0) that `estimate` takes; the row is shown as not estimable."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.cli.main import app
from suanli.errors import InputError
from suanli.plan.compare import compare_devices

ARGS = ("compare", "--model", "qwen2.5-7b", "--task", "lora", "--gpus", "8", "--gpu", "h100", "--gpu", "ascend-910b1")


def test_compare_never_refuses_its_own_fallback_layout(cat: Catalog) -> None:
    rows = {r["device"]: r for r in compare_devices(cat, lookup.model(cat, "qwen2.5-7b"), ["h100", "ascend-910b1"],
                                                    task="lora", gpus=8)}
    b1 = rows["ascend-910b1"]
    assert b1["runs"] is False and b1["tokens_per_s"] is None
    lay = b1["layout"]
    assert lay["tp"] in (1, 2, 4) and 28 % lay["tp"] == 0 and 4 % lay["tp"] == 0  # heads and KV heads divide
    assert lay["tp"] == 1 or lay["zero"] in (0, 1)  # MindSpeed-LLM's ZeRO beside tp
    assert rows["h100-sxm"]["runs"] is True


def test_a_pinned_tp_is_still_refused_naming_it(cat: Catalog) -> None:
    with pytest.raises(InputError) as e:
        compare_devices(cat, lookup.model(cat, "qwen2.5-7b"), ["h100", "ascend-910b1"], task="lora", gpus=8, tp=8)
    assert e.value.field == "tp"


def test_cli_row_says_not_estimable_not_does_not_fit() -> None:
    out = CliRunner().invoke(app, ["--lang", "en", *ARGS], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    row = next(ln for ln in out.output.splitlines() if ln.startswith("Huawei Ascend 910B1"))
    assert "none — not estimable (the note below says why)" in row and "does not fit" not in row
    assert "Huawei Ascend 910B1: no published memory bandwidth" in out.output
