"""Buyer review 1 (2026-12-02): plan charged a 910B LoRA run ¥30,000 of migration where `migrate cost` says
¥95,000–115,000 for the same move — plan counts the engineers' time only (a new job on the target stack rents its own
cards), `migrate cost` adds the test instance and the parallel run of a running service. The plan's line now says what
it counts and where the rest is."""

from __future__ import annotations

import datetime as dt

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan

TODAY = dt.date(2026, 12, 2)


def test_plan_migration_line_says_it_counts_engineers_time(cat) -> None:  # type: ignore[no-untyped-def]
    req = make_request(model="qwen3-32b", task="lora", tokens=1e9, devices=("910b",))
    result = plan(cat, lookup.model(cat, "qwen3-32b"), req, TODAY)
    lines = [w for p in result.plans for w in p.warnings_i18n if w["id"] == "plan.warn.migration_share"]
    assert lines
    msg = Message(lines[0]["id"], **lines[0]["params"])
    en, zh = render(msg, "en"), render(msg, "zh")
    assert "engineers' time" in en and "suanli migrate cost" in en and "parallel" in en
    assert "工程师人力" in zh and "suanli migrate cost" in zh and "并行" in zh
