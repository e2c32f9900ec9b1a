"""Buyer's review 2026-12-01: rent-vs-buy rents by the planner's freshness rule and says when a price is stale or a
verdict is close; --cards shares a server among its cards; migrate cost names the task and workload; one migration
effort unit (calendar weeks × engineers) everywhere."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from typing import Any

import pytest

from suanli.catalog.schema import Catalog
from suanli.plan.compare import rent_for, rent_options


def _run(*args: str, today: str = "2026-12-01") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SUANLI_TODAY": today, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True, env=env)


def _json(*args: str, today: str = "2026-12-01") -> Any:
    out = _run(*args, "--json", today=today)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_rent_for_takes_a_fresh_price_before_a_cheaper_stale_one(cat: Catalog) -> None:
    today = dt.date(2026, 12, 1)
    opts = rent_options(cat, "rtx-4090")
    assert opts[0][1].id == "xinghai-rtx4090-hour"  # the cheapest, ¥1.78, dated 2024-09-29
    per, o, _ = rent_for(cat, "rtx-4090", today=today)  # type: ignore[misc]
    assert o.id == "autodl-rtx4090-hour-2026-08" and per == 1.88
    later = rent_for(cat, "rtx-4090", today=dt.date(2028, 1, 1))  # every price stale: the cheapest again
    assert later is not None and later[1].id == "xinghai-rtx4090-hour"


def test_rent_vs_buy_fresh_rent_and_close_verdict_range() -> None:
    r = _json("rent-vs-buy", "--gpu", "rtx-4090", "--host-w", "0")  # the card alone: a close verdict
    assert r["rent_offer"]["offer"] == "autodl-rtx4090-hour-2026-08" and r["rent_offer"]["stale"] is None
    fresh = r["fresh_rent_range"]
    assert fresh["margin"] < 0.10 and [o["offer"] for o in fresh["offers"]] == ["autodl-rtx4090-hour-2026-08"]
    assert abs(fresh["break_even_at_lowest"] - r["break_even_utilization"]) < 1e-9
    text = _run("rent-vs-buy", "--gpu", "rtx-4090", "--host-w", "0").stdout
    assert "close call" in text and "autodl-rtx4090-hour-2026-08" in text
    zh = _run("--lang", "zh", "rent-vs-buy", "--gpu", "rtx-4090", "--host-w", "0").stdout
    assert "两者接近" in zh and "close call" not in zh


def test_rent_vs_buy_prints_the_stale_warning() -> None:
    text = _run("rent-vs-buy", "--gpu", "rtx-4090", today="2028-01-01").stdout
    assert "xinghai-rtx4090-hour" in text and "months old" in text  # the warning, not only in --json


def test_rent_vs_buy_cards_share_the_server() -> None:
    one = _json("rent-vs-buy", "--gpu", "rtx-4090")
    assert one["server_cards"] == 1 and one["server_share_cny"] == 22_000  # ¥35,000 mid server − ¥13,000 card
    # no server row for 8 cards: the 1-card server's chassis is no figure for an 8-card one (review 2, 2026-12-01)
    eight = _run("rent-vs-buy", "--gpu", "rtx-4090", "--gpus", "8")
    assert eight.returncode == 2 and "--server-share" in eight.stderr and eight.stdout == ""
    given = _json("rent-vs-buy", "--gpu", "rtx-4090", "--gpus", "8", "--server-share", "3000")
    assert given["server_share_cny"] == 3000 and given["server_cards"] is None
    same = _json("rent-vs-buy", "--gpu", "rtx-4090", "--cards", "1")  # the row's own card count: as the default
    assert same["server_share_cny"] == one["server_share_cny"]
    bad = _run("rent-vs-buy", "--gpu", "rtx-4090", "--cards", "99")
    assert bad.returncode != 0 and "cards" in bad.stderr and "Traceback" not in bad.stderr


def _mig(*extra: str) -> Any:
    return _json("migrate", "cost", "--model", "qwen2.5-7b", "--from-gpu", "h100", "--to-gpu", "910b",
                 "--monthly-spend", "100000", "--offer-kinds", "listing,index", *extra)


def test_migrate_cost_names_task_workload_and_serves_at_a_batch() -> None:
    full = _mig()
    assert full["task"] == "full" and full["workload_note_i18n"]["id"] == "mig.workload.training"
    assert full["derived"]["h100-sxm"]["workload"]["task"] == "full"
    inf = _mig("--task", "inference")
    assert inf["task"] == "inference" and inf["workload_note_i18n"]["id"] == "mig.workload.serving"
    for dev in ("h100-sxm", "ascend-910b"):
        lay = inf["derived"][dev]["workload"]
        assert lay["batch"] > 1 and lay["tp"] * lay["replicas"] == 8  # a serving batch, not batch-1 decode
    text = _run("migrate", "cost", "--model", "qwen2.5-7b", "--from-gpu", "h100", "--to-gpu", "910b",
                "--offer-kinds", "listing,index", "--task", "inference").stdout
    # one serving rule with compare: the planner's serving search within the default TPOT (200 ms, MLPerf Server)
    assert "TPOT 200 ms" in text and "MLPerf" in text
    n = lay["replicas"]  # the 910B's layout, as the table says it: "tp1 × 8 replicas, batch 256 per replica"
    assert f"tp{lay['tp']} × {n} {'replica' if n == 1 else 'replicas'}, batch {lay['batch']} per replica" in text
    assert inf["workload_note_i18n"]["params"]["tpot_ms"] == 200
    cmp = {r["device"]: r for r in _json("compare", "--model", "qwen2.5-7b", "--gpu", "h100", "--gpu", "910b",
                                         "--gpus", "8")}
    for dev in ("h100-sxm", "ascend-910b"):
        lay, row = inf["derived"][dev]["workload"], cmp[dev]
        assert (lay["tp"], lay["batch"]) == (row["layout"]["tp"], row["layout"]["batch"])
        assert inf["derived"][dev]["tokens_per_s_8_cards"] == pytest.approx(row["tokens_per_s"])


def test_migration_effort_is_one_unit() -> None:
    """seed-000's '2人周×2人' read as 2 calendar weeks × 2 engineers: `migrate cost` gives both and the product."""
    out = _mig()
    assert out["calendar_weeks"] == out["engineer_weeks"] == [1.0, 2.0] and out["engineers"] == 2
    # the labour item prices the person-weeks; the one-off adds the new side's test instance and parallel run
    # (`plan.cost.migration_one_off`, review L 2026-12-01)
    labour = next(i for i in out["one_off_items"] if i["item"] == "labour")
    assert out["person_weeks"] == [2.0, 4.0] and labour["cost_cny"] == [20_000.0, 40_000.0]
    assert out["one_off_cost_cny"] == [sum(i["cost_cny"][k] for i in out["one_off_items"]) for k in (0, 1)]
    text = _run("migrate", "cost", "--model", "qwen2.5-7b", "--from-gpu", "h100", "--to-gpu", "910b",
                "--offer-kinds", "listing,index").stdout
    assert "1–2 weeks × 2 engineers = 2–4 engineer-weeks" in text and "2人周×2人" in text
