"""What `suanli plan` and `suanli rent-vs-buy` gained on 2026-12-02, on the page as the CLI prints it (headless
Chromium, English and Chinese): a plan with a budget says its first month's cash (`first_month_cash_cny`: the
over-budget warning under the plan, or the within-budget clause of its reason) and the budget assumption; a serving
plan lists the efficiency factors no measurement backs among its assumptions (plan.assume.efficiency); rent-vs-buy
qualifies its verdict where no rental offer holds the cards bought in one job (totals.verdict_note, `--gpu h20
--cards 96`). Each figure is the API answer's own, as the page received it. No console error, axe clean."""

from __future__ import annotations

from typing import Any

import pytest

from browser_env import close_checked, open_page, require_browser

require_browser()

LANGS = ["en", "zh"]
LORA_14B = "tab=plan&model=Qwen/Qwen2.5-14B-Instruct&task=lora&tokens=200000000&deadline=336&domestic=1"


def _answer(pg: Any, button: str, path: str) -> dict[str, Any]:
    """Click `button`; the JSON of the POST to `path` it sent (the answer the page renders)."""
    with pg.expect_response(lambda r: r.request.method == "POST" and r.url.split("?")[0].endswith(path)) as resp:
        pg.click(button)
    assert resp.value.ok, resp.value.text()
    return dict(resp.value.json())


@pytest.mark.parametrize("lang", LANGS)
def test_a_plan_over_its_budget_in_the_first_month_says_so(browser: Any, base_url: str, lang: str) -> None:
    pg = open_page(browser, base_url, lang, LORA_14B + "&budget=30000")
    r = _answer(pg, "#plan-btn", "/api/plan")
    pg.wait_for_selector("#plans-table tbody tr")
    p = r["plans"][0]
    cash = p["first_month_cash_cny"]
    assert cash == p["cost_cny"] + p["migration_one_off_cny"] > 30000, p  # ¥15,000 rent + ¥30,000 one-off
    reason = pg.locator("#plans-table tbody tr").first.locator("td.reason")
    reason.locator("summary").click()  # the warnings open on demand
    warns = reason.locator(".warn").all_inner_texts()
    over = (f"! first month ¥{cash:,.0f} is over the ¥30,000 budget: the budget checks rent + migration share"
            if lang == "en" else f"! 首月支出 ¥{cash:,.0f} 超出预算 ¥30,000：预算对照的是租金 + 分摊迁移费用")
    assert any(w.startswith(over) for w in warns), warns
    # the assumption the budget is checked by, in the (collapsed) Assumptions list as in the CLI's "assumed:" lines
    said = pg.locator("#plan-assumptions li").all_text_contents()
    assert any(a.startswith("budget ¥30,000 checked against each plan's rent + migration share" if lang == "en"
                            else "预算 ¥30,000 对照每个方案的租金 + 分摊迁移费用") for a in said), said
    close_checked(pg, f"plan over budget {lang}")


@pytest.mark.parametrize("lang", LANGS)
def test_a_plan_within_its_budget_says_its_first_month_in_the_reason(browser: Any, base_url: str, lang: str) -> None:
    pg = open_page(browser, base_url, lang, LORA_14B + "&budget=60000")
    r = _answer(pg, "#plan-btn", "/api/plan")
    pg.wait_for_selector("#plans-table tbody tr")
    cash = r["plans"][0]["first_month_cash_cny"]
    assert cash is not None and cash <= 60000, r["plans"][0]
    reason = pg.locator("#plans-table tbody tr").first.locator("td.reason")
    reason.locator("summary").click()  # the clauses after the first open on demand
    cell = " ".join(reason.inner_text().split())
    assert (f"first month ¥{cash:,.0f} with the whole one-off migration paid, within the ¥60,000 budget" if lang == "en"
            else f"首月支出 ¥{cash:,.0f}（含全部一次性迁移成本），在预算 ¥60,000 之内") in cell, cell
    assert ("! first month" if lang == "en" else "! 首月支出") not in cell, cell
    close_checked(pg, f"plan within budget {lang}")


@pytest.mark.parametrize("lang", LANGS)
def test_a_serving_plan_lists_its_assumed_efficiency_factors(browser: Any, base_url: str, lang: str) -> None:
    pg = open_page(browser, base_url, lang, "tab=plan&model=deepseek-ai/DeepSeek-R1&task=inference&users=2000"
                   "&input=1024&output=1024&ttft=2&tpot=0.05&max-gpus=1024&kinds=all")
    r = _answer(pg, "#plan-btn", "/api/plan")
    pg.wait_for_selector("#plans-table tbody tr")
    lines = [a for a, j in zip(r["assumptions"], r["assumptions_i18n"]) if j["id"] == "plan.assume.efficiency"]
    assert lines, r["assumptions"]
    assert pg.locator("#plan-assumptions").is_visible()
    said = pg.locator("#plan-assumptions li").all_text_contents()
    assert [a for a in said if a in lines] == lines, said  # every one, in the API's order
    # the H20 96GB among the plans since AutoDL's listing (offers-7.yaml; the 910C was this example before it)
    the_h20 = ("efficiency on NVIDIA H20 96GB (vllm, fp8) that no measurement backs: decode_bandwidth 0.70 "
               "(decode-bw-default: assumed default); matmul_engine_share 1.00" if lang == "en" else
               "NVIDIA H20 96GB（vllm，fp8）上没有实测依据的效率系数：decode_bandwidth 0.70（decode-bw-default：假设值）；"
               "matmul_engine_share 1.00")
    assert any(a.startswith(the_h20) for a in said), said
    close_checked(pg, f"serving assumptions {lang}")


@pytest.mark.parametrize("lang", LANGS)
def test_rent_vs_buy_qualifies_its_verdict_for_separate_instances(browser: Any, base_url: str, lang: str) -> None:
    # the L20's rental offers are 1-card instances (the H20 was this example until offers-7.yaml listed AutoDL's
    # multi-card rows); its server share given as 0, as the CLI needs
    pg = open_page(browser, base_url, lang, "tab=rvb&rvb-gpu=l20&rvb-cards=96&rvb-kinds=all&rvb-server=0")
    r = _answer(pg, "#rvb-btn", "/api/rent-vs-buy")
    pg.wait_for_selector("#rvb-notes .verdict")
    note = r["totals"]["verdict_note"]
    assert note == ("no rental offer holds 96 cards in one job: the rent side is priced as 96 separate instances of "
                    "at most 1 card" if lang == "en" else
                    "没有哪个租用报价能在一个任务中容纳 96 张卡：租用一侧按 96 个独立实例（每个最多 1 张卡）计价"), note
    verdict = pg.locator("#rvb-notes .verdict").inner_text()
    assert verdict.endswith((", but " if lang == "en" else "，但") + note), verdict
    close_checked(pg, f"rent-vs-buy verdict {lang}")
