"""/docs in headless Chromium (issue 13, item 4): Swagger UI 5 from the fastapi-offline wheel renders FastAPI's
OpenAPI 3.1 offline — the operations list appears, no request leaves the server, no console error (the page's
CSP forbids inline script, so this also proves the page needs none)."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("SUANLI_CHROMIUM", "/usr/bin/chromium")
if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download needed)")
uvicorn = pytest.importorskip("uvicorn")

from playwright.sync_api import sync_playwright  # noqa: E402

from suanli.api import Settings, create_app  # noqa: E402

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("docs") / "suanli.db"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = uvicorn.Server(uvicorn.Config(create_app(Settings(database_url=f"sqlite:///{db}")),
                                           host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=server.run, daemon=True)
    th.start()
    deadline = time.time() + 30
    while not server.started and time.time() < deadline:
        time.sleep(0.05)
    assert server.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    th.join(10)


def test_docs_lists_the_operations_offline(base_url: str) -> None:
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1300, "height": 1000})
        outside: list[str] = []
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))

        def guard(route, request) -> None:  # type: ignore[no-untyped-def]
            if request.url.startswith(base_url):
                route.continue_()
            else:
                outside.append(request.url)
                route.abort()

        page.route("**/*", guard)
        page.goto(f"{base_url}/docs")
        page.wait_for_selector(".opblock-summary-path", timeout=30_000)
        paths = page.locator(".opblock-summary-path").all_inner_texts()
        text = page.inner_text("body")
        browser.close()
    assert "/api/plan" in [p.replace("\u200b", "") for p in paths] and len(paths) >= 20
    assert "Unable to render" not in text and "valid version field" not in text
    assert not outside, outside
    assert not errors, errors
