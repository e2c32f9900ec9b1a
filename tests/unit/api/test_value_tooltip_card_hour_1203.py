"""Task Q.1 (2026-12-03): the value chart's bar tooltip writes the price it divides by in compare's and the CLI's
words (`cli.card_hour_by`: '2.57 (by month)', '2.57（按月）') where a longer billing unit priced the card (the API
row's `card_hour_basis` 'full_use'), the bare price where an hourly offer did, then the unit ('¥ per card-hour',
'元/卡时'); before, '¥2.57/h (by month, at full use)' in ASCII brackets in zh too. app.js run in node on GET
/api/value's answer (tests/page_js.py), English and Chinese."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from page_js import run_app_js  # tests/page_js.py

from suanli.i18n import Message, messages, render

_VALUE = r"""
lang = DATA.lang; await loadMessages(lang);
renderValue(DATA.answer);
console.log(JSON.stringify({html: $("#chart-value").innerHTML}));
"""


def _unescape(s: str) -> str:
    return s.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&#39;", "'")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_value_tooltip_names_the_billing_unit_as_compare_does(client: TestClient, tmp_path: Path, lang: str) -> None:
    rows = client.get(f"/api/value?lang={lang}&offer_kinds=listing&offer_kinds=index").json()[:20]
    assert {r["card_hour_basis"] for r in rows} == {"hourly", "full_use"}, rows  # both kinds of bar are shown
    msgs = {x: client.get(f"/api/messages?lang={x}").json() for x in {lang, "en"}}
    html = run_app_js(tmp_path, _VALUE, {"lang": lang, "messages": msgs, "answer": rows})["html"]
    titles = [_unescape(x) for x in re.findall(r"<rect [^>]*><title>(.*?)</title></rect>", html)]
    assert len(titles) == len(rows), html
    unit = messages(lang)["web.cny_h"]
    for title, r in zip(titles, rows):
        price = (render(Message("cli.card_hour_by", {"price": r["cny_per_card_hour"],
                                                      "billing_unit": r["card_hour_billing_unit"]}), lang)
                 if r["card_hour_basis"] == "full_use" else None)
        head, _, tail = title.partition(" TFLOPS ÷ ")
        assert tail.endswith(" " + unit), title
        said = tail.removesuffix(" " + unit)
        if price is not None:
            assert said == price, (r, title)
            assert ("（按" if lang == "zh" else " (by ") in said, said  # the unit named, in the language's brackets
        else:
            assert float(said.replace(",", "")) == pytest.approx(r["cny_per_card_hour"], abs=0.005), (r, title)
        assert "/h (" not in title and "满负荷" not in title and "full use" not in title, title
