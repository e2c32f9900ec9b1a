"""The page's defects from the buyer review of 2026-12-03 (task M), each in English and Chinese, with app.js run in
node against a stub DOM (tests/page_js.py) on the API's own answers (tests/e2e/test_web_review_m_1203.py drives the
language toggle in Chromium):

1. the Migrate tab's default old device has a Chinese listing, so its first click with the defaults answers;
2. migrate shows what the one-off adds up (labour, test instance, parallel run) and the new side's bill, as the CLI;
3. the device lists are rebuilt in the page's language;
4. the training layout's recompute in the answer's language (全量重计算, not "full"), as the CLI's;
5. an error that points to an input the page has not (saving, card_price) says so, as rent_price's does;
6. an axis of counts (replicas) ticks at whole numbers only;
7. compare names a row's framework once;
8. compare's TFLOPS-per-yuan-hour and month-billed price in the CLI's words (one id each);
9. rent-vs-buy's labels end in the language's colon."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from page_js import run_app_js  # tests/page_js.py

from suanli.i18n import Message, messages, render

LANGS = ["en", "zh"]


def _msgs(client: TestClient, lang: str) -> dict[str, dict[str, str]]:
    return {x: client.get(f"/api/messages?lang={x}").json() for x in {lang, "en"}}


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html).replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&")


_RENDER = r"""
lang = DATA.lang; await loadMessages(lang);
({renderCompare, renderMigrate, renderRvb})[DATA.call](DATA.answer);
console.log(JSON.stringify({html: $(DATA.read).innerHTML, notes: $(DATA.notes || DATA.read).innerHTML}));
"""


# ---- 1. the Migrate tab's defaults answer --------------------------------------------------------------------------

_DEFAULTS = r"""
console.log(JSON.stringify({from: $("#mig-from").value, to: $("#mig-to").value}));
"""


@pytest.mark.parametrize("lang", LANGS)
def test_migrate_defaults_answer_on_the_first_click(client: TestClient, tmp_path: Path, lang: str) -> None:
    dev = run_app_js(tmp_path, _DEFAULTS)
    assert dev == {"from": "h800", "to": "ascend-910b"}, dev
    body = {"model": "Qwen/Qwen2.5-7B-Instruct", "task": "lora", "from_gpu": dev["from"], "to_gpu": dev["to"],
            "region": "cn", "offer_kinds": ["listing"]}  # the form untouched: cn listings
    r = client.post(f"/api/migrate?lang={lang}&surface=web", json=body)
    assert r.status_code == 200, r.json()


# ---- 2 and 4. migrate's one-off items, the new side's bill, the recompute in words ----------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_migrate_shows_one_off_items_new_bill_and_recompute_words(client: TestClient, tmp_path: Path,
                                                                   lang: str) -> None:
    body = {"model": "Qwen/Qwen2.5-7B-Instruct", "task": "lora", "from_gpu": "h800", "to_gpu": "ascend-910b"}
    answer = client.post(f"/api/migrate?lang={lang}&surface=web", json=body).json()
    items = answer["one_off_items"]
    assert [i["item"] for i in items] == ["labour", "test_instance", "parallel_run"], items
    out = run_app_js(tmp_path, _RENDER, {"lang": lang, "messages": _msgs(client, lang), "call": "renderMigrate",
                                         "answer": answer, "read": "#mig-table", "notes": "#mig-notes"})
    html, text, cat = out["html"], _text(out["html"]), messages(lang)
    sep = "：" if lang == "zh" else ": "  # the listings used: "device：offer …" in the language's colon (web.label_sep)
    assert answer["offers_used"] and _text(out["notes"]).count(sep) >= len(answer["offers_used"]), out["notes"]
    if lang == "zh":
        assert not re.search(r"[\u4e00-\u9fff\w]: ", _text(out["notes"])), out["notes"]
    for i in items:
        assert cat[f"mig.item.one_off_item.{i['item']}"].strip() in text and i["note"] in text, (i, text)
    assert ("assumed" if lang == "en" else "假设") in items[2]["note"]  # the parallel run's length, said as assumed
    bills = [d["monthly_rent"]["note"] for d in answer["derived"].values() if isinstance(d, dict) and d.get("monthly_rent")]
    assert bills and all(b in text for b in bills), (bills, text)
    assert cat["mig.item.new_bill"] in text
    lays = [d["workload"] for d in answer["derived"].values() if isinstance(d, dict) and (d.get("workload") or {}).get("layout_rule")]
    assert lays, answer["derived"]
    for lay in lays:
        assert cat[f"recompute.{lay['recompute']}"] in text
    if lang == "zh":
        assert not re.search(r"微批 \d+，(none|full|selective)", text), text
    assert f"<th>{cat['web.col.item']}</th>" in html.replace(' scope="col"', "")  # Item | Value, one capitalisation


# ---- 3. the device lists in the page's language ---------------------------------------------------------------------

_LISTS = r"""
lang = DATA.lang; await loadMessages("zh"); await loadMessages("en");
knowNames(DATA.accs); state.devices = DATA.accs; state.priced = new Set(["ascend-910b"]);
applyLang();
const before = $("#mig-to").innerHTML;
lang = lang === "zh" ? "en" : "zh"; applyLang();
console.log(JSON.stringify({before, after: $("#mig-to").innerHTML, cmp: $("#cmp-devices").innerHTML, tco: $("#tco-gpu").innerHTML}));
"""


@pytest.mark.parametrize("lang", LANGS)
def test_language_toggle_rebuilds_device_lists(client: TestClient, tmp_path: Path, lang: str) -> None:
    accs = [a for a in client.get("/api/accelerators").json() if a["id"] in ("ascend-910b", "h800")]
    zh_name = next(a["name_zh"] for a in accs if a["id"] == "ascend-910b")
    en_name = next(a["name"] for a in accs if a["id"] == "ascend-910b")
    assert zh_name != en_name
    out = run_app_js(tmp_path, _LISTS, {"lang": lang, "accs": accs,
                                        "messages": {x: client.get(f"/api/messages?lang={x}").json() for x in LANGS}})
    first, second = (zh_name, en_name) if lang == "zh" else (en_name, zh_name)
    assert first in out["before"] and second not in out["before"], out
    assert second in out["after"] and first not in out["after"], out
    assert second in out["cmp"] and second in out["tco"] and "h800" not in out["tco"], out  # TCO: priced devices only


# ---- 5. errors that point to an input the page has not ---------------------------------------------------------------

_NO_FIELD = [
    ("/api/rent-vs-buy", {"gpu": "mtt-s4000", "cards": 8}, "card_price"),
    ("/api/migrate", {"model": "Qwen/Qwen2.5-72B-Instruct", "task": "lora", "from_gpu": "rtx-4090",
                      "to_gpu": "ascend-910b"}, "saving"),
    ("/api/migrate", {"model": "Qwen/Qwen2.5-7B-Instruct", "task": "lora", "from_gpu": "h100-sxm",
                      "to_gpu": "ascend-910b"}, "saving"),
]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("path", "body", "field"), _NO_FIELD)
def test_errors_say_the_page_has_no_field_for_it(client: TestClient, lang: str, path: str, body: dict[str, Any],
                                                 field: str) -> None:
    web = client.post(f"{path}?lang={lang}&surface=web", json=body).json()
    said = web["error"]
    assert web["field"] == field
    assert ("the page has no field for it" if lang == "en" else "页面没有这一栏") in said, said
    assert (f"takes it as {field}" if lang == "en" else f"`{path.replace('/api', 'POST /api')}` 的 `{field}` 字段") in said, said
    for told in (f"give {field}", f"pass {field}", f"用 {field} ", f"用 {field}"):  # never "fill in saving"
        assert told not in said, said
    api = client.post(f"{path}?lang={lang}", json=body).json()["error"]  # an API client: its own field, as before
    assert "has no field for it" not in api and "页面没有这一栏" not in api and f"`{field}`" in api, api


# ---- 6. whole-number ticks on an axis of counts ----------------------------------------------------------------------

_TICKS = r"""
console.log(JSON.stringify({whole: linearTicks(4.4, 6.6, 5, true), frac: linearTicks(4.4, 6.6, 5),
  one: scale([5, 5], 0, 100, false, true).ticks(), wide: scale([1, 40], 0, 100, false, true).ticks()}));
"""


def test_count_axis_ticks_are_whole_numbers(tmp_path: Path) -> None:
    out = run_app_js(tmp_path, _TICKS)
    assert out["whole"] == [5, 6], out
    assert any(v != int(v) for v in out["frac"]), out  # a TPOT axis keeps its fine steps
    for k in ("one", "wide"):
        assert out[k] and all(v == int(v) for v in out[k]) and len(set(out[k])) == len(out[k]), out


# ---- 7 and 8. compare: the framework once; the CLI's words for two cells ---------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_compare_framework_once_and_the_clis_words(client: TestClient, tmp_path: Path, lang: str) -> None:
    body = {"model": "qwen2.5-7b", "task": "lora", "devices": ["ascend-910b", "h800"], "gpus": 8}
    rows = client.post(f"/api/compare?lang={lang}&surface=web", json=body).json()
    html = run_app_js(tmp_path, _RENDER, {"lang": lang, "messages": _msgs(client, lang), "call": "renderCompare",
                                          "answer": rows, "read": "#cmp-table"})["html"]
    layout = re.search(r'<tr data-row="layout">(.*?)</tr>', html)
    assert layout, html
    for r, cell in zip(rows, re.findall(r"<td[^>]*>(.*?)</td>", layout.group(1)), strict=True):
        fw = (r.get("layout") or {}).get("framework") or (r.get("layout") or {}).get("engine")
        if fw:
            assert _text(cell).count(fw) == 1, (fw, cell)
    cat = messages(lang)
    assert f">{cat['compare.col.tflops_per_cny_hour']}<" in html
    assert cat["compare.col.tflops_per_cny_hour"] == ("eff. TFLOPS per ¥/h" if lang == "en" else "每元/时有效 TFLOPS")
    monthly = [r for r in rows if r.get("card_hour_billing_unit") not in (None, "hour") and r.get("cny_per_card_hour")]
    assert monthly, rows  # the 910B's listing is billed by the month
    for r in monthly:
        cli = render(Message("cli.card_hour_by", price=r["cny_per_card_hour"], billing_unit=r["card_hour_billing_unit"]),
                     lang)
        assert cli in _text(html), (cli, html)


# ---- 9. rent-vs-buy's labels and the language's colon ----------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_rent_vs_buy_labels_end_in_the_languages_colon(client: TestClient, tmp_path: Path, lang: str) -> None:
    answer = client.post(f"/api/rent-vs-buy?lang={lang}&surface=web", json={"gpu": "ascend-910b", "cards": 8}).json()
    notes = run_app_js(tmp_path, _RENDER, {"lang": lang, "messages": _msgs(client, lang), "call": "renderRvb",
                                           "answer": answer, "read": "#rvb-table", "notes": "#rvb-notes"})["notes"]
    cat = messages(lang)
    for k in ("web.rvb_break_even", "web.rvb_offer"):
        assert f"<strong>{cat[k]}{'：' if lang == 'zh' else ': '}</strong>" in notes, notes
    if lang == "zh":
        assert not re.search(r"[\u4e00-\u9fff]: ", _text(notes)), notes


# ---- 9. readable numbers in refusals ---------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_refusals_write_readable_numbers(client: TestClient, lang: str) -> None:
    users = client.post(f"/api/plan?lang={lang}&surface=web", json={
        "model": "Qwen/Qwen3-32B", "task": "inference", "concurrent_users": 9_000_000, "tpot_s": 0.03}).json()["error"]
    assert "1,000,000" in users and "e+0" not in users, users  # not 1.184e+06 … 1e+06
    budget = client.post(f"/api/plan?lang={lang}&surface=web", json={
        "model": "Qwen/Qwen3-32B", "task": "inference", "requests_per_s": 5, "budget_cny": 1e300}).json()["error"]
    assert "10000000000000.0" not in budget, budget  # English: pydantic's own line, its limit an integer
    if lang == "zh":  # the catalog's sentence (error.v.le), its limit written readably ({le:,~})
        assert "必须小于等于 10,000,000,000,000" in budget, budget
