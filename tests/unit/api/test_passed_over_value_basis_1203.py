"""Buyer review 2026-12-03, task N, in the API and on the page (app.js run in node on the API's answers,
tests/page_js.py), English and Chinese:

1. POST /api/plan: the 910B plan for 500 qwen3-32b users at TPOT 33 ms says which cheaper layout it passed over and
   why (the front held 24 × 910B at ¥47,500; the why-not table has no 910B row), and the serving chart's hover on
   that point shows that line, not a bare 'Why not …';
2. GET /api/value: each bar's price basis (`card_hour_basis`: hourly, or a longer billing unit at full use) in the
   answer, beside the figure on the chart, and the help saying the rule exactly."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from page_js import run_app_js  # tests/page_js.py

from suanli.i18n import messages

LANGS = ["en", "zh"]
ASK = {"model": "qwen3-32b", "task": "inference", "concurrent_users": 500, "tpot_s": 0.033, "budget_cny": 100000,
       "domestic_only": True}

_CHART = r"""
lang = DATA.lang; await loadMessages(lang);
servingChart($("#chart-pareto"), DATA.answer);
console.log(JSON.stringify({html: $("#chart-pareto").innerHTML}));
"""
_VALUE = r"""
lang = DATA.lang; await loadMessages(lang);
renderValue(DATA.answer);
console.log(JSON.stringify({html: $("#chart-value").innerHTML}));
"""


def _msgs(client: TestClient, lang: str) -> dict[str, dict[str, str]]:
    return {x: client.get(f"/api/messages?lang={x}").json() for x in {lang, "en"}}


def _unescape(s: str) -> str:
    return s.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&#39;", "'")


@pytest.mark.parametrize("lang", LANGS)
def test_plan_says_the_layout_it_passed_over_and_the_chart_points_at_it(client: TestClient, tmp_path: Path,
                                                                         lang: str) -> None:
    answer = client.post(f"/api/plan?lang={lang}&surface=web", json=ASK).json()
    p = next(x for x in answer["plans"] if x["device"] == "ascend-910b")
    i = next(n for n, j in enumerate(p["warnings_i18n"]) if j["id"] == "plan.warn.cheaper_passed_over")
    said = p["warnings"][i]
    front = next(f for f in answer["pareto"] if f["device"] == "ascend-910b" and f["gpus"] < p["gpus"])
    assert p["warnings_i18n"][i]["params"]["cards"] == front["gpus"]
    assert f"{front['cost_cny']:,.0f}" in said, said
    assert ("passed over" if lang == "en" else "未被采用") in said
    assert not any(w["device"] == "ascend-910b" for w in answer["why_not"])  # the why-not table has no row for it
    html = run_app_js(tmp_path, _CHART, {"lang": lang, "messages": _msgs(client, lang), "answer": answer})["html"]
    titles = [_unescape(t) for t in re.findall(r'class="front set-aside"[^>]*><title>(.*?)</title>', html)]
    hover = next(t for t in titles if t.startswith(f"{front['gpus']}× "))
    assert said in hover and f"#{p['rank']}" in hover, hover


@pytest.mark.parametrize("lang", LANGS)
def test_value_bars_say_their_price_basis(client: TestClient, tmp_path: Path, lang: str) -> None:
    rows = client.get(f"/api/value?lang={lang}&offer_kinds=listing&offer_kinds=index").json()
    assert {r["card_hour_basis"] for r in rows} == {"hourly", "full_use"}, rows  # the bars mix bases: each says which
    for r in rows:
        assert r["card_hour_basis"] == ("hourly" if r["card_hour_billing_unit"] == "hour" else "full_use"), r
    html = run_app_js(tmp_path, _VALUE, {"lang": lang, "messages": _msgs(client, lang), "answer": rows})["html"]
    cat = messages(lang)
    figures = re.findall(r'<text x="[^"]+" y="[^"]+">([^<]*) <tspan class="muted">([^<]*)</tspan></text>', html)
    assert len(figures) == min(len(rows), 20), html
    for (fig, basis), r in zip(figures, rows):
        want = (cat["web.value_basis_hourly"] if r["card_hour_basis"] == "hourly"
                else cat["web.value_basis_full_use"].replace("{billing_unit}", cat[f"billing_unit.{r['card_hour_billing_unit']}"]))
        assert _unescape(basis) == want, (r, basis)


def test_value_help_says_the_rule() -> None:
    en, zh = messages("en")["web.value_help"], messages("zh")["web.value_help"]
    assert "hourly offer" in en and "full use" in en and "730 h" in en and "source articles' (seeds')" in en, en
    assert "按小时" in zh and "满负荷" in zh and "730" in zh and "参考文章" in zh, zh
    assert "最低单卡时租价" not in zh  # the old help: 'the cheapest hourly rent', which monthly bars are not
    assert not re.search(r"[A-Za-z]{2,}", zh.replace("TFLOPS", "")), zh  # zh: no English words
