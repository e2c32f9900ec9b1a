"""Helper D, 2026-12-02: `migrate cost --task inference --requests-per-s R` compared each side on --gpus' 8 cards
("NVIDIA H800, 8 cards … serves 1 requests/s at batch 1 per replica") beside bills for the rate on 1 card each
(plan's 1×tp1 b3 and b7): two card counts in one answer. Where both sides carry the rate, each side's row is now
compare's row on the cards its bill rents (one basis): the row, the bill, the test instance and the workload note
name the same cards, and the row's "serves" batch is the bill's."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.plan.compare import ServingTargets, migration_cost

TODAY = dt.date(2026, 12, 2)


def _out(model: str, rate: float, tpot: float | None = None) -> dict:
    cat = packaged_catalog()
    return migration_cost(cat, lookup.model(cat, model), "910b", "h800", task="inference", today=TODAY,
                          targets=ServingTargets(requests_per_s=rate, tpot_s=tpot))


@pytest.mark.parametrize(("model", "rate", "tpot"), [("qwen2.5-7b", 1.0, None), ("qwen2.5-72b", 40.0, 0.05)])
def test_each_row_is_on_the_cards_its_bill_rents(model: str, rate: float, tpot: float | None) -> None:
    out = _out(model, rate, tpot)
    for dev in ("h800", "ascend-910b"):
        d = out["derived"][dev]
        bill, lay = d["rate_bill"], d["workload"]
        assert bill["carried"]
        assert lay["gpus"] == bill["gpus"] == d["gpus_asked"], (dev, lay["gpus"], bill["gpus"])
        assert f"{bill['gpus']} card" in out["workload_note"]
    assert "each side's bill for the rate rents" in out["workload_note"]


def test_the_row_serves_the_rate_at_the_bills_batch() -> None:
    out = _out("qwen2.5-7b", 1.0)
    for dev in ("h800", "ascend-910b"):
        d = out["derived"][dev]
        assert d["workload"]["served_batch"] == d["rate_bill"]["batch"], dev


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_names_one_card_count(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--lang", lang, "migrate", "cost", "--model", "qwen2.5-7b", "--from-gpu", "h800",
                              "--task", "inference", "--requests-per-s", "1"], monkeypatch, capsys, tmp_path,
                             today=TODAY.isoformat())
    assert code == 0, err
    if lang == "en":
        assert "NVIDIA H800 SXM5 80GB, 1 card " in out and "Huawei Ascend 910B, 1 card " in out, out
        assert "8 cards" not in out and "no usable offer rents" not in out, out
    else:
        assert "NVIDIA H800 SXM5 80GB，1 张卡" in out and "华为昇腾 910B，1 张卡" in out, out
        assert "8 张卡" not in out and "没有可用报价" not in out, out


def test_without_a_rate_the_rows_stay_on_gpus() -> None:
    cat = packaged_catalog()
    out = migration_cost(cat, lookup.model(cat, "qwen2.5-7b"), "910b", "h800", task="inference", today=TODAY)
    assert {out["derived"][d]["workload"]["gpus"] for d in ("h800", "ascend-910b")} == {8}
    assert out["derived"]["h800"]["gpus_asked"] == 8
