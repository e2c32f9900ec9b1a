"""The web page in headless Chromium (Playwright driving Debian's /usr/bin/chromium): fill the form, get
plans with charts, compare side by side, switch language, browse the catalog; screenshots go to
$SUANLI_SCREENSHOT_DIR (default: a tmp dir). Every request must stay on the server: the page is offline."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser_env import (
    SIZES,
    axe_clean,
    keep_on_server,
    new_page,
    no_horizontal_scroll,
    require_browser,
)

require_browser()

from playwright.sync_api import Page  # noqa: E402


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = os.environ.get("SUANLI_SCREENSHOT_DIR")
    p = Path(d) if d else tmp_path_factory.mktemp("screenshots")
    p.mkdir(parents=True, exist_ok=True)
    return p


@pytest.fixture(scope="module")
def page(browser: Any, base_url: str) -> Iterator[Page]:
    pg = new_page(browser, viewport={"width": 1300, "height": 1000}, console=True, timeout_ms=30_000)
    outside = keep_on_server(pg, base_url)
    yield pg
    assert outside == [], f"the page tried to load from elsewhere: {outside}"
    assert pg.errors == [], pg.errors
    pg.context.close()


def test_plan_in_english_then_chinese(page: Page, base_url: str, shots: Path) -> None:
    page.goto(base_url + "/")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#plan-btn").inner_text() == "Plan"
    page.select_option("#model", "Qwen/Qwen2.5-7B-Instruct")
    page.select_option("#task", "lora")
    page.fill("#tokens", "100000000")
    assert page.locator("#region").input_value() == "cn" and page.locator("#kinds").input_value() == "listing"
    page.select_option("#region", "any")  # a user widens the prices: any region, every kind of figure
    page.select_option("#kinds", "all")
    page.click("#plan-btn")
    page.wait_for_selector("#progress", state="hidden")
    page.wait_for_selector("#plans-table tbody tr:nth-child(2)")
    rows = page.locator("#plans-table tr").count() - 1
    assert rows >= 2
    assert page.locator("#chart-memory svg rect").count() >= rows
    assert page.locator("#chart-pareto svg circle").count() >= 1
    meta = page.locator("#plan-meta").inner_text()
    assert "Any region" in meta and "index" in meta  # the answer says which prices it used
    table = page.locator("#plans-table").inner_text()
    assert "llama-factory" in table or "peft" in table  # each plan's framework
    assert page.locator("#plan-assumptions li").count() >= 1
    page.click("#compare-plans-btn")
    assert page.locator("#side-table tr").count() >= 8
    page.screenshot(path=str(shots / "plan-en.png"), full_page=True)
    assert "region=any" in page.url and "kinds=all" in page.url

    page.click("#lang-toggle")
    page.wait_for_selector("html[lang='zh-CN']")  # the Chinese catalog arrives, then the page re-renders
    assert page.locator("#plan-btn").inner_text() == "规划"
    assert page.locator("#plans-table th").nth(2).inner_text() == "设备"
    assert "帕累托" in page.locator("#chart-pareto").inner_text()
    page.click("#plan-btn")  # the API answers in the page's language: reasons and assumptions in Chinese
    page.wait_for_selector("#progress", state="hidden")
    page.wait_for_selector("#plans-table tbody tr:nth-child(2)")
    reason = page.locator("#plans-table td.reason").first.inner_text()
    assert "最便宜" in reason and "cheapest" not in reason, reason
    assert "不限区域" in page.locator("#plan-meta").inner_text()
    page.screenshot(path=str(shots / "plan-zh.png"), full_page=True)
    page.click("#lang-toggle")
    page.wait_for_selector("html[lang='en']")
    assert page.locator("#plan-btn").inner_text() == "Plan"


def test_inference_and_error(page: Page, base_url: str, shots: Path) -> None:
    page.goto(base_url + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#task", "inference")
    assert page.locator("#rps").is_visible() and not page.locator("#tokens").is_visible()
    page.fill("#rps", "5")
    page.click("#plan-btn")
    page.wait_for_selector("#plans-table tbody tr:nth-child(1)")
    page.fill("#rps", "-1")
    page.evaluate("document.querySelector('#rps').removeAttribute('min')")
    page.click("#plan-btn")
    page.wait_for_selector("#plan-error:not([hidden])")
    # the page names the field by its form label (c469aa9: "“Requests per second”: …"), not the JSON name
    assert page.locator("#plan-error").inner_text().startswith("“Requests per second”")
    page.screenshot(path=str(shots / "inference-error.png"), full_page=True)


def test_buyer_fields_and_concurrent_users(page: Page, base_url: str, shots: Path) -> None:
    """A buyer's serving questions (review 2026-12-01): TTFT/TPOT targets, serving period, framework, precision,
    stacks already run, and concurrent users instead of a request rate: the form sends them to POST /api/plan and
    the answer says the rate it derived (Little's law)."""
    page.goto(base_url + "/?fresh=2#lang=en&task=inference")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#users").is_visible() and page.locator("#tpot").is_visible()
    serving = page.locator("#framework option").all_inner_texts()
    assert any("vLLM" in x for x in serving) and not any("LLaMA-Factory" in x for x in serving)  # engines only
    page.fill("#users", "50")
    page.fill("#ttft", "0.5")
    page.fill("#tpot", "0.0333")
    page.fill("#period", "7")
    page.select_option("#period-unit", "days")
    page.select_option("#framework", "vllm")
    page.select_option("#precision", "bf16")
    page.check("#already-on input[value='cann']")
    with page.expect_request(lambda r: "/api/plan" in r.url and r.method == "POST") as rq:
        page.click("#plan-btn")
    body = rq.value.post_data_json
    assert body["concurrent_users"] == 50 and "requests_per_s" not in body, body
    assert (body["ttft_s"], body["tpot_s"], body["days"]) == (0.5, 0.0333, 7) and "hours" not in body, body
    assert (body["framework"], body["precision"], body["already_on"]) == ("vllm", "bf16", ["cann"]), body
    page.wait_for_selector("#plans-table tbody tr")
    rate = page.locator("#plan-rate").inner_text()
    rps = 50 / (0.5 + 256 * 0.0333)  # Little's law: users / (TTFT + output x TPOT)
    assert "50 concurrent users" in rate and f"{rps:.2f}" in rate, rate  # 5.54
    assert "Little" in (page.locator("#plan-assumptions li").first.text_content() or "")  # folded: the text
    assert "vllm" in page.locator("#plans-table").inner_text()
    for part in ("users=50", "tpot=0.0333", "period=7", "period-unit=days", "framework=vllm", "already-on=cann"):
        assert part in page.url, (part, page.url)
    page.screenshot(path=str(shots / "plan-users-en.png"), full_page=True)

    page.click("#lang-toggle")
    page.wait_for_selector("html[lang='zh-CN']")
    assert "并发用户" in page.locator("#plan-rate").inner_text()
    assert page.locator("label:has(#tpot) span").inner_text() == "TPOT 目标（秒）"
    assert page.locator("#framework option").first.inner_text() == "自动"
    page.click("#lang-toggle")
    page.wait_for_selector("html[lang='en']")

    page.fill("#tpot", "")  # concurrent users without a TPOT target: the API's one error shape, shown on the page
    page.click("#plan-btn")
    page.wait_for_selector("#plan-error:not([hidden])")
    said = page.locator("#plan-error").inner_text()  # the field named by the page's form label, not tpot_s or --tpot
    assert "“TPOT target (s)”" in said and "tpot_s" not in said and "--tpot" not in said, said
    # the prefix too, worded as the form's label (field.concurrent_users == web.users, webfix 2026-12-01)
    assert said.startswith("“Concurrent users (instead of requests/s)”: ") and "concurrent_users" not in said, said
    assert page.locator("#plan-results").is_hidden()

    page.select_option("#task", "lora")  # training: the training frameworks, no serving fields
    assert page.locator("#users").is_hidden() and page.locator("#period").is_hidden()
    training = page.locator("#framework option").all_inner_texts()
    assert any("LLaMA-Factory" in x for x in training) and not any("vLLM" in x for x in training)


def test_budget_and_deadline_refusal_names_form_fields(page: Page, base_url: str) -> None:
    page.goto(base_url + "/?fresh=1#lang=zh&task=lora&tokens=100000000")  # a query: a full load, not a hash change
    page.wait_for_selector("body[data-ready='1']")
    page.fill("#budget", "1")
    page.fill("#deadline", "0.1")
    page.click("#plan-btn")
    page.wait_for_selector("#plan-error li")
    hints = page.locator("#plan-error").inner_text()
    assert "“预算（元）”" in hints and "“截止时间（小时）”" in hints and "--budget" not in hints, hints
    assert page.locator("#plan-results").is_hidden()


def test_compare_value_catalog(page: Page, base_url: str, shots: Path) -> None:
    page.goto(base_url + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.click("#tab-compare")
    page.select_option("#cmp-task", "lora")
    page.select_option("#cmp-devices", ["rtx-4090", "a100-80g", "ascend-910b"])
    page.select_option("#cmp-region", "any")
    page.select_option("#cmp-kinds", "all")
    page.click("#cmp-btn")
    page.wait_for_selector("#cmp-table tr")
    assert page.locator("#cmp-table tr").first.locator("td").count() == 3
    assert "Any region" in page.locator("#cmp-meta").inner_text()
    page.screenshot(path=str(shots / "compare.png"), full_page=True)

    # serving: the memory row is plan's needed / usable / capacity (not the card's total with vLLM's unused
    # pre-allocated pool); the pool is a note under it, as the CLI's compare says it
    page.select_option("#cmp-task", "inference")
    page.select_option("#cmp-devices", ["rtx-4090", "a100-80g"])
    page.click("#cmp-btn")
    # the serving answer, not the LoRA table still shown (it has the same memory row)
    page.wait_for_function("() => state.compare && state.compare.length === 2 && state.compare[0].layout.engine")
    mem = page.locator("#cmp-table tr", has=page.locator("th", has_text="needed / usable / capacity"))
    mem.wait_for()
    api = page.evaluate("() => state.compare")
    gib = lambda b: f"{b / 2**30:.1f}".removesuffix(".0")  # the page's fmt: at most one decimal  # noqa: E731
    assert any(r["memory_pool_note"] for r in api)  # vLLM pre-allocates on both
    for cell, r in zip(mem.locator("td").all(), api):
        text = cell.inner_text()
        assert text.startswith(f"{gib(r['memory_needed_bytes'])} / {gib(r['memory_usable_bytes'])} / "), text
        assert not text.startswith(f"{gib(r['memory_per_gpu_bytes'])} / ")  # the old total with the unused pool
        assert (r["memory_pool_note"] or "") in text, text

    page.click("#tab-value")  # cn listings by default: few devices; widening shows more, international marked
    page.wait_for_selector("#val-meta:has-text('Chinese platforms')")
    page.select_option("#val-region", "any")
    page.select_option("#val-kinds", "all")
    page.click("#val-btn")
    page.wait_for_selector("#val-meta:has-text('Any region')")
    assert page.locator("#chart-value svg rect").count() >= 5
    assert "International offers" in page.locator("#val-meta").inner_text()
    page.screenshot(path=str(shots / "value.png"), full_page=True)

    page.click("#tab-tco")
    page.select_option("#tco-gpu", "h100-sxm")
    page.click("#tco-btn")  # no Chinese H100 listing: the refusal says so and names the wider figures
    page.wait_for_selector("#tco-error:not([hidden])")
    assert "h100-sxm" in page.locator("#tco-error").inner_text()
    page.select_option("#tco-region", "any")
    page.select_option("#tco-kinds", "all")
    page.click("#tco-btn")
    page.wait_for_selector("#tco-table tbody tr")
    assert page.locator("#tco-error").is_hidden()
    assert page.locator("#tco-table .intl").count() >= 1  # international offers marked
    page.screenshot(path=str(shots / "tco.png"), full_page=True)
    page.click("#tab-catalog")
    page.wait_for_selector("#acc-table tr[data-id='ascend-910b']")
    page.fill("#acc-search", "华为")  # vendor names in either language find the device
    assert page.locator("#acc-table tr[data-id='rtx-4090']").count() == 0
    page.focus("#acc-table button[data-id='ascend-910b']")
    page.keyboard.press("Enter")  # keyboard opens the detail
    page.wait_for_selector("#spec-table tr.conflict")
    assert "seed article 000" in page.locator("#spec-table").inner_text()  # sources by title
    page.screenshot(path=str(shots / "catalog.png"), full_page=True)


# ---- phone and desktop, English and Chinese: no horizontal scroll, no console errors, axe clean ------------

@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_sizes_and_languages(browser: Any, base_url: str, shots: Path, size: str, lang: str) -> None:
    if True:
        pg = new_page(browser, lang=lang, viewport=SIZES[size], bypass_csp=True, console=True, timeout_ms=30_000)
        ctx, errors = pg.context, pg.errors
        pg.goto(f"{base_url}/#lang={lang}&tab=plan&task=lora&tokens=100000000&max-gpus=16")
        pg.wait_for_selector("body[data-ready='1']")
        assert pg.locator("#plan-btn").inner_text() == ("规划" if lang == "zh" else "Plan")
        pg.click("#plan-btn")
        pg.wait_for_selector("#plans-table tbody tr")
        no_horizontal_scroll(pg, f"plan {size} {lang}")
        axe_clean(pg, f"plan {size} {lang}")
        legend = pg.locator("#chart-memory .legend").inner_text()
        assert ("权重" if lang == "zh" else "weights") in legend  # memory legend keys in the page's language
        assert pg.locator("#chart-pareto svg[role='img']").get_attribute("aria-label")
        assert len(pg.locator("#chart-pareto svg text").all()) >= 6  # ticks on both axes
        pg.screenshot(path=str(shots / f"plan-{size}-{lang}.png"), full_page=True)
        assert "tab=plan" in pg.url and "max-gpus=16" in pg.url  # form state in the URL

        # an error replaces the result instead of stacking under it
        pg.fill("#tokens", "-5")
        pg.evaluate("document.querySelector('#tokens').removeAttribute('min')")
        pg.click("#plan-btn")
        pg.wait_for_selector("#plan-error:not([hidden])")
        assert pg.locator("#plan-results").is_hidden()

        pg.keyboard.press("Escape")
        pg.focus("#tab-plan")
        pg.keyboard.press("End")  # keyboard tabs: End → the catalog
        assert pg.locator("#tab-catalog").get_attribute("aria-selected") == "true"
        assert "tab=catalog" in pg.url
        pg.wait_for_selector("#acc-table button[data-id='ascend-910b']")
        pg.click("#acc-table button[data-id='ascend-910b']")
        pg.wait_for_selector("#spec-table tr.conflict")
        if lang == "zh":
            assert "华为" in pg.locator("#acc-table").inner_text()
            assert "显存带宽" in pg.locator("#spec-table").inner_text()
        no_horizontal_scroll(pg, f"catalog {size} {lang}")
        axe_clean(pg, f"catalog {size} {lang}")
        pg.screenshot(path=str(shots / f"catalog-{size}-{lang}.png"), full_page=True)

        pg.click("#tab-tco")  # the rent-cost form and its answer, prices widened through the controls
        pg.select_option("#tco-gpu", "h100-sxm")
        pg.select_option("#tco-region", "any")
        pg.select_option("#tco-kinds", "all")
        pg.click("#tco-btn")
        pg.wait_for_selector("#tco-table tbody tr")
        assert ("海外" if lang == "zh" else "international") in pg.locator("#tco-table").inner_text()
        no_horizontal_scroll(pg, f"tco {size} {lang}")
        axe_clean(pg, f"tco {size} {lang}")
        ctx.close()
        assert errors == [], errors


def test_reasoning_warning_above_plans_in_page_language(page: Page, base_url: str) -> None:
    """The plan answer's own warnings (about the request, not one plan) show above the plans table in the page's
    language; the form leaves output empty (256 its placeholder) and sends it only when the user gives one, so a
    reasoning model planned at the default output length gets its warning (buyer check 2026-12-01)."""
    page.goto(base_url + "/?fresh=3#lang=zh&task=inference")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#output").input_value() == "" and page.locator("#output").get_attribute("placeholder") == "256"
    model = page.evaluate("""() => { const o = [...document.querySelectorAll('#model option')]
        .find(x => /deepseek-r1$/i.test(x.value)); document.querySelector('#model').value = o.value; return o.value; }""")
    page.fill("#users", "50")
    page.fill("#tpot", "0.0333")
    with page.expect_request(lambda r: "/api/plan" in r.url and r.method == "POST") as rq:
        page.click("#plan-btn")
    body = rq.value.post_data_json
    assert body["model"] == model and "output" not in body, body
    page.wait_for_selector("#plans-table tbody tr")
    warn = page.locator("#plan-warnings")
    assert warn.is_visible(), page.locator("#plan-error").inner_text()
    text = warn.inner_text()
    assert "推理（思考）模型" in text and "32,768" in text and "reasoning" not in text, text
    above = page.evaluate("""() => !!(document.querySelector('#plan-warnings').compareDocumentPosition(
        document.querySelector('#plans-table')) & Node.DOCUMENT_POSITION_FOLLOWING)""")
    assert above

    page.fill("#output", "4000")  # given: sent, and no warning
    with page.expect_request(lambda r: "/api/plan" in r.url and r.method == "POST") as rq:
        page.click("#plan-btn")
    assert rq.value.post_data_json["output"] == 4000
    page.wait_for_selector("#progress", state="hidden")
    page.wait_for_selector("#plans-table tbody tr")
    assert page.locator("#plan-warnings").is_hidden()


def test_language_toggle_rerenders_the_answers_sentences(page: Page, base_url: str) -> None:
    """The toggle switches the server's sentences too, not only the page's labels: the plan's warnings, reasons and
    why-not are asked for again in the new language (the same request), and a warning names the input by the page's
    form label in the page's language (“输出 token” / “Output tokens”), never the API's JSON field or the CLI's flag."""
    page.goto(base_url + "/?fresh=4#lang=zh&task=inference")
    page.wait_for_selector("body[data-ready='1']")
    page.evaluate("""() => { const o = [...document.querySelectorAll('#model option')]
        .find(x => /deepseek-r1-distill-qwen-7b$/i.test(x.value)); document.querySelector('#model').value = o.value; }""")
    page.fill("#users", "20")
    page.fill("#tpot", "0.05")
    page.click("#plan-btn")
    page.wait_for_selector("#progress", state="hidden")
    page.wait_for_selector("#plans-table tbody tr")
    zh = page.locator("#plan-warnings").inner_text()
    assert "推理（思考）模型" in zh and "“输出 token”" in zh and "`output`" not in zh and "--output" not in zh, zh
    reason_zh = page.locator("#plans-table tbody tr:first-child td.reason").inner_text()

    with page.expect_request(lambda r: "/api/plan" in r.url and r.method == "POST") as rq:
        page.click("#lang-toggle")
    assert "lang=en" in rq.value.url and "surface=web" in rq.value.url
    page.wait_for_function("() => document.querySelector('#plan-warnings').innerText.includes('reasoning model')")
    page.wait_for_selector("#progress", state="hidden")
    en = page.locator("#plan-warnings").inner_text()
    assert "“Output tokens”" in en and "推理" not in en and "`output`" not in en, en
    reason_en = page.locator("#plans-table tbody tr:first-child td.reason").inner_text()
    assert reason_en != reason_zh and not any("\u4e00" <= c <= "\u9fff" for c in reason_en), reason_en
    assert page.locator("#plan-btn").inner_text() == "Plan"

    page.click("#lang-toggle")  # and back
    page.wait_for_function("() => document.querySelector('#plan-warnings').innerText.includes('推理（思考）模型')")
    assert "“输出 token”" in page.locator("#plan-warnings").inner_text()
