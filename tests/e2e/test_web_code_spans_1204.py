"""The catalog's `code` spans on the page as <code> (headless Chromium, English and Chinese): the page showed the
backticks literally ("as `suanli migrate cost` answers", "昇腾（`torch_npu`）"). The spans are made from text nodes, so
a span's text is never parsed as HTML; SVG tooltips and select options keep their text (buyer review, helper C
2026-12-02)."""

from __future__ import annotations

from typing import Any

import pytest

from browser_env import close_checked, open_page, require_browser

require_browser()

# the migrate tab's help line: a catalog text with code spans (web.mig_help), set by applyLang's textContent
WANT = {"en": ["suanli migrate cost", "suanli migrate check"], "zh": ["torch_npu"]}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_code_spans_are_code_elements(browser: Any, base_url: str, lang: str) -> None:
    pg = open_page(browser, base_url, lang, "tab=migrate")
    help_ = pg.locator("p[data-i18n='mig_help']")
    pg.wait_for_function("() => document.querySelector(\"p[data-i18n='mig_help'] code\")")
    assert "`" not in help_.inner_text(), help_.inner_text()
    assert help_.locator("code").all_inner_texts() == WANT[lang]
    # text the page writes after start-up (as a server sentence in an error line): split the same way, never as HTML
    got = pg.evaluate("""async () => {
      const el = document.querySelector("#mig-error"); el.hidden = false;
      el.textContent = "run `<b>x</b>` then `a & b`, one ` alone";
      await new Promise(r => setTimeout(r, 50));
      return [el.innerHTML, [...el.querySelectorAll("code")].map(c => c.textContent), el.querySelectorAll("b").length];
    }""")
    assert got == ["run <code>&lt;b&gt;x&lt;/b&gt;</code> then <code>a &amp; b</code>, one ` alone",
                   ["<b>x</b>", "a & b"], 0], got
    pg.evaluate("() => { document.querySelector('#mig-error').hidden = true; }")
    close_checked(pg, f"code spans {lang}")
