"""The plans table at a glance (headless Chromium, English and Chinese, 1280 × 800): a serving plan's reason cell
shows its first clause and folds the others and the warnings under a <details> summary that names how many warnings
it holds; a keyboard opens it and every clause and warning of the API's answer is then in the cell. Before, the
qwen2.5-72b serving rows were 424–782 px tall (buyer check 2026-12-02)."""

from __future__ import annotations

from typing import Any

import pytest

from browser_env import close_checked, new_page, require_browser

require_browser()

ROW_MAX_PX = 160  # the first clause (3–4 lines at the cell's 30em) and the summary line; 103 px measured


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_plan_rows_are_compact_and_fold_the_warnings(browser: Any, base_url: str, lang: str) -> None:
    pg = new_page(browser, lang=lang, viewport={"width": 1280, "height": 800}, bypass_csp=True, console=True)
    pg.goto(f"{base_url}/#lang={lang}&tab=plan&model=qwen2.5-72b&task=inference")
    pg.wait_for_selector("body[data-ready='1']")
    with pg.expect_response(lambda r: r.request.method == "POST" and "/api/plan" in r.url) as resp:
        pg.click("#plan-btn")
    plans = resp.value.json()["plans"]
    pg.wait_for_selector("#plans-table tbody tr")
    rows = pg.locator("#plans-table tbody tr")
    assert rows.count() == len(plans) >= 2
    sep = "; " if lang == "en" else "；"
    for i, p in enumerate(plans):
        box = rows.nth(i).bounding_box()
        assert box is not None and box["height"] <= ROW_MAX_PX, (i, box)
        assert p["warnings"] and sep in p["reason"], p  # the long case: clauses and warnings to fold
        cell = rows.nth(i).locator("td.reason")
        summary = cell.locator("details > summary")
        n = len(p["warnings"])
        assert summary.inner_text() == (f"Details, {n} {'warning' if n == 1 else 'warnings'}" if lang == "en"
                                        else f"详情（{len(p['warnings'])} 条警告）")
        assert cell.locator(".warn").first.is_hidden()
        assert cell.inner_text().startswith(p["reason"].split(sep)[0])  # the first clause on view
    cell = rows.first.locator("td.reason")
    cell.locator("summary").focus()
    pg.keyboard.press("Enter")  # keyboard: the summary is focusable, Enter opens it
    assert cell.locator("details").get_attribute("open") is not None
    warns = cell.locator(".warn")
    assert warns.first.is_visible()
    assert warns.all_inner_texts() == ["! " + w for w in plans[0]["warnings"]]
    # every clause of the reason reachable, in order: the first beside the summary, the others under it
    parts = pg.evaluate("""c => [c.firstChild.textContent,
        ...[...c.querySelectorAll('details > div:not(.warn)')].map(d => d.textContent)]""", cell.element_handle())
    assert sep.join(parts) == plans[0]["reason"], parts
    close_checked(pg, f"plans table {lang}")
