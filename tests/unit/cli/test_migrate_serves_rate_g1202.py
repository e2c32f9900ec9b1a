"""`suanli migrate cost` with --concurrent-users: each device's row says the rate it serves as the task line
does, four significant figures (buyer review G, 2026-12-02: "serves 6.75676 requests/s" beside the task line's
"6.757 requests/s" for 100 users at TTFT 2 s and TPOT 50 ms)."""

from __future__ import annotations

import pytest

from suanli.i18n import Message, render


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_serves_rate_four_significant_figures(lang: str) -> None:
    rps = 100 / (2.0 + 256 * 0.05)  # Little's law: 6.7567... requests/s
    text = render(Message("mig.value.serves", {"rps": rps, "batch": 13}), lang)
    assert "6.757" in text and "6.7567" not in text, text
    assert "1,250" in render(Message("mig.value.serves", {"rps": 1250.0, "batch": 13}), lang)
