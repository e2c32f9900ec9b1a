"""Three page gaps (2026-12-03), each in English and Chinese, with app.js run in node against a stub DOM
(tests/page_js.py) on the API's own answers:

1. every price kind the catalog allows (`catalog.schema.OfferKind`) has a page label — the catalog's `price_kinds.*`,
   the words the CLI's header uses — so Prices = All no longer prints the raw key `kind_contract`;
2. compare's rows and migrate cost's sides show the API's `offer_warnings` (what an offer leaves out of its card), as
   plan's warnings and the CLI's '! ' lines do;
3. the Compare tab sends the serving targets POST /api/compare takes (TPOT, TTFT, concurrent users, prompt and
   output tokens per request, precision); empty is not sent, its placeholder says the API's default."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args

import pytest
from fastapi.testclient import TestClient
from page_js import run_app_js  # tests/page_js.py

from suanli.api.schemas import CompareBody
from suanli.catalog.schema import OfferKind
from suanli.i18n import messages
from suanli.plan.request import DEFAULT_INPUT_TOKENS, DEFAULT_OUTPUT_TOKENS
from suanli.plan.search import DEFAULT_SERVING_TPOT_S

WEB = Path(__file__).resolve().parents[3] / "src" / "suanli" / "web" / "static"
HTML = (WEB / "index.html").read_text(encoding="utf-8")
LANGS = ["en", "zh"]


def _msgs(client: TestClient, lang: str) -> dict[str, dict[str, str]]:
    return {x: client.get(f"/api/messages?lang={x}").json() for x in {lang, "en"}}


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


# ---- 1. every price kind has a page label --------------------------------------------------------------------------

_KINDS = r"""
lang = DATA.lang; await loadMessages(lang);
console.log(JSON.stringify({all: KINDS_ALL, labels: DATA.kinds.map(kindLabel), basis: basis("cn", KINDS_ALL)}));
"""


@pytest.mark.parametrize("lang", LANGS)
def test_every_price_kind_has_a_page_label(client: TestClient, tmp_path: Path, lang: str) -> None:
    kinds = list(get_args(OfferKind))
    out = run_app_js(tmp_path, _KINDS, {"lang": lang, "messages": _msgs(client, lang), "kinds": kinds})
    assert out["all"] == kinds  # the page's "All" asks for every kind the catalog allows
    cat = messages(lang)
    assert out["labels"] == [cat[f"price_kinds.{k}"] for k in kinds], out["labels"]
    assert "kind_" not in out["basis"], out["basis"]
    assert out["basis"].endswith(", ".join(cat[f"price_kinds.{k}"] for k in kinds)), out["basis"]
    assert ("contract" if lang == "en" else "合同价") in out["basis"], out["basis"]


# ---- 2. offer warnings on compare's rows and migrate's sides -------------------------------------------------------

_RENDER = r"""
lang = DATA.lang; await loadMessages(lang);
({renderCompare, renderMigrate})[DATA.call](DATA.answer);
console.log(JSON.stringify({html: $(DATA.read).innerHTML}));
"""


@pytest.mark.parametrize("lang", LANGS)
def test_compare_rows_show_offer_warnings(client: TestClient, tmp_path: Path, lang: str) -> None:
    body = {"model": "qwen2.5-7b", "devices": ["a100-80g", "910b", "h800"], "gpus": 1}
    rows = client.post(f"/api/compare?lang={lang}&surface=web", json=body).json()
    warned = {r["device"]: r["offer_warnings"] for r in rows}
    assert sum(bool(w) for w in warned.values()) >= 2, warned  # the A100 node and the generic 910B
    html = run_app_js(tmp_path, _RENDER, {"lang": lang, "messages": _msgs(client, lang), "call": "renderCompare",
                                          "answer": rows, "read": "#cmp-table"})["html"]
    note = re.search(r'<tr data-row="note">(.*?)</tr>', html)
    assert note, html
    cells = re.findall(r"<td[^>]*>(.*?)</td>", note.group(1))
    for r, cell in zip(rows, cells, strict=True):
        for w in r["offer_warnings"]:
            assert f"! {w}" in _text(cell).replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&"), (w, cell)
    assert ("does not say the card's form factor" if lang == "en" else "未写明卡的形态") in html


@pytest.mark.parametrize("lang", LANGS)
def test_migrate_sides_show_offer_warnings(client: TestClient, tmp_path: Path, lang: str) -> None:
    body = {"model": "qwen2.5-7b", "from_gpu": "a100-80g", "to_gpu": "910b"}
    answer = client.post(f"/api/migrate?lang={lang}&surface=web", json=body).json()
    sides = {k: d for k, d in answer["derived"].items() if isinstance(d, dict)}
    assert all(d["offer_warnings"] for d in sides.values()), sides  # both sides' offers leave something out
    html = run_app_js(tmp_path, _RENDER, {"lang": lang, "messages": _msgs(client, lang), "call": "renderMigrate",
                                          "answer": answer, "read": "#mig-table"})["html"]
    text = _text(html).replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&")
    for d in sides.values():
        for w in d["offer_warnings"]:
            assert f"! {w}" in text, (w, text)
    assert ("% of the assumed)" if lang == "en" else "为所设型号的") in text


# ---- 3. the Compare tab's serving targets --------------------------------------------------------------------------

_SUBMIT = r"""
lang = DATA.lang;
for (const [id, v] of Object.entries(DATA.form)) $("#" + id).value = v;
$("#cmp-devices").selectedOptions = DATA.devices.map(value => ({value}));
await $("#compare-form").listeners.submit({preventDefault() {}});
console.log(JSON.stringify({sent}));
"""
# the form as the page opens it: each compare input's value as the markup sets it
_UNTOUCHED = {m.group(1): m.group(2) or "" for m in re.finditer(
    r'<input id="(cmp-[\w-]+)"(?:[^>]*? value="([^"]*)")?[^>]*>', HTML)}
_FORM = {**_UNTOUCHED, "cmp-model": "qwen2.5-7b", "cmp-task": "inference", "cmp-region": "cn", "cmp-kinds": "listing",
         "cmp-period-unit": "hours", "cmp-precision": ""}
_DEVICES = ["a100-80g", "h800"]


def test_compare_serving_inputs_are_empty_with_the_api_default_as_placeholder() -> None:
    defaults = {"cmp-tpot": DEFAULT_SERVING_TPOT_S, "cmp-input": DEFAULT_INPUT_TOKENS,
                "cmp-output": DEFAULT_OUTPUT_TOKENS, "cmp-ttft": None, "cmp-users": None}
    for html_id, default in defaults.items():
        tag = re.search(rf'<input id="{html_id}"[^>]*>', HTML)
        assert tag and " value=" not in tag.group(0), html_id  # an input's value is sent: it would be "given"
        assert 'class="cmp-serve"' in HTML[HTML.rindex("<label", 0, tag.start()):tag.start()], html_id
        key = re.search(r'data-i18n-placeholder="(\w+)"', tag.group(0))
        assert key, tag.group(0)
        for lang in LANGS:
            said = messages(lang)["web." + key.group(1)]
            assert (f"{default:g}" in said) if default is not None else not re.search(r"\d", said), (lang, said)
    assert re.search(r'<select id="cmp-precision"[^>]*>\s*<option value="" data-i18n="auto">', HTML)


@pytest.mark.parametrize("lang", LANGS)
def test_compare_untouched_sends_no_serving_target(client: TestClient, tmp_path: Path, lang: str) -> None:
    [sent] = run_app_js(tmp_path, _SUBMIT, {"lang": lang, "form": _FORM, "devices": _DEVICES})["sent"]
    assert sent["url"] == f"/api/compare?lang={lang}&surface=web"
    assert not {"tpot_s", "ttft_s", "concurrent_users", "input", "output", "precision"} & set(sent["body"]), sent
    rows = client.post(sent["url"], json=sent["body"]).json()
    assert f"{DEFAULT_SERVING_TPOT_S * 1000:g}" in rows[0]["serving_rule"], rows[0]["serving_rule"]  # the default said


@pytest.mark.parametrize("lang", LANGS)
def test_compare_sends_the_serving_targets(client: TestClient, tmp_path: Path, lang: str) -> None:
    typed = {"cmp-users": "40", "cmp-rps": "3", "cmp-tpot": "0.05", "cmp-ttft": "1.5", "cmp-input": "2048",
             "cmp-output": "512", "cmp-precision": "int8"}
    [sent] = run_app_js(tmp_path, _SUBMIT, {"lang": lang, "form": {**_FORM, **typed}, "devices": _DEVICES})["sent"]
    body: dict[str, Any] = sent["body"]
    # users instead of a rate (as the plan form: the API derives the rate); no total tokens beside a rate
    assert {k: body[k] for k in ("concurrent_users", "tpot_s", "ttft_s", "input", "output", "precision")} == {
        "concurrent_users": 40, "tpot_s": 0.05, "ttft_s": 1.5, "input": 2048, "output": 512, "precision": "int8"}
    assert "requests_per_s" not in body and "tokens" not in body, body
    assert set(body) <= set(CompareBody.model_fields), set(body) - set(CompareBody.model_fields)
    r = client.post(sent["url"], json=body)
    assert r.status_code == 200, r.text
    row = r.json()[0]
    # the answer is for the targets typed, its sentences naming the inputs by the page's labels (field.input included)
    said = (["≤ 50 ms", "TTFT ≤ 1,500 ms", "2,048 prompt and 512 output tokens (“Prompt tokens”, “Output tokens”)"]
            if lang == "en" else ["≤ 50 毫秒", "TTFT ≤ 1,500 毫秒", "每个请求输入 2,048 个、输出 512 个 token（“输入 token”、“输出 token”）"])
    for s in said:
        assert s in row["serving_rule"], (s, row["serving_rule"])
    assert ("40 users" if lang == "en" else "40 个用户") in row["users_note"], row["users_note"]
    assert row["layout"]["precision"] == "int8"
    # training sends none of them, whatever the hidden inputs hold
    [sent] = run_app_js(tmp_path, _SUBMIT, {"lang": lang, "form": {**_FORM, **typed, "cmp-task": "lora"},
                                            "devices": _DEVICES})["sent"]
    assert not {"tpot_s", "ttft_s", "concurrent_users", "input", "output", "precision", "requests_per_s"} & set(
        sent["body"]), sent["body"]
