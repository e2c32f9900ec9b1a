"""Small things a buyer trips on (colleagues' notes 2026-12-01): migrate cost chooses its offers by the planner's
freshness rule (`compare.fresh_first`, the one rent-vs-buy uses) and warns about a stale price; a refused SkyPilot
export still prints the plan with one warning line; serving why-not lines name the replica's tensor-parallel limit;
estimate takes the two framework memory flags (bnb_saves_inputs, fsdp_mixed_units)."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from suanli.catalog.schema import Catalog
from suanli.plan.compare import fresh_first, migration_cost, rent_for, rent_options


def _run(*args: str, today: str = "2026-12-01") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SUANLI_TODAY": today, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True, env=env)


def _mig(cat: Catalog, today: dt.date) -> dict[str, Any]:
    from suanli.catalog.lookup import model

    return migration_cost(cat, model(cat, "qwen2.5-7b"), "ascend-910b", "rtx-4090", task="lora", today=today)


# 1. migrate cost: the planner's offer choice, one function


def test_fresh_first_is_the_rule_rent_for_uses(cat: Catalog) -> None:
    today = dt.date(2026, 12, 1)
    opts = rent_options(cat, "rtx-4090")
    assert fresh_first(opts, today) == rent_for(cat, "rtx-4090", today=today)
    assert fresh_first([], today) is None


def test_migrate_cost_takes_a_fresh_price_before_a_cheaper_stale_one(cat: Catalog) -> None:
    out = _mig(cat, dt.date(2026, 12, 1))  # listing offers: 星海 ¥1.78 (2024-09-29, stale) vs AutoDL ¥1.88 (2026-08-13)
    assert out["derived"]["rtx-4090"]["offer"] == "autodl-rtx4090-hour-2026-08"
    used = {u["device"]: u for u in out["offers_used"]}
    assert used["rtx-4090"]["stale"] is None
    later = _mig(cat, dt.date(2028, 1, 1))  # every price stale: the cheapest that can rent 8 cards, and warned
    # (星海's ¥1.78 1-card VMs never form an 8-card job: offers.can_rent, costfix 2026-12-01)
    assert later["derived"]["rtx-4090"]["offer"] == "autodl-rtx4090-hour-2026-08"
    assert "months old" in {u["device"]: u for u in later["offers_used"]}["rtx-4090"]["stale"]


def test_migrate_cost_prints_the_stale_warning() -> None:
    args = ("migrate", "cost", "--model", "qwen2.5-7b", "--from-gpu", "rtx-4090", "--to-gpu", "910b", "--task", "lora")
    fresh = _run(*args)
    assert fresh.returncode == 0, fresh.stderr
    assert "autodl-rtx4090-hour-2026-08" in fresh.stdout and "months old" not in fresh.stdout
    stale = _run(*args, today="2028-01-01")
    assert "autodl-rtx4090-hour-2026-08" in stale.stdout and "months old" in stale.stdout
    zh = _run("--lang", "zh", *args, today="2028-01-01")
    assert "autodl-rtx4090-hour-2026-08" in zh.stdout and "months old" not in zh.stdout


# 2. a refused SkyPilot export: the plan, then one warning line, exit 0


def test_refused_skypilot_export_prints_the_plan_and_one_warning(tmp_path: Path) -> None:
    out = tmp_path / "t.yaml"
    args = ("plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--gpu", "910b", "--skypilot", str(out))
    r = _run(*args)
    assert r.returncode == 0, r.stderr
    assert not out.exists()
    lines = r.stdout.splitlines()
    warn = [i for i, line in enumerate(lines) if "SkyPilot YAML not written" in line]
    assert len(warn) == 1 and "ascend-910b" in lines[warn[0]] and "no SkyPilot accelerator name" in lines[warn[0]]
    assert any("910" in line for line in lines[:warn[0]])  # the plan came first
    j = _run(*args, "--json")  # JSON on stdout stays parseable; the warning goes to stderr
    assert j.returncode == 0 and json.loads(j.stdout)["plans"] and "SkyPilot YAML not written" in j.stderr
    zh = _run("--lang", "zh", *args)
    assert zh.returncode == 0 and "未写出 SkyPilot YAML" in zh.stdout and "not written" not in zh.stdout


def test_unwritable_skypilot_path_is_a_warning_too(tmp_path: Path) -> None:
    bad = tmp_path / "missing-dir" / "t.yaml"
    r = _run("plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--gpu", "rtx-4090",
             "--skypilot", str(bad))
    assert r.returncode == 0 and "SkyPilot YAML not written" in r.stdout and "cannot be written" in r.stdout


# 4. the two framework memory flags as estimate options; off by default (bitsandbytes 0.43.2 keeps no input)


def _gib(*args: str) -> float:
    r = _run("estimate", "--model", "llama-2-7b", "--gpu", "a100-80g", "--seq", "1304", "--json", *args)
    assert r.returncode == 0, r.stderr
    return float(json.loads(r.stdout)["memory"]["per_gpu_gib"])


def test_estimate_takes_bnb_saves_inputs() -> None:
    base, kept = _gib("--task", "qlora"), _gib("--task", "qlora", "--bnb-saves-inputs")
    assert 1.7 < kept - base < 1.9  # 1.94 GB (1.81 GiB) for Llama 2 7B at 1304 tokens, commit e834c4e


def test_estimate_takes_fsdp_mixed_units() -> None:
    lora = ("--task", "lora", "--gpus", "2", "--zero", "3", "--recompute", "full", "--grad-accum", "128")
    assert _gib(*lora, "--fsdp-mixed-units") > _gib(*lora) + 10  # the unsharded whole-unit gradient, 8.0 -> 20.2 GiB


def test_no_framework_keeps_bnb_inputs_by_default(cat: Catalog) -> None:
    from suanli.estimate.workload import Workload

    assert Workload.model_fields["bnb_saves_inputs"].default is False
    assert "0.43.2" in (Workload.model_fields["bnb_saves_inputs"].description or "")
    assert all("bnb_saves_inputs" not in fw.model_dump() for fw in cat.frameworks)


# 3. serving why-not: what limits a replica (its tensor-parallel group in one instance), never "span nodes"


def _serving_why(cat: Catalog, model: str) -> dict[str, Any]:
    from suanli.catalog import lookup
    from suanli.plan.request import make_request
    from suanli.plan.search import plan

    r = plan(cat, lookup.model(cat, model), make_request(model=model, task="inference", requests_per_s=1.0,
                                                         precision="any"),  # int4 only when asked
             dt.date(2026, 12, 1))
    return {w["device"]: w for w in r.why_not}


def test_serving_why_not_names_the_replica_tp_not_spanning_nodes(cat: Catalog) -> None:
    from suanli.i18n import Message, render

    why = _serving_why(cat, "deepseek-v3")
    w = why["rtx-4090"]
    assert w["reason_i18n"]["id"] == "why.serve_replica", w["reason"]
    assert "a replica needs 16 cards at tp 16" in w["reason"] and "largest instance here has 8" in w["reason"]
    assert "span nodes:" not in w["reason"] and "no offer used" not in w["reason"]
    zh = render(Message.from_json(w["reason_i18n"]), "zh")
    assert "16 张卡" in zh and "推理副本只在节点经网络互联的报价上跨节点" in zh
    assert all(x["reason_i18n"]["id"] != "why.does_not_fit_node" for x in why.values())


def test_serving_why_not_when_only_single_card_instances_rent_the_device(cat: Catalog) -> None:
    w = _serving_why(cat, "qwen2.5-72b")["mtt-s4000"]
    assert w["reason_i18n"]["id"] == "why.serve_no_instance", w["reason"]
    assert "largest instance here has 1 card" in w["reason"] and "multi-node" not in w["reason"]
