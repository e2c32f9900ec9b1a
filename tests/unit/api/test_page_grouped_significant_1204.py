"""A `{x:,.4g}` spec writes grouped digits, never an exponent, on the CLI and the page alike: Python's own format
wrote 1.235e+04 for values from 10,000 up (migrate's 'serves N requests/s' of a very large fleet) while the page's
formatter (app.js `cell`, Intl maximumSignificantDigits) wrote 12,350 (buyer review, helper C 2026-12-02)."""

from __future__ import annotations

from pathlib import Path

import pytest

from page_js import run_app_js  # tests/page_js.py (tests/ on the path: tests/conftest.py)
from suanli.i18n import Message, messages, render

VALUES = [5, 100 / 14.8, 1234.5678, 9999.5, 12_345.6, 12_345, 99_995, 123_456_789.0, 1e15, 9.87654321e15, -12_345.6]


@pytest.mark.parametrize(("value", "want"), [(12_345.6, "12,350"), (12_345, "12,350"), (99_995, "100,000"),
                                             (1e15, "1,000,000,000,000,000"), (-12_345.6, "-12,350"),
                                             (1234.5678, "1,235"), (9999.5, "10,000"), (5, "5"), (6.7567, "6.757")])
def test_grouped_significant_figures_have_no_exponent(value: float, want: str) -> None:
    for lang in ("en", "zh"):
        out = render(Message("mig.value.serves", rps=value, batch=2), lang)
        assert f" {want} " in out and "e+" not in out, (lang, out)


def test_three_figures_too() -> None:  # {ms:,.3g}: the same rule for every grouped significant-figure spec
    out = render(Message("relax.tpot", ms=12_345.6, layout="tp8", device="h200", field="tpot_s", value=20), "en")
    assert "best reachable is 12,300 ms" in out, out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_writes_what_the_cli_writes(tmp_path: Path, lang: str) -> None:
    tpl = messages(lang)["mig.value.serves"]
    script = (f"lang = {lang!r}; console.log(JSON.stringify(DATA.values.map("
              "r => fill(DATA.tpl, {rps: r, batch: 2}))));")
    got = run_app_js(tmp_path, script, {"tpl": tpl, "values": VALUES})
    assert got == [render(Message("mig.value.serves", rps=r, batch=2), lang) for r in VALUES]
