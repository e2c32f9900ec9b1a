"""`migrate cost` says which precision each side runs and which known error each sentence assumes (buyer review
2026-12-03, task F).

1. With a rate (`--concurrent-users`) and no `--precision`, each side's row is at the precision plan picks for its bill
   (fp8 on the H800, int8 on the 910B), not compare's default (bf16 on both): the task line said "(the same function
   and flags)" beside compare's bf16 rows; it now names each side's precision, compare's default and the `compare
   --precision` that gives the same row — and that compare row is the one migrate cost shows.
2. The footer's known error (pooled, +22 % on the 910B) moves the full-use cost ratio but not the bill for the rate
   (the same month-billed 8-card instance carries 1.19× the work): it says the saving stays, and why; the verdict's
   measured figure (+117 %, the stack's own case) says it is not pooled as the footer's is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_run import run_cli

TODAY = "2026-12-03"
ARGS = ["migrate", "cost", "--model", "qwen3-32b", "--task", "inference", "--from-gpu", "h800", "--to-gpu", "910b",
        "--concurrent-users", "200", "--tpot", "0.05", "--ttft", "2"]


def _cli(args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], home: Path) -> str:
    code, out, err = run_cli(args, monkeypatch, capsys, home, columns=2000, today=TODAY)
    assert code == 0, err
    return out


def test_each_side_names_its_precision_and_compares_flag(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = json.loads(_cli([*ARGS, "--json"], monkeypatch, capsys, tmp_path))
    note = out["workload_note_i18n"]
    assert note["id"] == "mig.workload.users"
    # both sides carry the rate: each row on its bill's cards (helper D 2026-12-02)
    assert note["params"]["workload"]["id"] == "mig.workload.serving_targets_precisions_rate"
    assert "the same function and flags" not in out["workload_note"]
    for dev, name, prec in (("h800", "NVIDIA H800 SXM5 80GB", "fp8"), ("ascend-910b", "Huawei Ascend 910B", "int8")):
        d = out["derived"][dev]
        # the row, the bill and the sentence agree on the side's precision
        assert d["workload"]["precision"] == d["rate_bill"]["precision"] == prec
        assert (f"{name} at {prec}, the precision plan picks for its bill (compare's default there is bf16; "
                f"compare with --precision {prec} gives this row)") in out["workload_note"]
        # the sentence's claim: compare with that --precision gives the row migrate cost shows
        # (beside an H20, which runs both: compare refuses fp8 on the 910B)
        # on the cards the side's bill rents, where its row is (helper D 2026-12-02)
        cmp = json.loads(_cli(["compare", "--model", "qwen3-32b", "--gpu", dev, "--gpu", "h20", "--gpus",
                               str(d["rate_bill"]["gpus"]),
                               "--concurrent-users", "200", "--tpot", "0.05", "--ttft", "2", "--precision", prec,
                               "--json"], monkeypatch, capsys, tmp_path))
        rows = cmp["rows"] if isinstance(cmp, dict) else cmp
        row = next(r for r in rows if r["device"] == dev)
        assert row["tokens_per_s"] == pytest.approx(d["tokens_per_s_8_cards"])
    zh = _cli(["--lang", "zh", *ARGS], monkeypatch, capsys, tmp_path)
    assert "NVIDIA H800 SXM5 80GB 用 fp8，即规划器为其账单选出的精度（compare 在该设备上默认 bf16；compare 加 --precision fp8 得到同一行）" in zh
    assert "同样的参数" not in zh


def test_known_error_lines_say_what_they_assume(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    out = json.loads(_cli([*ARGS, "--json"], monkeypatch, capsys, tmp_path))
    k, measured = out["if_known_error"], out["measured_error"]
    assert k["cost_ratio_same_work"] > out["derived"]["cost_ratio_same_work"]  # the ratio moves
    assert k["monthly_saving_cny"] == pytest.approx(out["monthly_saving_cny"])  # the bill for the rate does not
    assert k["same_bill"] is True and k["note_i18n"]["id"] == "mig.if_known_error_both_same_bill"
    factor = k["cost_ratio_same_work"] / out["derived"]["cost_ratio_same_work"]
    assert (f"becomes {k['cost_ratio_same_work']:.2f} (as estimated: {out['derived']['cost_ratio_same_work']:.2f}), "
            f"but the saving stays -¥{-k['monthly_saving_cny']:,.0f} a month: the new side is billed in whole "
            f"instances of its offer, and those it is billed for carry {factor:.2f}× the work too") in k["note"]
    assert "the cost ratio becomes" not in k["note"]
    # the verdict's figure: the stack's own case, unpooled, a different bias from the footer's pooled one
    assert measured["bias_pct"] != pytest.approx(k["bias_pct"])
    assert "the stack's own cases alone, not pooled with other stacks' as the known-error line is" in measured["note"]
    assert "the stack's own cases alone" in out["verdict"]
    zh = _cli(["--lang", "zh", *ARGS], monkeypatch, capsys, tmp_path)
    assert f"但每月节省仍为 -¥{-k['monthly_saving_cny']:,.0f}：新方按其报价的整台实例计费" in zh
    assert "仅该软件栈自身的案例，不像已知误差那一行那样与其他软件栈合并" in zh
