"""Chromium for the browser tests: where it is, its flags, and the module-level skip (with how to install) when
it or Playwright is missing; and what the page tests share (pages, the offline guard, sizes, axe-core).
`conftest.py` puts this folder on sys.path (and holds the `browser` fixture), so tests `from browser_env import ...`."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("SUANLI_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


def require_browser() -> None:
    """Skip the calling test module (with the reason) when Chromium, Playwright or uvicorn is missing; `.ci/run`
    installs all three, so CI runs these tests."""
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)", allow_module_level=True)
    pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download needed)")
    pytest.importorskip("uvicorn", reason="pip install -e '.[service]'")


# ---- what the page tests share (one copy; they were repeated across test_web*.py) --------------------------

AXE_JS: str | None = None
try:
    import axe_playwright_python

    AXE_JS = (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")
except ImportError:  # the e2e extra brings it (as it brings Playwright); axe_clean fails, not skips, without it
    pass

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1440, "height": 900}}


def api_refusal(text: str) -> bool:
    """Chromium logs every 4xx answer; the tests provoke 422s on purpose (the page shows them)."""
    return text.startswith("Failed to load resource: the server responded with a status of 4")


def new_page(browser: Any, *, lang: str = "en", viewport: dict[str, int] | None = None, bypass_csp: bool = False,
             console: bool = False, timeout_ms: int = 60_000) -> Any:
    """A page in a new context (locale zh-CN or en-US) whose uncaught errors collect in `pg.errors`, and with
    `console` its console errors too, but for the API's refusals. bypass_csp: only so that a test can inject
    axe-core; the page itself runs under the CSP."""
    ctx = browser.new_context(locale="zh-CN" if lang == "zh" else "en-US", viewport=viewport, bypass_csp=bypass_csp)
    pg = ctx.new_page()
    pg.set_default_timeout(timeout_ms)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    if console:
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" and not api_refusal(m.text) else None)
    pg.errors = errors
    return pg


def keep_on_server(pg: Any, base_url: str) -> list[str]:
    """Abort every request that leaves `base_url` (the page is offline); the list returned collects their URLs."""
    outside: list[str] = []

    def guard(route: Any, request: Any) -> None:
        if request.url.startswith(base_url):
            route.continue_()
        else:
            outside.append(request.url)
            route.abort()

    pg.route("**/*", guard)
    return outside


def no_horizontal_scroll(pg: Any, where: str) -> None:
    wide = pg.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert wide[0] <= wide[1], f"{where}: page is {wide[0]} px wide in a {wide[1]} px viewport"


def axe_clean(pg: Any, where: str) -> None:
    """No serious or critical axe-core violation on the page as it is. Without axe-core the check fails: an
    accessibility check that did not run is not a passing one (`pip install -e '.[e2e]'` brings it with Playwright)."""
    assert AXE_JS is not None, f"{where}: axe-core missing: pip install -e '.[e2e]' (axe-playwright-python)"
    pg.add_script_tag(content=AXE_JS)
    result = pg.evaluate("axe.run(document, {resultTypes: ['violations']})")
    bad = [f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
           for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert bad == [], f"{where}: {bad}"


def page_checks(pg: Any, where: str) -> None:
    """What every page state is checked for: no horizontal scroll, axe clean."""
    no_horizontal_scroll(pg, where)
    axe_clean(pg, where)


def open_page(browser: Any, base_url: str, lang: str, hash_: str) -> Any:
    """A console-checked desktop page (1300 × 1000, axe injectable) at `#lang=<lang>&<hash_>`, once the page says it
    is ready (body[data-ready='1'])."""
    pg = new_page(browser, lang=lang, viewport={"width": 1300, "height": 1000}, bypass_csp=True, console=True)
    pg.goto(f"{base_url}/#lang={lang}&{hash_}")
    pg.wait_for_selector("body[data-ready='1']")
    return pg


def close_checked(pg: Any, where: str) -> None:
    """The end of a page test: `page_checks`, no page or console error, the context closed."""
    page_checks(pg, where)
    assert pg.errors == []
    pg.context.close()
