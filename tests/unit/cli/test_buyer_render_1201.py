"""Buyer review 2026-12-01, output a buyer can read: at 80 columns `plan` keeps `¥ total` (the figure it ranks
by) and ids whole; `plan` states the 512-token prompt; `rent-vs-buy` finishes its server line, adds the totals
for cards × years and shows the break-even as a percentage; `tco` names its two per-card-hour prices;
`offers imports` headers stay whole; `migrate check` cites public sources; the API rounds money."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.cells import cell_len

from suanli.cli.output import _GAP, fit_columns, wrap_cell
from suanli.views.money import money_decimals, round_money

ROOT = Path(__file__).resolve().parents[3]


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "80", "LANG": "en_US.UTF-8", "LC_ALL": "", "SUANLI_HOME": str(home)}
    env.pop("SUANLI_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True, env=env,
                          timeout=120)


PLAN_CELLS = [["#", "device", "cards", "fw", "layout", "GiB/card", "TPOT ms", "TTFT ms", "hours", "¥ rent", "¥ migr",
               "¥ total"],
              ["1", "mtt-s4000", "5", "vllm", "5×tp1 b16 int8", "19/43", "46.53", "223", "720", "6,084", "5,000",
               "11,084"],
              ["2", "ascend-910b", "2", "vllm-ascend", "1×tp2 b80 bf16", "23/58", "34.39", "62.07", "720", "15,000",
               "2,500", "17,500"]]


def test_the_ranking_figure_stays_and_ids_stay_whole_at_80() -> None:
    keep, widths = fit_columns(PLAN_CELLS, 80, keep_always=[11], drop_later=[10, 9, 5, 7])
    assert 11 in keep and sum(widths) + _GAP * (len(keep) - 1) <= 80
    width = dict(zip(keep, widths))
    assert width[1] >= len("ascend-910b") and width[3] >= len("vllm-ascend")  # no id broken
    # the parts of the total go before anything is cut; the old rule dropped ¥ total from the right
    assert 10 not in keep and 9 not in keep
    # even far too narrow, the total stays and an id breaks only after its '-' or with an ellipsis
    keep, widths = fit_columns(PLAN_CELLS, 30, keep_always=[11])
    assert 11 in keep
    assert wrap_cell("ascend-910b", 8).split("\n") == ["ascend-", "910b"]
    assert wrap_cell("abcdefghijkl", 8) == "abcdefg…"


def test_plan_at_80_columns_keeps_total_ids_and_states_the_prompt(tmp_path: Path) -> None:
    args = ["plan", "--model", "qwen2.5-14b", "--concurrent-users", "80", "--ttft", "2", "--tpot", "0.05", "--days",
            "30", "--domestic-only"]
    plans = json.loads(_run(tmp_path, *args, "--json").stdout)["plans"]
    for lang, total, prompt in (("en", "¥ total", "requests of 512 prompt and 256 output tokens"),
                                ("zh", "总计 ¥", "每个请求输入 512 个、输出 256 个 token")):
        r = _run(tmp_path, "--lang", lang, *args)
        assert r.returncode == 0, r.stderr
        head = " ".join(r.stdout.split("\n\n")[0].splitlines()[:4])
        assert prompt in " ".join(r.stdout.split()) or lang == "zh" and re.sub(r"\s", "", prompt) in re.sub(r"\s", "", r.stdout), \
            r.stdout[:400]  # a Chinese line may break between two characters (output._breaker)
        lines = r.stdout.splitlines()
        table = lines[: next(i for i, x in enumerate(lines) if x.startswith(("1. ", "1．")) or "未显示" in x
                             or x.startswith("columns left out"))]
        assert any(total in x for x in table), (lang, head, table)
        assert max(cell_len(x) for x in table) <= 80
        for p in plans:
            assert any(re.search(rf"^\s*{p['rank']}\s+{re.escape(p['device'])}(\s|$)", x) for x in table), table


def test_rent_vs_buy_totals_percent_and_a_whole_server_line(tmp_path: Path) -> None:
    args = ["rent-vs-buy", "--gpu", "rtx-4090", "--cards", "8", "--utilization", "0.5", "--years", "2",
            "--server-share", "3000", "--host-w", "0"]  # the card's power alone (host power: test_rvb_host_power_1201)
    en = _run(tmp_path, *args)
    assert en.returncode == 0, en.stderr
    assert "server --server-share" not in en.stdout
    assert "server: ¥3,000 per card, as given (--server-share)" in en.stdout
    assert re.search(r"break-even use\s+64\.7%", en.stdout) and re.search(r"\buse\s+50%", en.stdout)
    data = json.loads(_run(tmp_path, *args, "--json").stdout)
    t = data["totals"]
    assert t["cards"] == 8 and t["years"] == 2
    assert t["rent_cny"] == pytest.approx(data["rent_at_utilization_cny"] * 16)
    assert t["own_cny"] == pytest.approx(data["capex_cny"] * 8 + (data["buy_at_utilization_cny"] - data["capex_cny"] / 2) * 16)
    flat = " ".join(en.stdout.split())
    assert f"8 cards × 2 years at 50% use: rent ¥{t['rent_cny']:,.0f}, own ¥{t['own_cny']:,.0f}" in flat
    zh = _run(tmp_path, "--lang", "zh", *args)
    assert "服务器：每卡 ¥3,000，按给定值（--server-share）" in zh.stdout and "8 张卡 × 2 年" in zh.stdout


def test_tco_names_the_list_and_the_job_price(tmp_path: Path) -> None:
    r = _run(tmp_path, "tco", "--gpu", "910b", "--hours", "720", "--gpus", "8")
    assert r.returncode == 0, r.stderr
    assert "2.57" in r.stdout and "2.6" in r.stdout  # compare's 730-h month beside this job's 720 h
    flat = " ".join(r.stdout.split())
    assert "list ¥/card-h: the offer's price per card-hour at full use (a month = 730 h)" in flat
    assert "the bill ÷ (8 cards × 720 h)" in flat
    zh = _run(tmp_path, "--lang", "zh", "tco", "--gpu", "910b", "--hours", "720", "--gpus", "8")
    assert "标价" in zh.stdout and "本任务" in zh.stdout


def test_imports_headers_stay_whole(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy", reason="the store needs the `service` extra; `make test` installs it")
    f = tmp_path / "acme-quotes-december.csv"
    f.write_text("id,provider,device,cards,billing_unit,price_cny,date,source,region\n"
                 "t-a,Acme,rtx-4090,1,hour,1.95,2026-11-30,acme quote,cn\n"
                 "t-b,Acme,rtx-4090,2,hour,3.9,2026-11-30,acme quote,cn\n", encoding="utf-8")
    assert _run(tmp_path, "offers", "import", str(f)).returncode == 0
    g = tmp_path / "my-prices-2026-12.csv"
    g.write_text("id,provider,device,cards,billing_unit,price_cny,date,source,region\n"
                 "t-c,Acme,rtx-4090,1,hour,1.9,2026-11-30,acme quote,cn\n", encoding="utf-8")
    assert _run(tmp_path, "offers", "import", str(g)).returncode == 0
    assert _run(tmp_path, "offers", "rollback", "2").returncode == 0
    zh = _run(tmp_path, "--lang", "zh", "offers", "imports").stdout
    assert "新价格" in zh and "撤回时间" in zh and "导入时间" in zh, zh
    en = _run(tmp_path, "offers", "imports").stdout
    assert "rolled back" in en and "rolled_" not in en and "acme-quotes-december.csv" in en, en
    assert max(cell_len(x) for x in en.splitlines() + zh.splitlines()) <= 80


def test_migrate_check_cites_public_sources_only() -> None:
    doc = yaml.safe_load((ROOT / "src/suanli/data/ascend_ops/caveats.yaml").read_text(encoding="utf-8"))
    shown = [*doc["general"], *doc["general_zh"], *(x["source"] for x in doc["caveats"] + doc["aliases"])]
    assert not [x for x in shown if "shared/" in x or "research" in x]
    assert any("github.com/Ascend/op-plugin" in x for x in doc["general"])


def test_money_rounding_rule() -> None:
    assert money_decimals("total_cost_cny") == 2 and money_decimals("cost_cny_max") == 2
    assert money_decimals("cny_per_card_hour") == 4 and money_decimals("effective_cny_per_card_hour") == 4
    assert money_decimals("effective_tflops_per_cny_hour") is None and money_decimals("hours") is None
    got = round_money({"total_cost_cny": 3585.6000000000004, "hours": 1.0000000001, "x": [{"cost_cny": 0.125}],
                       "fresh_rent_range_cny": [1.23456, 2.0], "cny_per_million_tokens": 0.005234567})
    assert got == {"total_cost_cny": 3585.6, "hours": 1.0000000001, "x": [{"cost_cny": 0.12}],
                   "fresh_rent_range_cny": [1.23, 2.0], "cny_per_million_tokens": 0.0052}


def _money_floats(o: Any, key: str = "") -> list[tuple[str, float]]:
    if isinstance(o, dict):
        return [x for k, v in o.items() for x in _money_floats(v, k)]
    if isinstance(o, list):
        return [x for v in o for x in _money_floats(v, key)]
    return [(key, o)] if isinstance(o, float) and money_decimals(key) is not None else []


def test_api_plan_money_has_no_float_noise(tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the API is the optional `service` extra; `make test` installs it")
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app

    c = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path}/s.db")))
    for body in ({"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8, "region": "any", "offer_kinds": ["listing", "index"]},
                 {"model": "qwen2.5-14b", "concurrent_users": 80, "ttft_s": 2, "tpot_s": 0.05, "days": 30,
                  "domestic_only": True}):
        r = c.post("/api/plan", json=body)
        assert r.status_code == 200, r.text
        money = _money_floats(r.json())
        assert any(k == "total_cost_cny" for k, _ in money)
        assert all(round(v, money_decimals(k) or 0) == v for k, v in money), [x for x in money if round(x[1], 2) != x[1]]
    r = c.post("/api/tco", json={"gpu": "910b", "hours": 720, "gpus": 8})
    assert r.status_code == 200, r.text
    assert all(round(v, money_decimals(k) or 0) == v for k, v in _money_floats(r.json()))
