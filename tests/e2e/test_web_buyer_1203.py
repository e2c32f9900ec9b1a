"""What a buyer hit on the page on 2026-12-02 (headless Chromium, English and Chinese):
1. Rent cost (TCO): the first click at the form's defaults was refused: its default device (the first priced one,
   NVIDIA A100 SXM4 40GB) has no Chinese listing, the defaults' prices; the default is now one they hold.
2. Compare: a device without a price left its ¥ per card-hour and TFLOPS-per-¥ cells empty while the other price
   rows said "—"; every empty cell now says "—".
No console error, axe clean."""

from __future__ import annotations

from typing import Any

import pytest

from browser_env import close_checked, open_page, require_browser

require_browser()

LANGS = ["en", "zh"]


def _rows(pg: Any, button: str, path: str, table: str) -> Any:
    """Click `button`: the rows of the POST to `path` it sent (answered 200), once the page has drawn `table`."""
    with pg.expect_response(lambda r: r.request.method == "POST" and r.url.split("?")[0].endswith(path)) as resp:
        pg.click(button)
    assert resp.value.ok, resp.value.text()
    pg.wait_for_selector(f"{table} tr")
    return resp.value.json()


@pytest.mark.parametrize("lang", LANGS)
def test_rent_cost_at_its_defaults_prices_the_default_device(browser: Any, base_url: str, lang: str) -> None:
    pg = open_page(browser, base_url, lang, "tab=tco")
    rows = _rows(pg, "#tco-btn", "/api/tco", "#tco-table")
    assert rows and all(r["region"] == "cn" and r["kind"] == "listing" for r in rows), rows
    assert pg.locator("#tco-error").is_hidden()
    assert rows[0]["offer"] in pg.locator("#tco-table").inner_text()
    close_checked(pg, f"tco defaults {lang}")


@pytest.mark.parametrize("lang", LANGS)
def test_compare_says_dash_where_a_device_has_no_price(browser: Any, base_url: str, lang: str) -> None:
    # the H100: no Chinese listing (the H20 was this example until offers-7.yaml listed it)
    pg = open_page(browser, base_url, lang, "tab=compare&cmp-task=lora&cmp-devices=rtx-4090,h100-sxm")
    rows = _rows(pg, "#cmp-btn", "/api/compare", "#cmp-table")
    none = next(i for i, r in enumerate(rows) if r["device"] == "h100-sxm")
    assert rows[none]["cny_per_card_hour"] is None and rows[none]["effective_tflops_per_cny_hour"] is None, rows[none]
    for key in ("cny_h", "compare.col.tflops_per_cny_hour"):
        cells = pg.locator(f"#cmp-table tr[data-row='{key}'] td").all_inner_texts()
        assert cells[none] == "—" and cells[1 - none] not in ("", "—"), (key, cells)
    # no cell of the table is left empty
    assert "" not in [c.strip() for c in pg.locator("#cmp-table td").all_inner_texts()]
    close_checked(pg, f"compare no price {lang}")
