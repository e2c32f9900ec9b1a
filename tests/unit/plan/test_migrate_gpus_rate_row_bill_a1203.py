"""`migrate cost` with a serving rate (helper A, 2026-12-03, three defects of a review).

1. `--gpus N` (API `gpus`) beside `--requests-per-s` / `--concurrent-users` was silently ignored: plan sized each side
   itself. Now it is honoured as `suanli plan --gpus N` honours it with a rate (exactly N cards, replacing the card
   limit); with `--max-gpus` too it is refused in one line naming both; without it plan sizes each side as before.
2. A side whose bill carries the rate showed compare's row on the bill's cards — its own tp, expert groups, batch and
   precision — beside a bill computed on plan's layout (2 × 910C: tp2 × 2 beside a tp4 bill; Qwen3-30B-A3B on 4 ×
   910B: ep4 beside ep1; on 2 × H800 the "serves" batch 165 beside the bill's 140). The row is now the bill's layout
   (`compare._bill_row`): cards, tp, ep, replicas, precision, the rate's batch and the offer are the bill's.
3. A precision plan does not serve a rate at (fp16) was billed at bf16 beside a row at fp16: refused, naming the field.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.errors import InputError
from suanli.plan.compare import ServingTargets, migration_cost

ALL_KINDS = ("listing", "index", "reference", "contract")


def _cost(model: str, src: str, dst: str, rps: float, **kw: object) -> dict:
    cat = packaged_catalog()
    return migration_cost(cat, lookup.model(cat, model), dst, src, task="inference", region="any", kinds=ALL_KINDS,
                          targets=ServingTargets(rps, None, None, None, None, None, kw.pop("max_gpus", None)),
                          **kw)  # type: ignore[arg-type]


def test_gpus_with_a_rate_is_honoured_as_plans_gpus() -> None:
    sized = _cost("qwen2.5-7b", "h800", "910b", 5.0)
    assert {sized["derived"][d]["rate_bill"]["gpus"] for d in ("h800", "ascend-910b")} == {1}  # plan's sizing
    fixed = _cost("qwen2.5-7b", "h800", "910b", 5.0, gpus=2)
    for d in ("h800", "ascend-910b"):
        bill, row = fixed["derived"][d]["rate_bill"], fixed["derived"][d]["workload"]
        assert bill["carried"] and bill["gpus"] == 2 and bill["gpus_pinned"] == 2  # was 1: --gpus ignored
        assert row["gpus"] == 2 and fixed["derived"][d]["gpus_asked"] == 2
    assert fixed["derived"]["h800"]["rate_bill"]["monthly_cost_cny"] > sized["derived"]["h800"]["rate_bill"][
        "monthly_cost_cny"]  # two cards rented, not one


def test_gpus_that_do_not_carry_the_rate_say_so_and_name_the_flag() -> None:
    out = _cost("qwen2.5-7b", "h800", "910b", 60.0, gpus=1)
    bill = out["derived"]["h800"]["rate_bill"]
    assert not bill["carried"] and bill["gpus_pinned"] == 1 and bill["cards_needed"] is None
    assert bill["note_i18n"]["id"] == "mig.rate_bill.pinned" and "serves at most" in bill["note"]


def test_gpus_and_max_gpus_together_are_refused() -> None:
    with pytest.raises(InputError) as e:
        _cost("qwen2.5-7b", "h800", "910b", 5.0, gpus=2, max_gpus=4)
    assert e.value.field == "max_gpus" and "gpus" in str(e.value) and "not both" in str(e.value)


@pytest.mark.parametrize(("model", "src", "dst", "rps"), [
    ("qwen2.5-32b", "h800", "910c", 10.0),     # compare's row: tp2 × 2 on the 2 cards; the bill: tp4 × 1
    ("qwen3-30b-a3b", "h800", "910b", 50.0),   # compare's row: ep4 (910B), batch 165 (H800); the bill: ep1, 140
    ("qwen2.5-72b", "a800", "910b", 3.0),
])
def test_each_sides_row_is_the_layout_its_bill_is_computed_for(model: str, src: str, dst: str, rps: float) -> None:
    out = _cost(model, src, dst, rps)
    cat = packaged_catalog()
    for dev in (src, dst):
        d = out["derived"][lookup.accelerator(cat, dev).id]
        row, bill = d["workload"], d["rate_bill"]
        assert bill["carried"]
        assert (row["gpus"], row["tp"], row["ep"], row["replicas"], row["precision"], row["served_batch"]) == (
            bill["gpus"], bill["tp"], bill["ep"], bill["replicas"], bill["precision"], bill["batch"]), (dev, row, bill)
        assert row["engine"] == bill["engine"] and d["offer"] == bill["offer"]
        assert row["batch"] >= bill["batch"]  # the row's tokens/s: that layout's capacity, at or above the rate


def test_a_precision_plan_does_not_serve_a_rate_at_is_refused() -> None:
    with pytest.raises(InputError) as e:
        _cost("qwen2.5-7b", "h800", "910b", 5.0, precision="fp16")
    assert e.value.field == "precision" and "bf16, fp8, int8, int4" in str(e.value)
    _cost("qwen2.5-7b", "h800", "910b", 5.0, precision="bf16")  # a served precision is taken


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_says_both_flags_in_one_line(lang: str, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(["--lang", lang, "migrate", "cost", "--model", "qwen2.5-7b", "--task", "inference",
                              "--from-gpu", "h800", "--requests-per-s", "5", "--gpus", "2", "--max-gpus", "4"],
                             monkeypatch, capsys, tmp_path)
    text = (out + err).strip()
    assert code != 0 and "Traceback" not in text and len(text.splitlines()) == 1, text
    assert "--gpus" in text and "--max-gpus" in text


def test_cli_help_says_what_gpus_does_with_a_rate(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run_cli(["migrate", "cost", "--help"], monkeypatch, capsys, tmp_path)
    flat = " ".join(out.replace("│", " ").split())
    assert code == 0 and "exactly that many cards on each side for the rate" in flat, flat
