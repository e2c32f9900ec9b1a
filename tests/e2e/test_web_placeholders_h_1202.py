"""Buyer defect (page review, 2026-12-02, task H 4): the Migrate tab's English placeholders were cut off ("empty:
¥100,000 assu", "flash-attn, bitsandb"). Every placeholder of every form now shows whole in its field, in English
and Chinese, on a desktop and on a phone: the text's width (the field's own font, canvas measureText) fits the
field's content box (the two shortened: "¥100,000 assumed", "flash-attn, gptq, …"), and a Chinese placeholder
shows no raw backticks (`flash-attn`: the catalog's code marks, dropped in a placeholder)."""

from __future__ import annotations

from typing import Any

import pytest

from browser_env import SIZES, new_page, require_browser

require_browser()

# each visible field with a placeholder: its id, the placeholder, its text width, the room for it, its right edge and
# the window's width (px)
_MEASURE = r"""() => {
  const c = document.createElement("canvas").getContext("2d");
  return [...document.querySelectorAll("form input[placeholder]")].filter(e => e.offsetParent !== null).map(e => {
    const s = getComputedStyle(e); c.font = s.font;
    const room = e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
    return [e.id, e.placeholder, c.measureText(e.placeholder).width, room, e.getBoundingClientRect().right, innerWidth];
  });
}"""


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_migrate_placeholders_show_whole(browser: Any, base_url: str, lang: str, size: str) -> None:
    pg = new_page(browser, lang=lang, viewport=SIZES[size])
    pg.goto(f"{base_url}/#lang={lang}&tab=migrate")
    pg.wait_for_selector("body[data-ready='1']")
    fields = pg.evaluate(_MEASURE)
    mig = [f for f in fields if f[0].startswith("mig-")]
    assert any(f[0] == "mig-spend" for f in mig), fields  # the reviewed field is measured
    cut = [f for f in mig if f[2] > f[3] + 0.5]
    assert not cut, cut
    assert not [f for f in fields if "`" in f[1]], fields  # a zh placeholder's code marks are not shown raw
    wide = [f for f in mig if f[4] > f[5]]  # a wider field stays on the screen (a phone too)
    assert not wide, wide
    assert pg.errors == []
    pg.context.close()
