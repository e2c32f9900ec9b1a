"""The page gaps of 2026-12-03 in headless Chromium, English and Chinese (the unit tests with app.js in node:
tests/unit/api/test_page_gaps_1203.py): Compare with Prices = All names every price kind (no raw `kind_contract`),
sends the serving targets typed (TPOT, TTFT, concurrent users, request lengths, precision) and shows each row's
offer warnings; migrate cost shows each side's. No console error, axe clean."""

from __future__ import annotations

from typing import Any

import pytest

from browser_env import close_checked, open_page, require_browser

require_browser()


LANGS = ["en", "zh"]


@pytest.mark.parametrize("lang", LANGS)
def test_compare_serving_targets_kinds_and_offer_warnings(browser: Any, base_url: str, lang: str) -> None:
    pg = open_page(browser, base_url, lang, "tab=compare&cmp-model=Qwen/Qwen2.5-7B-Instruct&cmp-task=inference"
               "&cmp-devices=a100-80g,h800&cmp-kinds=all")
    sent: list[dict[str, Any]] = []
    pg.on("request", lambda r: sent.append(r.post_data_json) if "/api/compare" in r.url else None)
    assert pg.locator("#cmp-tpot").input_value() == ""
    assert "0.2" in (pg.locator("#cmp-tpot").get_attribute("placeholder") or "")
    pg.fill("#cmp-users", "40")
    pg.fill("#cmp-tpot", "0.05")
    pg.fill("#cmp-ttft", "1.5")
    pg.select_option("#cmp-precision", "int8")
    pg.click("#cmp-btn")
    pg.wait_for_selector("#cmp-table tr, #cmp-error:not([hidden])")
    assert pg.locator("#cmp-error").is_hidden(), pg.locator("#cmp-error").inner_text()
    body = sent[-1]
    assert (body["concurrent_users"], body["tpot_s"], body["ttft_s"], body["precision"]) == (40, 0.05, 1.5, "int8")
    assert "input" not in body and "output" not in body and "requests_per_s" not in body, body
    meta = pg.locator("#cmp-meta").inner_text()
    assert "kind_" not in meta and ("contract" if lang == "en" else "合同价") in meta, meta
    assert ("≤ 50 ms" if lang == "en" else "≤ 50 毫秒") in meta, meta
    api = pg.evaluate("() => state.compare")
    notes = pg.locator("#cmp-table tr[data-row='note'] td").all_inner_texts()
    assert any(r["offer_warnings"] for r in api), api
    for r, n in zip(api, notes, strict=True):
        for w in r["offer_warnings"]:
            assert f"! {w}" in n, (w, n)
    close_checked(pg, f"compare serving targets {lang}")


@pytest.mark.parametrize("lang", LANGS)
def test_migrate_sides_show_offer_warnings(browser: Any, base_url: str, lang: str) -> None:
    pg = open_page(browser, base_url, lang, "tab=migrate&mig-model=Qwen/Qwen2.5-7B-Instruct&mig-from=a100-80g&mig-to=ascend-910b")
    pg.click("#mig-btn")
    pg.wait_for_selector("#mig-table tbody tr, #mig-error:not([hidden])")
    assert pg.locator("#mig-error").is_hidden(), pg.locator("#mig-error").inner_text()
    derived = pg.evaluate("() => state.mig.derived")
    table = pg.locator("#mig-table").inner_text()
    warnings = [w for d in derived.values() if isinstance(d, dict) for w in d["offer_warnings"]]
    assert len(warnings) >= 2, derived
    for w in warnings:
        assert f"! {w}" in table, (w, table)
    close_checked(pg, f"migrate offer warnings {lang}")
