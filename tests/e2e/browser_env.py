"""Chromium for the browser tests: where it is, its flags, and the module-level skip (with how to install) when
it or Playwright is missing. `conftest.py` puts this folder on sys.path, so tests `from browser_env import ...`."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

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
