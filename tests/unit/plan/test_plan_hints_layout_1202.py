"""Plan hints of the buyer review 2026-12-02 (task H), each pinned at its one rule: the why-not of a device whose
smallest replica no offer rents says so first and does not move with --max-gpus; the sentences name the whole
expert-parallel group a replica needs, as the table does; the next precision up says bf16 has no quantization
loss; the budget check shows the first month's cash beside the budget."""

from __future__ import annotations

import datetime as dt
from typing import Any

from one_card_h20 import one_card_h20

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.plan.quality import precision_up_loss
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.validate.bands import packaged_error_bands

from message_json import find_messages

TODAY = dt.date(2026, 12, 2)


def _plan(cat: Any, **kw: Any) -> Any:
    return plan(cat, lookup.model(cat, str(kw["model"])), make_request(**kw), TODAY, error_bands=packaged_error_bands())




# ------------------------------------------------------------------- 3. bf16 has no quantization loss


def test_the_loss_a_precision_up_saves() -> None:
    assert precision_up_loss("bf16", "bf16").id == "plan.reason.loss_none"
    assert precision_up_loss("fp8", "fp8").id == "plan.reason.loss_none"  # DeepSeek-R1's released fp8 weights
    assert precision_up_loss("int8", "bf16").id == "plan.reason.loss_less"
    assert precision_up_loss("fp8", "bf16").id == "plan.reason.loss_less"


def test_the_bf16_line_of_an_int8_plan_says_no_quantization_loss(cat) -> None:  # type: ignore[no-untyped-def]
    kw = dict(model="qwen3-32b", task="inference", concurrent_users=200, tpot_s=0.04, ttft_s=1, input=2048,
              output=1024, devices=("ascend-910b",))
    p = _plan(cat, **kw).plans[0]
    hint = find_messages(p.reason_i18n, "plan.reason.precision_up")
    assert p.precision == "int8" and len(hint) == 1
    en, zh = render(Message.from_json(hint[0]), "en"), render(Message.from_json(hint[0]), "zh")
    assert en.startswith("at bf16") and en.endswith("no quantization loss") and "less quantization" not in en
    assert zh.endswith("无量化损失") and "更小" not in zh


def test_int8_over_an_int4_plan_keeps_less_quantization_loss(cat) -> None:  # type: ignore[no-untyped-def]
    req = make_request(model="qwen2.5-72b", task="inference", concurrent_users=100, tpot_s=0.05, ttft_s=2.0,
                       precision="int4", devices=("ascend-910b",))
    p = plan(cat, lookup.model(cat, req.model), req, TODAY).plans[0]
    assert p.precision == "int4" and "at int8 (W8A8):" in p.reason and p.reason.endswith("less quantization loss")
    assert "量化损失更小" in render(Message.from_json(p.reason_i18n), "zh")  # type: ignore[arg-type]


# ------------------------------------------------------------------- 4. the first month's cash beside the budget

LORA_14B = dict(model="qwen2.5-14b", task="lora", tokens=2e8, budget_cny=30000, deadline_hours=336, domestic_only=True)


def test_the_first_month_pays_the_whole_one_off_and_says_it_is_over_the_budget(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, **LORA_14B)
    p = r.plans[0]
    assert p.device == "ascend-910b" and p.migration_one_off_cny > 0 and p.total_cost_cny <= 30000  # the rule stays
    assert p.first_month_cash_cny == p.cost_cny + p.migration_one_off_cny > 30000  # ¥15,000 + ¥30,000
    over = next(w for w in p.warnings if w.startswith("first month ¥"))
    assert f"¥{p.first_month_cash_cny:,.0f} is over the ¥30,000 budget" in over
    assert "budget ¥30,000 checked against each plan's rent + migration share" in " ".join(r.assumptions)
    zh = [render(Message.from_json(w), "zh") for w in p.warnings_i18n]  # type: ignore[arg-type]
    assert any(w.startswith(f"首月支出 ¥{p.first_month_cash_cny:,.0f} 超出预算 ¥30,000") for w in zh)


def test_a_first_month_within_the_budget_is_said_beside_it_and_none_without_a_budget(cat) -> None:  # type: ignore[no-untyped-def]
    p = _plan(cat, **{**LORA_14B, "budget_cny": 60000}).plans[0]
    assert p.first_month_cash_cny == p.cost_cny + p.migration_one_off_cny <= 60000
    assert f"first month ¥{p.first_month_cash_cny:,.0f} with the whole one-off migration paid, within the ¥60,000" \
        in p.reason
    assert not any(w.startswith("first month") for w in p.warnings)
    free = _plan(cat, **{k: v for k, v in LORA_14B.items() if k != "budget_cny"}).plans[0]
    assert free.first_month_cash_cny is None and "first month" not in free.reason


# ------------------------------------------------------------------- 1. the smallest replica, whatever the card limit

R1 = dict(model="deepseek-r1", task="inference", concurrent_users=2000, input=1024, output=1024, ttft_s=2, tpot_s=0.05,
          offer_kinds=("listing", "index", "reference", "contract"))


def test_the_h20_why_not_does_not_move_with_max_gpus_and_names_the_instance_first(cat) -> None:  # type: ignore[no-untyped-def]
    cat = one_card_h20(cat)  # the H20 rented one card per instance (its 1-card index row only)
    whys = []
    for limit in (128, 256, 1024):
        r = _plan(cat, **R1, devices=("h20",), max_gpus=limit)
        whys.append(next(w["reason_i18n"] for w in r.why_not if w["device"] == "h20"))
    assert whys[0] == whys[1] == whys[2]  # was: the rate needs 224 cards / fits from tp 4 / fits from tp 2
    assert whys[0]["id"] == "why.serve_no_instance" and whys[0]["params"] == {"tp": 8, "largest": 1}


# ------------------------------------------------------------------- 2. the whole expert-parallel group, in words


def test_replica_words_name_the_group_the_table_labels() -> None:
    from suanli.plan.labels import replica_words, serving_label

    assert serving_label(96, 1, 8, 16, "fp8").startswith("96×tp1·ep8")
    assert render(replica_words(96, 1, 8), "en") == "12 groups of 8 cards sharing experts (tp1 × ep8)"
    assert render(replica_words(96, 1, 8, "vllm"), "zh") == "12 组共享专家的 8 卡 vllm 副本组（tp1 × ep8）"
    assert render(replica_words(8, 1, 8), "en") == "a group of 8 cards sharing experts (tp1 × ep8)"
    assert render(replica_words(4, 2, 1), "en") == "4 × 2-card replicas"


def test_deepseek_hints_and_reasons_say_the_group_not_one_card(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, **R1, devices=("h20-141g",))
    assert not r.plans and r.relax
    assert all("× 1-card replicas" not in x for x in r.relax)
    assert any("groups of 8 cards sharing experts (tp1 × ep8) on NVIDIA H20 141GB" in x for x in r.relax)
    p = _plan(cat, **R1, devices=("b200",)).plans[0]
    assert p.ep == 8 and "1-card vllm replicas" not in p.reason
    groups = p.replicas // 8
    assert f"{groups} vllm {'group' if groups == 1 else 'groups'} of 8 cards sharing experts (tp1 × ep8) on NVIDIA B200" \
        in p.reason
