"""The page's Migrate and Rent vs buy tabs in headless Chromium (webmig 2026-12-01): a buyer asks "H100 → 910B, what
does the move cost" and "buy or rent at 50 % use" on the page and gets what `suanli migrate cost` and
`suanli rent-vs-buy` print, in English and Chinese, the form kept in the URL, at phone and desktop width with no
horizontal scroll, no console error and no serious or critical axe-core violation."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from browser_env import SIZES, new_page, page_checks, require_browser

require_browser()

from playwright.sync_api import Page  # noqa: E402

def _page(browser: Any, lang: str, size: str) -> Page:
    return new_page(browser, lang=lang, viewport=SIZES[size], bypass_csp=True, console=True)  # type: ignore[no-any-return]


def _hash(pg: Page) -> dict[str, list[str]]:
    return parse_qs(urlparse(pg.url).fragment)


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_migrate_tab(browser: Any, base_url: str, lang: str, size: str) -> None:
    """H800 (the default: it has a Chinese listing) → 910B at ¥100k a month with indexes allowed: the saving, the
    one-off, the payback, the verdict, each device's tokens/s and card-hour price, and the listings used with their dates."""
    pg = _page(browser, lang, size)
    pg.goto(f"{base_url}/#lang={lang}&tab=migrate&mig-model=Qwen/Qwen2.5-14B-Instruct&mig-kinds=all")
    pg.wait_for_selector("body[data-ready='1']")
    assert pg.locator("#tab-migrate").get_attribute("aria-selected") == "true"
    assert pg.locator("#mig-from").input_value() == "h800" and pg.locator("#mig-to").input_value() == "ascend-910b"
    assert pg.locator("#mig-spend").input_value() == ""  # empty: the API's assumed default, said so in the answer
    pg.click("#mig-btn")
    pg.wait_for_selector("#mig-table tbody tr, #mig-error:not([hidden])")
    assert pg.locator("#mig-error").is_hidden(), pg.locator("#mig-error").inner_text()
    table = pg.locator("#mig-table").inner_text()
    zh = lang == "zh"
    for word in (["每月节省", "一次性成本", "回本", "结论", "华为昇腾 910B，8 张卡"] if zh else
                 ["monthly saving", "one-off cost", "payback", "verdict", "Huawei Ascend 910B, 8 cards"]):
        assert word in table, (word, table)
    assert "{" not in table  # every template filled, format specs included ({lo:.1f})
    assert ("假设" if zh else "assumed") in pg.locator("#mig-table tr", has_text="100,000").inner_text()
    notes = pg.locator("#mig-notes").inner_text()
    assert ("所用报价" if zh else "Listings used") in notes and "omniyq-910b-8card-month" in notes
    assert "2026-07-20" in notes  # the listing's date
    assert "→" in pg.locator("#mig-meta").inner_text()
    h = _hash(pg)
    assert h["tab"] == ["migrate"] and h["mig-kinds"] == ["all"] and "model" not in h  # this tab's form only
    page_checks(pg, f"migrate {size} {lang}")
    # a refusal replaces the answer: the default Chinese listings have no H100 price
    pg.select_option("#mig-from", "h100-sxm")
    pg.select_option("#mig-kinds", "listing")
    pg.click("#mig-btn")
    pg.wait_for_selector("#mig-error:not([hidden])")
    assert pg.locator("#mig-table").inner_text() == ""
    assert "h100" in pg.locator("#mig-error").inner_text().lower()
    assert pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_rent_vs_buy_tab(browser: Any, base_url: str, lang: str, size: str) -> None:
    """The L20 at 50 % use: rent ¥68,854 a card-year (the hourly offer for the hours in use) against own ¥27,280
    (power with the host's assumed share, 82 % of the TDP), break-even 18.8 %, the offer used with its date; the
    910B's eight-card month says rent at every use."""
    pg = _page(browser, lang, size)
    pg.goto(f"{base_url}/#lang={lang}&tab=rvb&rvb-gpu=l20&rvb-util=0.5&rvb-server=0")  # no server priced for the L20: a host owned
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#rvb-btn")
    pg.wait_for_selector("#rvb-table tbody tr, #rvb-error:not([hidden])")
    assert pg.locator("#rvb-error").is_hidden(), pg.locator("#rvb-error").inner_text()
    zh = lang == "zh"
    table = pg.locator("#rvb-table").inner_text()
    assert "68,854" in table and "27,280" in table, table
    labels = {pg.locator("#rvb-table td").nth(i).get_attribute("data-label") for i in range(2)}  # phone: cards
    assert labels == ({"租用", "自购"} if zh else {"Rent", "Own"}), labels
    notes = pg.locator("#rvb-notes").inner_text()
    assert "18.8%" in notes and ("盈亏平衡利用率" if zh else "Break-even utilization") in notes
    assert "ctyun-l20-1card-month" in notes and "2026-" in notes  # the year's offer and its date
    assert ("买" if zh else "buy") in notes
    assert "{" not in table + notes
    h = _hash(pg)
    assert h["tab"] == ["rvb"] and h["rvb-gpu"] == ["l20"]
    page_checks(pg, f"rent-vs-buy {size} {lang}")
    # whole server: 8 910B cards for 3 years, the totals say how many cards and years
    pg.select_option("#rvb-gpu", "ascend-910b")
    pg.fill("#rvb-server", "")  # the catalog's 8-card server
    pg.fill("#rvb-cards", "8")
    pg.click("#rvb-btn")
    pg.wait_for_function("document.querySelector('#rvb-notes').innerText.includes('omniyq-910b-8card-month')")
    table = pg.locator("#rvb-table").inner_text()
    assert ("8 张卡 × 3 年" if zh else "8 cards × 3 years") in table, table
    assert "rvb-cards=8" in pg.url
    # a refusal names the form's field in the page's language
    pg.fill("#rvb-util", "0.0005")
    pg.evaluate("document.querySelector('#rvb-util').removeAttribute('min')")
    pg.click("#rvb-btn")
    pg.wait_for_selector("#rvb-error:not([hidden])")
    assert ("利用率" if zh else "Utilization") in pg.locator("#rvb-error").inner_text()
    assert pg.locator("#rvb-table").inner_text() == ""
    assert pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()


def test_toggle_asks_again(browser: Any, base_url: str) -> None:
    """The language toggle asks for both answers again: the verdict and the break-even note switch language."""
    pg = _page(browser, "en", "desktop")
    pg.goto(f"{base_url}/#lang=en&tab=rvb&rvb-gpu=l20&rvb-server=0")
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#rvb-btn")
    pg.wait_for_selector("#rvb-table tbody tr")
    assert "buying pays off" in pg.locator("#rvb-notes").inner_text()
    pg.click("#lang-toggle")
    pg.wait_for_function("document.querySelector('#rvb-notes').innerText.includes('买卡更划算')")
    assert pg.locator("#tab-rvb").inner_text() == "租还是买"
    assert pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()


def test_fields_the_forms_send(browser: Any, base_url: str) -> None:
    """The buyer's own figures reach the API: monthly spend, cards each side and libraries (migrate), tokens per
    second (tco: ¥ per million tokens), operations (rent vs buy); the operator check answers on the Migrate tab."""
    pg = _page(browser, "en", "desktop")
    sent: list[dict[str, Any]] = []
    pg.on("request", lambda r: sent.append({"url": r.url, **(r.post_data_json or {})}) if r.method == "POST" else None)
    pg.goto(f"{base_url}/#lang=en&tab=migrate&mig-model=Qwen/Qwen2.5-14B-Instruct&mig-kinds=all&mig-spend=200000"
            "&mig-gpus=16&mig-uses=flash-attn")
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#mig-btn")
    pg.wait_for_selector("#mig-table tbody tr, #mig-error:not([hidden])")
    body = next(b for b in sent if "/api/migrate?" in b["url"])
    assert body["monthly_spend"] == 200000 and body["gpus"] == 16 and body["uses"] == ["flash-attn"], body
    assert "as given" in pg.locator("#mig-table").inner_text()
    pg.click("#mig-check-btn")
    pg.wait_for_selector("#mig-check h3, #mig-check-error:not([hidden])", timeout=60_000)
    assert pg.locator("#mig-check-error").is_hidden(), pg.locator("#mig-check-error").inner_text()
    check = pg.locator("#mig-check").inner_text()
    assert "needs-port" in check and "flash-attn" in check and "torch_npu" in check, check
    pg.click("#lang-toggle")  # asked again in Chinese
    pg.wait_for_function("document.querySelector('#mig-check').innerText.includes('算子')")
    pg.click("#lang-toggle")
    pg.wait_for_function("!document.querySelector('#mig-check').innerText.includes('算子')")
    pg.click("#tab-tco")
    pg.select_option("#tco-gpu", "ascend-910b")
    pg.fill("#tco-tps", "2000")
    pg.click("#tco-btn")
    pg.wait_for_selector("#tco-table tbody tr, #tco-error:not([hidden])")
    assert next(b for b in sent if "/api/tco?" in b["url"])["tokens_per_s"] == 2000
    assert "¥/1M tok" in pg.locator("#tco-table thead").inner_text()
    pg.click("#tab-rvb")
    pg.select_option("#rvb-gpu", "l20")
    pg.fill("#rvb-server", "0")
    pg.fill("#rvb-ops", "1000")
    pg.click("#rvb-btn")
    pg.wait_for_selector("#rvb-table tbody tr, #rvb-error:not([hidden])")
    assert next(b for b in sent if "/api/rent-vs-buy?" in b["url"])["ops"] == 1000
    assert "operations" in pg.locator("#rvb-table").inner_text() and "operations" in pg.locator("#panel-rvb p").first.inner_text()
    assert pg.errors == []  # type: ignore[attr-defined]
    pg.context.close()
