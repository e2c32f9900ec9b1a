"""Page fixes a buyer would notice (2026-12-02), each in English and Chinese, with app.js run in node against a stub
DOM (tests/page_js.py) on the API's own answers:

1. a range whose two ends print alike prints once — "0 weeks", "¥245,000", "pays back in 0.0 months" — not "0–0
   weeks" (migrate cost onto CUDA): the page's `span` for every range it writes and every catalog range it fills,
   `i18n.render` (`span_text`) for the sentences the API and the CLI write;
2. the plan table shows the calendar hours (migration weeks first) beside the hours where they ranked the plans, as
   `suanli plan`'s table does (`views.plans.shows_calendar`, the API's `show_calendar_hours`);
3. the device detail's offers mark a stale price in its date cell with the note under the table, as `suanli offers`;
4. rent-vs-buy's utilization and years are empty with the assumed default as placeholder: untouched, they are not
   sent, so the answer says them assumed, not "as given"."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from cli_run import run_cli
from fastapi.testclient import TestClient
from page_js import run_app_js  # tests/page_js.py

from suanli.api.routers.cost import RentVsBuyBody
from suanli.catalog.offers import DEFAULT_STALE_MONTHS
from suanli.i18n import Message, messages, render

WEB = Path(__file__).resolve().parents[3] / "src" / "suanli" / "web" / "static"
HTML = (WEB / "index.html").read_text(encoding="utf-8")
TODAY = "2026-12-01"  # the FT survey's A100 row (2024-09) is stale on it, the ctyun L20 rows (2026-10-10) fresh
LANGS = ["en", "zh"]

# the page in DATA.lang with the catalogs loaded; DATA.call names a renderer, DATA.args its arguments; the elements
# it wrote are printed, with the page's fill of DATA.fills ([template id, params] …)
_RENDER = r"""
lang = DATA.lang; await loadMessages(lang);
Object.assign(state, DATA.state || {});
if (DATA.call) ({renderMigrate, renderPlan, renderDetail, renderRvb})[DATA.call](...DATA.args);
console.log(JSON.stringify({
  html: Object.fromEntries(DATA.read.map(s => [s, $(s).innerHTML || $(s).textContent])),
  fills: (DATA.fills || []).map(([k, p]) => t(k, p)), sent}));
"""


def _page(tmp_path: Path, client: TestClient, lang: str, **data: Any) -> dict[str, Any]:
    msgs = {x: client.get(f"/api/messages?lang={x}").json() for x in {lang, "en"}}
    return run_app_js(tmp_path, _RENDER, {"lang": lang, "messages": msgs, "read": [], **data})  # type: ignore[no-any-return]


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


# ---- 1. a range whose ends are equal prints once ------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_migrate_onto_cuda_prints_equal_ranges_once(client: TestClient, tmp_path: Path, lang: str) -> None:
    """Ascend 910B → A800: no port (0 weeks), so the one-off's two ends are equal; the page writes each once."""
    body = {"model": "qwen2.5-7b", "from_gpu": "ascend-910b", "to_gpu": "a800"}
    answer = client.post(f"/api/migrate?lang={lang}&surface=web", json=body).json()
    assert answer["calendar_weeks"] == [0, 0] and answer["one_off_cost_cny"][0] == answer["one_off_cost_cny"][1]
    one_off = f"¥{answer['one_off_cost_cny'][0]:,.0f}"
    page = _page(tmp_path, client, lang, state={"migBody": body}, call="renderMigrate", args=[answer],
                 read=["#mig-table"], fills=[["mig.value.effort", {"lo": 1, "hi": 2, "n": 2, "plo": 2, "phi": 4}],
                                             ["rvb_fresh", {"lo": "2.50", "hi": "2.50", "be_lo": "x", "be_hi": "y"}],
                                             ["rvb_fresh", {"lo": "2.50", "hi": "3.10", "be_lo": "x", "be_hi": "y"}]])
    table = _text(page["html"]["#mig-table"])
    assert "0–0" not in table and f"{one_off}–{one_off}" not in table, table
    weeks = "0 weeks × 2 engineers = 0 engineer-weeks" if lang == "en" else "0 周 × 2 名工程师 = 0 人周"
    assert weeks in table and one_off in table, table
    # a range whose ends differ still reads as a range, the currency before each end
    effort, same, differ = page["fills"]
    assert effort == ("1–2 weeks × 2 engineers = 2–4 engineer-weeks" if lang == "en"
                      else "1–2 周 × 2 名工程师 = 2–4 人周"), effort
    assert same.count("¥2.50") == 1 and "¥2.50–" not in same and "¥2.50–¥3.10" in differ, (same, differ)


@pytest.mark.parametrize("lang", LANGS)
def test_api_sentences_print_equal_ranges_once(client: TestClient, lang: str) -> None:
    """The sentences the API writes for the page (the verdict) and the CLI: `i18n.render`'s one rule."""
    body = {"model": "qwen2.5-7b", "from_gpu": "ascend-910b", "to_gpu": "a800", "saving": 50_000}
    answer = client.post(f"/api/migrate?lang={lang}", json=body).json()
    assert answer["payback_months"][0] == answer["payback_months"][1]
    assert answer["verdict"] == ("pays back in 0.0 months: worth it" if lang == "en" else "0.0 个月回本：值得迁移")
    assert render(Message("mig.verdict.worth_it", {"lo": 1.0, "hi": 2.5}), lang).startswith(
        "pays back in 1.0–2.5 months" if lang == "en" else "1.0–2.5 个月回本")
    assert render(Message("plan.reason.offers_range", {"n": 2, "lo": 5.0, "hi": 5.0, "offer": "o", "kind": "listing"}),
                  lang).count("¥5") == 1


@pytest.mark.parametrize("lang", LANGS)
def test_the_cli_migrate_table_prints_equal_ranges_once(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--lang", lang, "migrate", "cost", "--model", "qwen2.5-7b", "--from-gpu", "ascend-910b",
                              "--to-gpu", "a800"], monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert "0–0" not in out and not re.search(r"(¥[\d,]+)–\1(?!\d)", out), out
    assert ("0 weeks × 2 engineers" if lang == "en" else "0 周 × 2 名工程师") in out


# ---- 2. the plan table's calendar hours ----------------------------------------------------------------------------

FASTEST = {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8, "objective": "fastest", "domestic_only": True}


@pytest.mark.parametrize("lang", LANGS)
def test_plan_table_shows_calendar_hours_as_the_cli(client: TestClient, tmp_path: Path, lang: str,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Fastest on domestic devices from CUDA: the 910B's 0.8 h of work start after the migration weeks; the page
    shows its calendar hours beside the hours, as the CLI's `calendar h` column."""
    answer = client.post(f"/api/plan?lang={lang}&surface=web", json=FASTEST).json()
    assert answer["show_calendar_hours"] is True
    late = next(p for p in answer["plans"] if p["calendar_hours"] > p["hours"])
    page = _page(tmp_path, client, lang, call="renderPlan", args=[answer], read=["#plans-table"])
    table = page["html"]["#plans-table"]
    header = messages(lang)["web.calendar_hours"]
    assert f">{header}</th>" in table and f'data-label="{header}"' in table, table
    cal = f"{late['calendar_hours']:,.1f}".removesuffix(".0")
    assert f'data-label="{header}" class="num">{cal}</td>' in table, (cal, table)
    code, out, err = run_cli(["--lang", lang, "plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8",
                              "--objective", "fastest", "--domestic-only"], monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert messages(lang)["col.calendar_hours"] in out and cal in out  # the CLI's column, the same figure


def test_no_calendar_column_where_the_calendar_did_not_rank(client: TestClient, tmp_path: Path) -> None:
    answer = client.post("/api/plan?lang=en&surface=web", json={**FASTEST, "objective": "cheapest"}).json()
    assert answer["show_calendar_hours"] is False  # cheapest ranks by cost: the CLI shows no calendar column either
    page = _page(tmp_path, client, "en", call="renderPlan", args=[answer], read=["#plans-table"])
    assert "Calendar hours" not in page["html"]["#plans-table"] and ">Hours</th>" in page["html"]["#plans-table"]


# ---- 3. stale offers in the device detail --------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_device_offers_mark_stale_rows(client: TestClient, tmp_path: Path, lang: str,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUANLI_TODAY", TODAY)
    cat = messages(lang)
    for device, stale in (("a100-40g", True), ("l20", False)):
        d = client.get(f"/api/accelerators/{device}?lang={lang}").json()
        offers = client.get(f"/api/offers?limit=1000&device={device}&lang={lang}").json()
        assert any(o["stale"] for o in offers) is stale
        html = _page(tmp_path, client, lang, call="renderDetail", args=[{"d": d, "offers": offers}],
                     read=["#acc-detail"])["html"]["#acc-detail"]
        rows = re.findall(r"<tr[^>]*>.*?</tr>", html[html.index(f"<h4>{cat['web.offers']}</h4>"):], re.S)[1:]
        assert len(rows) == len(offers)
        for o, row in zip(offers, rows):
            marked = cat["cli.offers.date_stale"].format(date=o["date"])  # `suanli offers`' date cell
            assert (marked in row) is o["stale"] and (' class="stale"' in row) is o["stale"], row
        assert (cat["web.offers_stale_note"] in html) is stale


def test_the_stale_notes_say_the_api_limit() -> None:
    for lang in LANGS:
        for key in ("web.offers_stale_note", "web.stale"):
            assert f" {DEFAULT_STALE_MONTHS:g} " in messages(lang)[key], (lang, key)


# ---- 4. rent-vs-buy: untouched defaults are assumed, not given -----------------------------------------------------

def test_rvb_defaults_are_placeholders() -> None:
    defaults = {"rvb-util": RentVsBuyBody.model_fields["utilization"].default,
                "rvb-years": RentVsBuyBody.model_fields["years"].default}
    for html_id, default in defaults.items():
        tag = re.search(rf'<input id="{html_id}"[^>]*>', HTML)
        assert tag and " value=" not in tag.group(0), tag  # an input's value is sent: it would be "given"
        key = re.search(r'data-i18n-placeholder="(\w+)"', tag.group(0))
        assert key, tag.group(0)
        for lang in LANGS:
            assert f"{default:g}" in messages(lang)["web." + key.group(1)], (lang, key.group(1))


@pytest.mark.parametrize("lang", LANGS)
def test_rvb_untouched_defaults_are_assumed(client: TestClient, tmp_path: Path, lang: str) -> None:
    # the form as the page opens it: each input's value as the markup sets it, the selects' choices
    untouched = {m.group(1): m.group(2) or "" for m in re.finditer(
        r'<input id="(rvb-[\w-]+)"(?:[^>]*? value="([^"]*)")?[^>]*>', HTML)}
    assert {"rvb-util", "rvb-years", "rvb-cards"} <= set(untouched), untouched
    form = {**untouched, "rvb-gpu": "ascend-910b", "rvb-pattern": "spread", "rvb-region": "cn", "rvb-kinds": "listing"}
    submit = r"""
lang = DATA.lang;
for (const [id, v] of Object.entries(DATA.form)) $("#" + id).value = v;
await $("#rvb-form").listeners.submit({preventDefault() {}});
console.log(JSON.stringify({sent}));
"""
    for typed, status in (({}, "assumed"), ({"rvb-util": "0.5", "rvb-years": "3"}, "given")):
        [sent] = run_app_js(tmp_path, submit, {"lang": lang, "form": {**form, **typed}})["sent"]
        assert sent["url"] == f"/api/rent-vs-buy?lang={lang}&surface=web"
        answer = client.post(sent["url"], json=sent["body"]).json()
        said = {a["key"]: a for a in answer["assumptions"]}
        assert said["utilization"]["status"] == said["years"]["status"] == status, sent["body"]
        given = "as given" if lang == "en" else "按输入"
        assert (given in said["utilization"]["text"]) is (status == "given"), said["utilization"]["text"]
