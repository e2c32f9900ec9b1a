"""The page after the interface fixes (task ifx), in headless Chromium, in English and Chinese:
1. the Migrate tab's *Parallel-run weeks* sends `parallel_weeks` (the answer's parallel run is for those weeks, "as
   given") and stays in the URL; empty, nothing is sent and the answer says the 2 weeks were assumed;
2. the plan tab's *Precision* offers *any*: the request says `"precision": "any"` and the plan searched all four;
3. negative money reads with its sign first: a rising bill is "−¥14,500 (the bill rises)" as the CLI prints it, and
   the saving at the known error is "-¥…", never "¥-…".
(tests/unit/api/test_ifx_page_forms.py pins the same wiring without a browser.)"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from browser_env import SIZES, new_page, page_checks, require_browser

require_browser()

from playwright.sync_api import Page  # noqa: E402

LANGS = ["en", "zh"]


def _open(browser: Any, base_url: str, lang: str, fragment: str, size: str = "desktop") -> Page:
    pg: Page = new_page(browser, lang=lang, viewport=SIZES[size], bypass_csp=True, console=True)
    pg.goto(f"{base_url}/#lang={lang}&{fragment}")
    pg.wait_for_selector("body[data-ready='1']")
    return pg


def _answer(pg: Page, btn: str, table: str, error: str, route: str = "/api/migrate?") -> None:
    """Click and wait for this click's answer (a table shown before it does not count) to be drawn."""
    with pg.expect_response(lambda r: route in r.url and r.request.method == "POST"):
        pg.click(btn)
    pg.wait_for_selector(f"{table} tbody tr, {error}:not([hidden])")
    pg.wait_for_function("!document.querySelector('#mig-btn').disabled")  # the answer rendered (runMigrate's finally)
    assert pg.locator(error).is_hidden(), pg.locator(error).inner_text()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", LANGS)
def test_migrate_parallel_weeks(browser: Any, base_url: str, lang: str, size: str) -> None:
    zh = lang == "zh"
    pg = _open(browser, base_url, lang, "tab=migrate&mig-model=Qwen/Qwen2.5-14B-Instruct&mig-kinds=all", size)
    label = pg.locator("label", has=pg.locator("#mig-parallel")).inner_text()
    assert ("并行运行周数" if zh else "Parallel-run weeks") in label, label
    assert pg.locator("#mig-parallel").input_value() == ""
    _answer(pg, "#mig-btn", "#mig-table", "#mig-error")
    assert "parallel_weeks" not in pg.evaluate("state.migBody")  # empty: the API's assumed default
    assumed = pg.evaluate("state.mig.one_off_items.find(i => i.item === 'parallel_run').note")
    assert ("假设" if zh else "assumed") in assumed and ("“并行运行周数”" if zh else "“Parallel-run weeks”") in assumed
    pg.fill("#mig-parallel", "4")
    _answer(pg, "#mig-btn", "#mig-table", "#mig-error")
    assert pg.evaluate("state.migBody")["parallel_weeks"] == 4
    given = pg.evaluate("state.mig.one_off_items.find(i => i.item === 'parallel_run').note")
    assert ("4 周" if zh else "4 weeks") in given and ("按给定值" if zh else "as given") in given, given
    assert parse_qs(urlparse(pg.url).fragment)["mig-parallel"] == ["4"]
    page_checks(pg, f"migrate parallel weeks {size} {lang}")
    assert pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_plan_precision_any(browser: Any, base_url: str, lang: str) -> None:
    pg = _open(browser, base_url, lang, "task=inference")
    option = pg.locator("#precision option[value='any']").inner_text()
    assert all(p in option for p in ("bf16", "fp8", "int8", "int4")), option
    pg.fill("#rps", "2")
    pg.select_option("#precision", "any")
    with pg.expect_request(lambda r: "/api/plan" in r.url and r.method == "POST") as rq:
        pg.click("#plan-btn")
    assert rq.value.post_data_json["precision"] == "any"
    pg.wait_for_selector("#plans-table tbody tr, #plan-error:not([hidden])")
    assert pg.locator("#plan-error").is_hidden(), pg.locator("#plan-error").inner_text()
    searched = " ".join(pg.locator("#plan-assumptions li").all_text_contents())
    assert ("bf16、fp8、int8、int4" if lang == "zh" else "bf16, fp8, int8, int4") in searched, searched
    assert parse_qs(urlparse(pg.url).fragment)["precision"] == ["any"]
    assert pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_negative_money_has_its_sign_first(browser: Any, base_url: str, lang: str) -> None:
    """README's case: at ¥500 a month on H800s, the 910B's only listing (an 8-card month) raises the bill."""
    pg = _open(browser, base_url, lang, "tab=migrate&mig-model=qwen2.5-32b&mig-task=lora&mig-from=h800&mig-spend=500")
    _answer(pg, "#mig-btn", "#mig-table", "#mig-error")
    table = pg.locator("#mig-table").inner_text()
    assert "−¥14,500" in table and ("账单增加" if lang == "zh" else "the bill rises") in table, table
    text = table + pg.locator("#mig-notes").inner_text()
    assert "¥-" not in text and "-¥" in text, text  # the saving at the known error
    assert pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()
