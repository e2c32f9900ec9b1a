"""Buyer review 2026-12-03, task N.1: plan ranked 40 × 910B (5×tp8 b100 int8, ¥77,500) first for 500 qwen3-32b users
at TPOT 33 ms while the answer's front held 24 × 910B at ¥47,500 (TPOT 32.9 ms) and nothing said why: the evidence
step (`_one_per_device`) replaced the device's cheapest layout, which fails the TPOT check, and dropped it silently.
The plan that replaced it now says so in one line, with the failing check's own sentence (`_margins`' warning)."""

from __future__ import annotations

import datetime as dt

import numpy as np

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import _passed_over, plan
from suanli.validate.bands import packaged_error_bands

TODAY = dt.date(2026, 12, 3)
ASK = dict(model="qwen3-32b", task="inference", concurrent_users=500, tpot_s=0.033, budget_cny=100000,
           domestic_only=True)


def test_passed_over_names_each_devices_first_layout_the_pick_replaced() -> None:
    order = np.array([0, 1, 2, 3])
    dev = np.array([0, 0, 1, 1])
    assert _passed_over(order, dev, np.array([1, 2])) == {1: 0}  # device 0's first (0) replaced by 1; device 1 kept
    assert _passed_over(order, dev, np.array([0, 2])) == {}
    assert _passed_over(order, dev, np.array([], dtype=np.int64)) == {}


def test_the_910b_plan_says_which_cheaper_layout_it_passed_over_and_why(cat) -> None:  # type: ignore[no-untyped-def]
    r = plan(cat, lookup.model(cat, "qwen3-32b"), make_request(**ASK), TODAY, error_bands=packaged_error_bands())
    p = next(x for x in r.plans if x.device == "ascend-910b")
    front = next(f for f in r.pareto if f["device"] == "ascend-910b" and f["gpus"] < p.gpus)
    said = [(w, j) for w, j in zip(p.warnings, p.warnings_i18n) if j["id"] == "plan.warn.cheaper_passed_over"]
    assert len(said) == 1, p.warnings
    text, msg = said[0]
    params = msg["params"]
    # the front's point, named: its cards, its total and its TPOT, below the plan's own total
    assert params["cards"] == front["gpus"] and abs(params["cost"] - front["cost_cny"]) < 1, (params, front)
    assert params["cost"] < p.total_cost_cny
    assert params["layout"].startswith(f"{front['replicas']}×tp")
    assert abs(params["tpot"]["params"]["ms"] - front["tpot_s"] * 1000) < 1e-6
    # the failing check is the margin warning itself (the TPOT one), not a copy of it
    check = Message.from_json(params["check"])
    assert check.params["metric"] == "TPOT" and render(check) in text, text
    assert render(Message.from_json(msg), "zh") != text and "未被采用" in render(Message.from_json(msg), "zh")


def test_a_plan_that_replaced_nothing_says_nothing(cat) -> None:  # type: ignore[no-untyped-def]
    # a loose target: the 910B's cheapest layout passes the checks, so nothing is passed over there
    r = plan(cat, lookup.model(cat, "qwen3-32b"), make_request(**{**ASK, "tpot_s": 0.1}), TODAY,
             error_bands=packaged_error_bands())
    p = next(x for x in r.plans if x.device == "ascend-910b")
    assert p.rank == 1 and not any(j["id"].endswith("passed_over") for j in p.warnings_i18n), p.warnings


def test_compare_value_column_says_its_price_basis(cat) -> None:  # type: ignore[no-untyped-def]
    """Task N.2: compare's TFLOPS per ¥/h divides by this job's bill, else the list price by `card_hour_among`'s
    rule (hourly, or a month at full use); the row says which (`value_basis`) and the CLI cell names it."""
    from typer.testing import CliRunner

    from suanli.cli.main import app
    from suanli.plan.compare import compare_devices

    m = lookup.model(cat, "qwen3-32b")
    rows = compare_devices(cat, m, ["ascend-910b", "l20"], "inference", 8, today=TODAY)
    r910 = next(r for r in rows if r["device"] == "ascend-910b")
    assert r910["card_hour_billing_unit"] == "month" and r910["value_basis"] == "full_use", r910
    job = compare_devices(cat, m, ["ascend-910b", "l20"], "inference", 8, today=TODAY, hours=730, requests_per_s=5)
    assert next(r for r in job if r["device"] == "ascend-910b")["value_basis"] == "job"
    out = CliRunner().invoke(app, ["compare", "--model", "qwen3-32b", "--task", "inference", "--gpus", "8",
                                   "--gpu", "ascend-910b", "--gpu", "l20"], env={"COLUMNS": "240"}).output
    assert "(by month, at full use)" in out, out
