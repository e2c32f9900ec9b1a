"""Buyer review C (2026-12-02): `suanli --lang zh plan --model Qwen2.5-7B --task lora --tokens 5e7` said of the RTX
4090s "本设备上更便宜的布局未被采用：tp1·pp1·dp4·z3·mb1·ga16 · recompute none，…" — English words in the Chinese
answer, where the plan table and compare's rows say 全量重计算 / 不重计算. A training layout passed over is now the
message compare's rows use (`cmp.layout.training`); the English line and `Layout.label` are unchanged."""

from __future__ import annotations

import datetime as dt

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.validate.bands import packaged_error_bands

TODAY = dt.date(2026, 12, 2)


def test_a_training_layout_passed_over_is_said_in_chinese(cat: Catalog) -> None:
    r = plan(cat, lookup.model(cat, "qwen2.5-7b"), make_request(model="qwen2.5-7b", task="lora", tokens=5e7), TODAY,
             error_bands=packaged_error_bands())
    said = [(p, w, j) for p in r.plans for w, j in zip(p.warnings, p.warnings_i18n)
            if j["id"].endswith("passed_over_hours")]
    assert said, [p.warnings for p in r.plans]
    for p, en, j in said:
        zh = render(Message.from_json(j), "zh")
        assert "recompute" not in zh and ("重计算" in zh), zh
        assert " · recompute " in en, en  # the English line as before
        layout = j["params"]["layout"]
        assert layout["id"] == "cmp.layout.training" and layout["params"]["recompute"] in ("none", "selective", "full")
