"""The page's Rent cost and Rent vs buy tabs say what the CLI says (review 2026-12-01, hC), in headless Chromium:
each Rent cost row shows its notes (8 separate instances, not one 8-card job) and both prices per card-hour,
labelled as `suanli tco` labels them (list: the offer's at full use; job: the bill ÷ cards ÷ hours); Rent vs buy
reads the core's totals and says "at any use" where break-even is 0, never "0%" nor "break-even 0% to 0%"."""

from __future__ import annotations

import re
from typing import Any

import pytest

from browser_env import SIZES, new_page, require_browser

require_browser()

from playwright.sync_api import Page  # noqa: E402


def _page(browser: Any, lang: str) -> Page:
    return new_page(browser, lang=lang, viewport=SIZES["desktop"])  # type: ignore[no-any-return]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_rent_cost_rows_show_notes_and_both_prices(browser: Any, base_url: str, lang: str) -> None:
    pg = _page(browser, lang)
    pg.goto(f"{base_url}/#lang={lang}&tab=tco&tco-gpu=ascend-910b&tco-hours=720&tco-gpus=8&tco-kinds=all&tco-region=any")
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#tco-btn")
    pg.wait_for_selector("#tco-table tbody tr, #tco-error:not([hidden])")
    assert pg.locator("#tco-error").is_hidden(), pg.locator("#tco-error").inner_text()
    zh = lang == "zh"
    heads = pg.locator("#tco-table thead").inner_text()
    assert ("标价 ¥/卡时" if zh else "list ¥/card-h") in heads and ("本任务 ¥/卡时" if zh else "job ¥/card-h") in heads
    assert ("元/卡时" if zh else "¥ per card-hour") not in heads, heads  # Compare's label for the list price only
    table = pg.locator("#tco-table").inner_text()
    month = next(line for line in table.splitlines() if "omniyq-910b-8card-month" in line)
    assert "\t2.57\t2.6\t" in month, month  # the 910B month: list 2.57 (730-h month), this job 15,000 ÷ 8 ÷ 720
    hourly = pg.locator("#tco-table tbody tr", has_text="seed000-910b-hour").inner_text()  # its notes in the row
    assert ("独立实例" if zh else "8 separate instances, not one 8-card job") in hourly, hourly
    assert "730" in pg.locator("#tco-table caption").inner_text()
    assert "{" not in table
    assert pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_rent_vs_buy_at_any_use_and_totals(browser: Any, base_url: str, lang: str) -> None:
    """H100 with every kind of price: buying pays off at any use (a558a7a), and the close call keeps its prices."""
    pg = _page(browser, lang)
    pg.goto(f"{base_url}/#lang={lang}&tab=rvb&rvb-gpu=h100-sxm&rvb-kinds=all")
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#rvb-btn")
    pg.wait_for_selector("#rvb-table tbody tr, #rvb-error:not([hidden])")
    assert pg.locator("#rvb-error").is_hidden(), pg.locator("#rvb-error").inner_text()
    notes = pg.locator("#rvb-notes").inner_text()
    zh = lang == "zh"
    assert ("任何利用率下买卡都更划算" if zh else "buying pays off at any use") in notes, notes
    assert not re.search(r"(?<![\d.])0(\.0)?%", notes), notes  # no "0% —", no "break-even 0% to 0%"
    api = pg.evaluate("state.rvb")
    tot = api["totals"]
    assert tot["own_cny"] == pytest.approx(tot["capex_all_cards_cny"] + tot["running_cny"])
    verdict = pg.locator("#rvb-notes .verdict").inner_text()
    assert f"{round(tot['diff_cny']):,}" in verdict, verdict
    assert ("购买" if zh else "buy") in verdict and tot["cheaper"] == "buy"
    table = pg.locator("#rvb-table").inner_text()
    assert f"{round(tot['capex_all_cards_cny']):,}" in table and "{" not in table + notes
    assert pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()
