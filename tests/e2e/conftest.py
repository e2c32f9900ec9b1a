"""Shared by the browser tests: suanli's app served by uvicorn on a free loopback port for a module's tests
(Chromium itself: `browser_env.py`)."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # `from browser_env import ...` in the browser tests


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """suanli's API and page on a fresh SQLite database, served on 127.0.0.1 for the module's tests."""
    import uvicorn

    from suanli.api import Settings, create_app

    db = tmp_path_factory.mktemp("e2e") / "suanli.db"
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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium for the module's tests (the modules skip first when it is missing: browser_env)."""
    from playwright.sync_api import sync_playwright

    from browser_env import CHROMIUM, FLAGS

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()
