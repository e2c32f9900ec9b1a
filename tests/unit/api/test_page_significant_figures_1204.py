"""app.js's `fill` renders a Python `{x:,.4g}` spec as Python does: four significant figures, no padding zeros
(migrate cost's 'serves 5 requests/s' read 'serves 5.0000 requests/s' on the page after f0250a2)."""

from __future__ import annotations

from pathlib import Path

from page_js import run_app_js  # tests/page_js.py (tests/ on the path: tests/conftest.py)
from suanli.i18n import Message, messages, render


def test_the_page_writes_significant_figures_as_python_does(tmp_path: Path) -> None:
    tpl = messages("en")["mig.value.serves"]
    script = ("console.log(JSON.stringify([5, 100 / 14.8, 1234.5678].map("
              "r => fill(DATA.tpl, {rps: r, batch: 2}))));")
    got = run_app_js(tmp_path, script, {"tpl": tpl})
    want = [render(Message("mig.value.serves", rps=r, batch=2), "en") for r in (5, 100 / 14.8, 1234.5678)]
    assert got == want
    assert "serves 5 requests/s" in got[0] and "6.757" in got[1]
