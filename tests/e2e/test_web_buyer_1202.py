"""The page fixes of 2026-12-02 in headless Chromium, English and Chinese (the unit tests with app.js in node:
tests/unit/api/test_page_buyer_fixes_1202.py): a move onto CUDA prints "0 weeks" and one one-off figure, not "0–0";
fastest on domestic devices shows the calendar hours beside the hours, as `suanli plan`; the A100 40G's detail marks
its stale price as `suanli offers` does; rent-vs-buy's untouched utilization and years are said assumed. No console
error, axe clean."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from browser_env import close_checked, open_page, require_browser

require_browser()


LANGS = ["en", "zh"]


@pytest.fixture(autouse=True)
def _today(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("SUANLI_TODAY", "2026-12-01")  # the FT survey's A100 row (2024-09) is stale on it
    yield


@pytest.mark.parametrize("lang", LANGS)
def test_migrate_onto_cuda_prints_ranges_once(browser: Any, base_url: str, lang: str) -> None:
    pg = open_page(browser, base_url, lang, "tab=migrate&mig-model=Qwen/Qwen2.5-7B-Instruct&mig-from=ascend-910b&mig-to=a800")
    pg.click("#mig-btn")
    pg.wait_for_selector("#mig-table tbody tr, #mig-error:not([hidden])")
    assert pg.locator("#mig-error").is_hidden(), pg.locator("#mig-error").inner_text()
    table = pg.locator("#mig-table").inner_text()
    assert ("0 weeks × 2 engineers = 0 engineer-weeks" if lang == "en" else "0 周 × 2 名工程师 = 0 人周") in table, table
    assert "0–0" not in table and not re.search(r"(¥[\d,]+)–\1(?!\d)", table), table
    close_checked(pg, f"migrate onto CUDA {lang}")


@pytest.mark.parametrize("lang", LANGS)
def test_fastest_plan_shows_calendar_hours(browser: Any, base_url: str, lang: str) -> None:
    pg = open_page(browser, base_url, lang, "tab=plan&model=Qwen/Qwen2.5-7B-Instruct&task=lora&tokens=100000000"
               "&objective=fastest&domestic=1")
    pg.click("#plan-btn")
    pg.wait_for_selector("#plans-table tbody tr, #plan-error:not([hidden])")
    assert pg.locator("#plan-error").is_hidden(), pg.locator("#plan-error").inner_text()
    heads = pg.locator("#plans-table th").all_inner_texts()
    cal = "Calendar hours" if lang == "en" else "日历小时"
    assert cal in heads and heads.index(cal) == heads.index("Hours" if lang == "en" else "小时") + 1, heads
    close_checked(pg, f"plan fastest {lang}")


@pytest.mark.parametrize("lang", LANGS)
def test_device_detail_marks_stale_offers(browser: Any, base_url: str, lang: str) -> None:
    pg = open_page(browser, base_url, lang, "tab=catalog")
    pg.wait_for_selector("#acc-table button[data-id='a100-40g']")
    pg.click("#acc-table button[data-id='a100-40g']")
    pg.wait_for_selector("#acc-detail tr.stale")
    assert ("2024-09 (stale)" if lang == "en" else "2024-09（过期）") in pg.locator("#acc-detail tr.stale").first.inner_text()
    note = pg.locator("#acc-detail .stale-note").inner_text()
    assert note.startswith("stale: a price dated more than 12 months ago" if lang == "en" else "过期：日期早于 12 个月前"), note
    close_checked(pg, f"stale offers {lang}")


@pytest.mark.parametrize("lang", LANGS)
def test_rvb_untouched_defaults_are_assumed(browser: Any, base_url: str, lang: str) -> None:
    pg = open_page(browser, base_url, lang, "tab=rvb&rvb-gpu=ascend-910b")
    sent: list[dict[str, Any]] = []
    pg.on("request", lambda r: sent.append(r.post_data_json) if "/api/rent-vs-buy" in r.url else None)
    assert pg.locator("#rvb-util").input_value() == "" and pg.locator("#rvb-years").input_value() == ""
    assert ("0.5" in (pg.locator("#rvb-util").get_attribute("placeholder") or "")
            and "3" in (pg.locator("#rvb-years").get_attribute("placeholder") or ""))
    pg.click("#rvb-btn")
    pg.wait_for_selector("#rvb-table tbody tr, #rvb-error:not([hidden])")
    assert pg.locator("#rvb-error").is_hidden(), pg.locator("#rvb-error").inner_text()
    assert sent and "utilization" not in sent[-1] and "years" not in sent[-1], sent
    assert "50%" in pg.locator("#rvb-table").inner_text()  # the API's default, used and shown
    close_checked(pg, f"rent-vs-buy defaults {lang}")
