"""The buyer review of 2026-12-03 (task M) in headless Chromium (the renderers' unit tests, app.js in node:
tests/unit/api/test_page_review_m_1203.py): the Migrate tab answers its first click with the defaults and shows
what the one-off adds up; the language toggle renames every device list and keeps each selection. No console error,
axe clean."""

from __future__ import annotations

from typing import Any

import pytest

from browser_env import close_checked, open_page, require_browser

require_browser()

NAMES = {"zh": "华为昇腾 910B", "en": "Huawei Ascend 910B"}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_migrate_defaults_and_toggle_keep_device_lists(browser: Any, base_url: str, lang: str) -> None:
    pg = open_page(browser, base_url, lang, "tab=migrate")
    pg.click("#mig-btn")  # the defaults: H800 (a Chinese listing) → 910B
    pg.wait_for_selector("#mig-table tbody tr, #mig-error:not([hidden])")
    assert pg.locator("#mig-error").is_hidden(), pg.locator("#mig-error").inner_text()
    table = pg.locator("#mig-table").inner_text()
    for word in (["人工", "移植期间的测试实例", "并行运行", "新方做同样工作量的账单"] if lang == "zh" else
                 ["labour", "test instance while porting", "parallel run", "new side's bill"]):
        assert word in table, (word, table)
    pg.select_option("#mig-to", "h800")
    # the other tabs' lists, hidden on this one: picked as their forms hold them
    pg.eval_on_selector("#rvb-gpu", "s => { s.value = 'ascend-910b'; }")
    pg.eval_on_selector("#cmp-devices", "s => [...s.options].forEach(o => { o.selected = ['ascend-910b', 'h800'].includes(o.value); })")
    other = "en" if lang == "zh" else "zh"
    pg.click("#lang-toggle")
    pg.wait_for_function(f"document.documentElement.lang.startsWith('{'zh' if other == 'zh' else 'en'}')")
    pg.wait_for_selector("#mig-table tbody tr, #mig-error:not([hidden])")
    assert pg.locator("#mig-to").input_value() == "h800" and pg.locator("#rvb-gpu").input_value() == "ascend-910b"
    assert pg.locator("#mig-from").input_value() == "h800"
    picked = pg.eval_on_selector("#cmp-devices", "s => [...s.selectedOptions].map(o => o.value)")
    assert sorted(picked) == ["ascend-910b", "h800"], picked
    for sel in ("#rvb-gpu", "#mig-to", "#cmp-devices", "#tco-gpu"):
        names = pg.eval_on_selector(sel, "s => [...s.options].map(o => o.textContent)")
        assert NAMES[other] in names and NAMES[lang] not in names, (sel, names)
    close_checked(pg, f"migrate defaults, toggle {lang}")
