"""`migrate cost` says the saving if the target stack's speed is off by its known signed error (buyer review defect 8,
2026-12-01): the stored bands' pooled bias (`estimate.pooled_bias`), en and zh, and in --json."""

from __future__ import annotations

import json
import os
import subprocess
import sys

ARGS = ("migrate", "cost", "--model", "qwen2.5-72b", "--from-gpu", "h100", "--to-gpu", "910b", "--monthly-spend",
        "100000", "--task", "inference", "--offer-kinds", "listing,index")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SUANLI_TODAY": "2026-12-01", "COLUMNS": "400"}
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True, env=env)


def test_migrate_cost_prints_the_saving_if_the_target_runs_as_its_known_error() -> None:
    out = _run(*ARGS, "--json")
    assert out.returncode == 0, out.stderr
    k = json.loads(out.stdout)["if_known_error"]
    assert k["group"] == "decode-speed" and k["cases"] >= 1 and k["prior_cases"] == 5
    en = _run(*ARGS)
    assert en.returncode == 0, en.stderr
    assert "if both devices run as their known decode-speed errors say (Huawei Ascend 910B: " in en.stdout
    saving = f"¥{k['monthly_saving_cny']:,.0f}".replace("¥-", "-¥")
    # the month-billed 8-card instance carries the slower work too: the ratio moves, the saving stays, said so
    assert k["same_bill"] is True
    text = " ".join(en.stdout.split())  # the footer wraps at the terminal's width
    assert (f"the cost of the same work at full use of each offer becomes {k['cost_ratio_same_work']:.2f}" in text
            and f"but the saving stays {saving} a month" in text)
    zh = _run("--lang", "zh", *ARGS)
    assert zh.returncode == 0, zh.stderr
    assert "若两种设备的实际速度都如其已知的解码速度误差所示（华为昇腾 910B：" in zh.stdout and "成本比变为" in zh.stdout
