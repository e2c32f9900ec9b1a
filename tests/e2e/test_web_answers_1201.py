"""The page shows what the API answers since the fourth session of 2026-12-01 (task full-web), in headless Chromium,
in English and Chinese, at phone and desktop width, with no horizontal scroll, no console error and no serious or
critical axe-core violation:
1. subsidy: plan and Rent cost show a subsidised cost gross → net as the CLI does ("¥15,000 → ¥11,250"); Rent vs
   buy takes a subsidy, shows the purchase prices' dates, staleness warnings and notes, and buys whole servers;
2. why-not: one reason per line (`reasons`, as the CLI);
3. compare: serving takes a period (hours/days, as plan) and shows the rows' `period_note`;
4. migrate cost: task inference takes compare's serving targets (precision, requests/s, TPOT, TTFT, input, output)."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from browser_env import SIZES, new_page, page_checks, require_browser

require_browser()

from playwright.sync_api import Page  # noqa: E402

LANGS = ["en", "zh"]


def _open(browser: Any, base_url: str, lang: str, size: str, fragment: str) -> Page:
    pg: Page = new_page(browser, lang=lang, viewport=SIZES[size], bypass_csp=True, console=True)
    pg.goto(f"{base_url}/#lang={lang}&{fragment}")
    pg.wait_for_selector("body[data-ready='1']")
    return pg


def _answer(pg: Page, btn: str, table: str, error: str) -> None:
    pg.click(btn)
    pg.wait_for_selector(f"{table} tbody tr, {error}:not([hidden])")
    assert pg.locator(error).is_hidden(), pg.locator(error).inner_text()


def _hash(pg: Page) -> dict[str, list[str]]:
    return parse_qs(urlparse(pg.url).fragment)


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", LANGS)
def test_subsidy_tco_and_plan(browser: Any, base_url: str, lang: str, size: str) -> None:
    """Rent cost: 8 910B for 300 h at a 25 % subsidy, ¥15,000 → ¥11,250 in the row and under the table (the CLI's
    line); plan: the 910B's cost cell says ¥15,000 → ¥10,500 at 30 % and its reason the same line."""
    zh = lang == "zh"
    pg = _open(browser, base_url, lang, size, "tab=tco&tco-gpu=ascend-910b&tco-hours=300&tco-gpus=8&tco-subsidy=0.25")
    _answer(pg, "#tco-btn", "#tco-table", "#tco-error")
    assert pg.evaluate("state.tcoBody.subsidy") == 0.25  # a JSON number, not a string
    row = pg.locator("#tco-table tbody tr", has_text="omniyq-910b-8card-month").inner_text()
    assert "15,000 →" in row and "11,250" in row, row
    note = pg.locator("#tco-subsidy-note").inner_text()
    assert "¥15,000 → ¥11,250" in note and ("国产算力补贴 25%" if zh else "subsidy 25 % of domestic compute") in note, note
    assert "{" not in note
    assert _hash(pg)["tco-subsidy"] == ["0.25"]
    page_checks(pg, f"tco subsidy {size} {lang}")
    # plan, domestic only, 30 %: the cost cell gross → net and the reason's line
    pg.goto(f"{base_url}/#lang={lang}&tab=plan&domestic=1&subsidy=0.3")
    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#plan-btn")
    pg.wait_for_selector("#plans-table tbody tr, #plan-error:not([hidden])")
    assert pg.locator("#plan-error").is_hidden(), pg.locator("#plan-error").inner_text()
    plans = pg.evaluate("state.plan.plans")
    p = next(x for x in plans if x["device"] == "ascend-910b" and x["gross_cost_cny"] == 15000)
    tr = pg.locator("#plans-table tbody tr").nth(plans.index(p))
    tr.locator("summary").click()  # the reason's later clauses, the subsidy's among them, open on demand
    row = tr.inner_text()
    assert "15,000 →" in row and "10,500" in row and "¥15,000 → ¥10,500" in row, row
    page_checks(pg, f"plan subsidy {size} {lang}")
    assert pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", LANGS)
def test_subsidy_and_purchase_rent_vs_buy(browser: Any, base_url: str, lang: str, size: str) -> None:
    """910B, 16 cards (two 8-card servers), 30 % subsidy: the rent side gross → net, the purchase rows' dates, both
    warned as older than 12 months, the server's low-confidence note, two servers bought and the rent's notes;
    12 cards is refused naming the form's field."""
    zh = lang == "zh"
    pg = _open(browser, base_url, lang, size, "tab=rvb&rvb-gpu=ascend-910b&rvb-cards=16&rvb-subsidy=0.3")
    _answer(pg, "#rvb-btn", "#rvb-table", "#rvb-error")
    body = pg.evaluate("state.rvbBody")
    assert body["subsidy"] == 0.3 and body["cards"] == 16
    table = pg.locator("#rvb-table").inner_text()
    assert "22,500 →" in table and "15,750" in table, table
    notes = pg.locator("#rvb-notes").inner_text()
    assert "¥22,500 → ¥15,750" in notes, notes
    assert "2024-02" in notes and "2024-03-25" in notes and "px-reuters-910b-card-2024-02" in notes
    assert notes.count("超过 12 个月" if zh else "older than 12") == 2, notes
    purchase = pg.evaluate("state.rvb.purchase_notes")  # two stale prices and the server row's low-confidence note
    assert len(purchase) == 3 and all(n in notes for n in purchase), (purchase, notes)
    assert ("2 台 8 卡服务器" if zh else "2 × 8-card servers bought for 16 cards") in notes, notes
    assert all(n in notes for n in pg.evaluate("state.rvb.rent_notes || []")), notes  # how the 16 cards are rented
    assert ("采购价" if zh else "Purchase prices") in notes
    assert "{" not in table + notes
    page_checks(pg, f"rent-vs-buy subsidy {size} {lang}")
    pg.fill("#rvb-cards", "12")
    pg.click("#rvb-btn")
    pg.wait_for_selector("#rvb-error:not([hidden])")
    err = pg.locator("#rvb-error").inner_text()
    assert ("购买卡数" if zh else "Cards bought") in err and "12" in err, err
    assert pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", LANGS)
def test_why_not_one_reason_per_line(browser: Any, base_url: str, lang: str, size: str) -> None:
    """The default LoRA plan: a device with several reasons shows each on a line of its own, ended by the catalog's
    separator, as `suanli plan` prints them."""
    pg = _open(browser, base_url, lang, size, "tab=plan")
    pg.click("#plan-btn")
    pg.wait_for_selector("#why-table tr, #plan-error:not([hidden])")
    assert pg.locator("#plan-error").is_hidden(), pg.locator("#plan-error").inner_text()
    shown = pg.evaluate("state.plan.why_not.filter(w => (w.reason_i18n || {}).id !== 'why.ranked_below').slice(0, 10)")
    many = [i for i, w in enumerate(shown) if len(w.get("reasons") or []) > 1]
    assert many, "no why-not entry with more than one reason"
    for i in many:
        w = shown[i]
        lines = pg.locator("#why-table tr").nth(i).locator(".why-line")
        assert lines.count() == len(w["reasons"]), w
        sep = "；" if lang == "zh" else ";"
        assert lines.nth(0).inner_text() == w["reasons"][0] + sep
        assert lines.nth(len(w["reasons"]) - 1).inner_text() == w["reasons"][-1]
    page_checks(pg, f"why-not {size} {lang}")
    assert pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", LANGS)
def test_compare_serving_period(browser: Any, base_url: str, lang: str, size: str) -> None:
    """Serving 2 requests/s compared over 30 days: sent as numbers (days, requests_per_s), each row billed 720 h as
    plan bills the period, the period note shown; the rate and period fields are for serving only."""
    zh = lang == "zh"
    pg = _open(browser, base_url, lang, size,
               "tab=compare&cmp-task=inference&cmp-devices=rtx-4090,l20&cmp-rps=2&cmp-period=30&cmp-period-unit=days")
    assert pg.locator("#cmp-period").is_visible()
    _answer(pg, "#cmp-btn", "#cmp-table", "#cmp-error")
    body = pg.evaluate("state.cmpBody")
    assert body["days"] == 30 and body["requests_per_s"] == 2 and "tokens" not in body and "hours" not in body, body
    rows = pg.evaluate("state.compare")
    assert all(r["hours"] == 720 and r["period_note"] for r in rows)
    meta = pg.locator("#cmp-meta").inner_text()
    assert rows[0]["period_note"] in meta and ("假设" if zh else "assumed") in meta, meta
    assert ("服务时长" if zh else "Serving period") in meta and "720" in meta
    h = _hash(pg)
    assert h["cmp-period"] == ["30"] and h["cmp-period-unit"] == ["days"] and h["cmp-rps"] == ["2"]
    page_checks(pg, f"compare period {size} {lang}")
    pg.select_option("#cmp-task", "lora")
    assert pg.locator("#cmp-period").is_hidden() and pg.locator("#cmp-rps").is_hidden()
    assert pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", LANGS)
def test_migrate_serving_targets(browser: Any, base_url: str, lang: str, size: str) -> None:
    """H800 → 910B serving Qwen2.5-7B at 5 req/s within 50 ms TPOT: the targets go as numbers, each device's row
    says the batch that serves the rate (compare's "serves" line); the fields are for inference only."""
    zh = lang == "zh"
    pg = _open(browser, base_url, lang, size, "tab=migrate&mig-task=full")
    assert pg.locator("#mig-rps").is_hidden()
    pg.select_option("#mig-task", "inference")
    pg.select_option("#mig-from", "h800")
    pg.select_option("#mig-precision", "bf16")
    pg.select_option("#mig-kinds", "all")
    for sel, v in (("#mig-rps", "5"), ("#mig-tpot", "0.05"), ("#mig-ttft", "2"), ("#mig-input", "512"), ("#mig-output", "256")):
        pg.fill(sel, v)
    _answer(pg, "#mig-btn", "#mig-table", "#mig-error")
    body = pg.evaluate("state.migBody")
    assert body == {**body, "requests_per_s": 5, "tpot_s": 0.05, "ttft_s": 2, "input": 512, "output": 256,
                    "precision": "bf16", "task": "inference"}, body
    table = pg.locator("#mig-table").inner_text()
    assert table.count("承载 5 请求/秒" if zh else "serves 5 requests/s at batch") == 2, table
    assert "{" not in table
    h = _hash(pg)
    assert h["mig-rps"] == ["5"] and h["mig-tpot"] == ["0.05"] and h["mig-task"] == ["inference"]
    page_checks(pg, f"migrate serving {size} {lang}")
    assert pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()
