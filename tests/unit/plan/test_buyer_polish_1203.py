"""Buyer-review polish (2026-12-03), each a defect a buyer read in an answer:

1. the variant re-estimate of a '910B' offer judged its TPOT by the estimate alone ("910B3 … fits, TTFT 94 ms, TPOT
   39.5 ms") while the 910B3 planned alone says "TPOT target likely missed if the known decode-speed error holds":
   it now asks plan's error rule (`plan.known_error`);
2. "fastest fit takes … incl. set-up and migration" on devices with no migration (the sentence is only said there);
3. "one expert group spans 4 nodes … ? Gbit/s per node" on an offer that publishes no network rate;
4. "4 offers price it, ¥658,000–¥55,440,000": the top is a 60-month minimum term, now said;
5. zh: "只有 0 个案例" (没有案例), 词元 where every other line says token; `suanli offers` printed ¥2.00 as "2";
6. the page's plan-tab serving period placeholder said 720 h where the default billed is 730 h."""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.i18n import Message, messages, render
from suanli.plan.caveats import Rerun, variant_outcome
from suanli.plan.quality import offers_range
from suanli.plan.request import make_request
from suanli.plan.search import _margin_reason, _replica_spans_nodes, plan, plan_workload
from suanli.units import HOURS_PER_MONTH
from suanli.validate.bands import packaged_error_bands

from band_pins import with_decode_band_20261202

TODAY = dt.date(2026, 12, 3)
BUYER = dict(model="qwen2.5-72b", task="inference", concurrent_users=50, tpot_s=0.05, ttft_s=2.0, days=30,
             domestic_only=True, offer_kinds=("listing", "index", "reference", "contract"))


def _bands() -> dict:  # type: ignore[type-arg]
    """The packaged bands with decode-speed pinned (conftest): the variant tests judge plan's decode error rule."""
    return with_decode_band_20261202(packaged_error_bands())  # type: ignore[arg-type]


def _cann_150(bands: dict) -> dict:  # type: ignore[type-arg]
    """CANN's one decode case at +150 %: the 910B3's TPOT margin (~28 % since vLLM-Ascend's per-step overhead was fitted,
    2026-12-02) is then below the pooled bias, so plan's rule says 'likely missed' (at the pinned +117 % it sat at the
    edge: pooled about +27.5 % against a ~28 % margin). The plan is asked at bf16, the precision the defect was read
    at (the cheapest plan is int8 W8A8 since that fit)."""
    key = "stack:cann:decode-speed"
    return {**bands, key: bands[key].model_copy(update={"median_abs_pct": 150.0, "p90_abs_pct": 150.0,
                                                        "median_signed_pct": 150.0})}


def _variant_outcomes(cat: Catalog) -> dict[str, dict]:  # type: ignore[type-arg]
    r = plan(cat, lookup.model(cat, "qwen2.5-72b"), make_request(**{**BUYER, "precision": "bf16"}), TODAY,
             _cann_150(_bands()))
    p = next(x for x in r.plans if x.device == "ascend-910b")
    j = next(x for x in p.warnings_i18n if x["id"] == "plan.warn.variant_unstated")
    return {str(o["params"]["variant"]): o for o in j["params"]["outcomes"]}


def test_the_910b3_variant_is_judged_by_plans_error_rule(cat: Catalog) -> None:
    outcomes = _variant_outcomes(cat)
    b3 = next(o for k, o in outcomes.items() if "910B3" in k)
    text = render(Message.from_json(b3))
    assert "fits, TTFT" in text and "likely misses the TPOT target if the known decode-speed error holds" in text
    assert "目标只留" in render(Message.from_json(b3), "zh") and "很可能达不到 TPOT 目标" in render(Message.from_json(b3), "zh")
    b4 = next(o for k, o in outcomes.items() if "910B4" in k)
    assert "TPOT" in render(Message.from_json(b4)) and ", misses the TPOT target" in render(Message.from_json(b4))
    # the 910B3 planned alone on the same layout says the same of its TPOT (plan's own judgement)
    alone = plan(cat, lookup.model(cat, "qwen2.5-72b"),
                 make_request(**{**BUYER, "devices": ("ascend-910b3",), "precision": "bf16", "gpus": 8}), TODAY,
                 _cann_150(_bands()))
    assert "TPOT target likely missed if the known decode-speed error holds" in alone.plans[0].reason


def test_without_bands_the_variant_is_the_estimate_alone(cat: Catalog) -> None:
    r = plan(cat, lookup.model(cat, "qwen2.5-72b"), make_request(**BUYER), TODAY, packaged_error_bands())
    p = next(x for x in r.plans if x.device == "ascend-910b")
    run = Rerun(plan_workload(p, r.request), p.tokens_per_s, 0.05, 2.0, True)  # no bands: no error rule
    out = render(variant_outcome(cat, lookup.model(cat, "qwen2.5-72b"), lookup.accelerator(cat, "ascend-910b3"), run))
    assert out.endswith("ms") and "fits, TTFT" in out and "likely" not in out


def test_no_migration_no_migration_word(cat: Catalog) -> None:
    r = plan(cat, lookup.model(cat, "qwen2.5-14b"), make_request(model="qwen2.5-14b", task="full", tokens=1e9,
                                                                 deadline_hours=20), TODAY, packaged_error_bands())
    rows = {w["device"]: w for w in r.why_not}
    l40s = rows["l40s"]
    assert l40s["reason"].startswith("fastest fit takes") and "incl. set-up (deadline" in l40s["reason"]
    assert "含准备；截止" in render(Message.from_json(l40s["reason_i18n"]), "zh")
    assert "migration to Huawei Ascend CANN" in rows["ascend-910b"]["reason"]  # the weeks, where there are some
    for k in ("why.over_deadline_setup", "why.over_deadline_setup_in_budget", "relax.deadline_setup"):
        assert "migration" not in messages("en")[k] and "迁移" not in messages("zh")[k]


class _Dev:
    def __init__(self, acc: object) -> None:
        self.acc = acc


def test_an_unpublished_network_is_said_with_the_figure_assumed(cat: Catalog) -> None:
    acc = lookup.accelerator(cat, "a100-80g")
    grid = {"tp": np.array([4]), "ep": np.array([8]), "net": np.array([np.nan])}
    msg = _replica_spans_nodes(cat, _Dev(acc), grid, 0)  # type: ignore[arg-type]
    assert msg is not None
    en, zh = render(msg), render(msg, "zh")
    assert "?" not in en and "?" not in zh
    assert "its rate per node not published, the speed assumes 192 GB/s per node" in en
    assert "`link-inter-a100-80g`" in en and "其每节点速率未公布，速度按每节点 192 GB/s 假设" in zh
    grid["net"] = np.array([400.0])
    assert "400 Gbit/s per node" in render(_replica_spans_nodes(cat, _Dev(acc), grid, 0))  # type: ignore[arg-type]


def test_an_offers_range_says_a_minimum_term(cat: Catalog) -> None:
    month = next(o for o in cat.offers if o.id == "omniyq-h200-8card-month")
    five_years = next(o for o in cat.offers if o.id == "smm-h200-ib-cluster-2026-10")
    assert five_years.min_units == 60
    msg = offers_range(4, 658_000.0, month, 55_440_000.0, five_years)
    assert msg is not None
    en = render(msg)
    assert "from ¥658,000 (omniyq-h200-8card-month" in en
    assert "to ¥55,440,000 (smm-h200-ib-cluster-2026-10, billed per month, minimum 60 months" in en
    assert "最少租 60 个月" in render(msg, "zh")
    same = offers_range(2, 1.0, month, 2.0, month)
    assert same is not None and same.id == "plan.reason.offers_range"  # no minimum term: the plain range


def test_zh_says_no_case_not_only_zero(cat: Catalog) -> None:
    r = plan(cat, lookup.model(cat, "qwen2.5-7b"), make_request(model="qwen2.5-7b", task="lora", tokens=1e8,
                                                                domestic_only=True), TODAY, packaged_error_bands())
    zh = [render(Message.from_json(p.reason_i18n), "zh") for p in r.plans if p.reason_i18n]
    assert not [x for x in zh if "只有 0 个" in x]
    assert any("上没有案例，用全部软件栈的数据" in x for x in zh)
    w = Message("plan.warn.within_error_all", metric="TPOT", median=20.0, margin=10.0, stack="S", bias=1.0,
                bias_cases=0, all_signed=1.0, all_cases=10, prior=5, cases=10)
    assert _margin_reason(w, "decode-speed").id == "plan.reason.within_band_unvalidated_none"
    assert "只有 0" not in render(Message("plan.reason.unvalidated", stack="S", group="g", cases=0, family="f",
                                          need=5), "zh")


def test_zh_says_token_not_ci_yuan() -> None:
    assert not [k for k, v in messages("zh").items() if "词元" in v]
    assert messages("zh")["error.req.training_needs_tokens"].endswith("（训练多少 token）")


def test_offers_prints_prices_to_the_fen() -> None:
    env = {**os.environ, "SUANLI_TODAY": "2026-12-03", "COLUMNS": "200"}
    out = subprocess.run([sys.executable, "-m", "suanli.cli.main", "offers", "--device", "rtx-4090", "--limit", "0"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if "AutoDL" in line and "2025-09-03" in line]
    assert rows and all(re.search(r"\bhour\s+2\.00\b", line) for line in rows), rows


def test_both_serving_period_placeholders_are_the_default_month() -> None:
    import suanli

    html = (Path(suanli.__file__).parent / "web" / "static" / "index.html").read_text(encoding="utf-8")
    for html_id in ("period", "cmp-period"):
        tag = re.search(rf'<input id="{html_id}"[^>]*>', html)
        assert tag is not None and f'placeholder="{HOURS_PER_MONTH:g}"' in tag.group(0), html_id
