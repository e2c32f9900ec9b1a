"""/docs in headless Chromium (issue 13, item 4): Swagger UI 5 from the fastapi-offline wheel renders FastAPI's
OpenAPI 3.1 offline — the operations list appears, no request leaves the server, no console error (the page's
CSP forbids inline script, so this also proves the page needs none)."""

from __future__ import annotations

from browser_env import CHROMIUM, FLAGS, keep_on_server, require_browser

require_browser()

from playwright.sync_api import sync_playwright  # noqa: E402


def test_docs_lists_the_operations_offline(base_url: str) -> None:
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1300, "height": 1000})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        outside = keep_on_server(page, base_url)
        page.goto(f"{base_url}/docs")
        page.wait_for_selector(".opblock-summary-path", timeout=30_000)
        paths = page.locator(".opblock-summary-path").all_inner_texts()
        text = page.inner_text("body")
        browser.close()
    assert "/api/plan" in [p.replace("\u200b", "") for p in paths] and len(paths) >= 20
    assert "Unable to render" not in text and "valid version field" not in text
    assert not outside, outside
    assert not errors, errors
