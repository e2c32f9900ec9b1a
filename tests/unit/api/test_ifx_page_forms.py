"""The page's forms send what the API takes (task ifx, item 4): the Migrate tab's *Parallel-run weeks* sends
`parallel_weeks` (empty: the API's assumed 2 weeks), the plan tab's *Precision* offers *any* (`--precision any`), in
both languages; and the page writes negative money as the CLI does, "-¥20,000" (item 3).

Without a browser: the markup and the catalogs are read, and where node is installed app.js itself runs against a
stub DOM, its forms' submit handlers are called and the bodies they post are sent to the API (tests/e2e drives the
same in Chromium)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from page_js import run_app_js  # tests/page_js.py

from suanli.api.schemas import MigrateBody
from suanli.i18n import messages
from suanli.plan.cost import DEFAULT_PARALLEL_RUN_WEEKS
from suanli.plan.request import PLAN_PRECISIONS

WEB = Path(__file__).resolve().parents[3] / "src" / "suanli" / "web" / "static"
HTML = (WEB / "index.html").read_text(encoding="utf-8")
JS = (WEB / "app.js").read_text(encoding="utf-8")

# each form given runs its submit handler with the values given (app.js against tests/page_js.py's stub DOM), and
# the POSTs it made are printed, with the page's money formatters on a negative amount
_SUBMIT = r"""
for (const [form, fields] of Object.entries(DATA.forms)) {
  for (const [id, v] of Object.entries(fields)) $("#" + id).value = v;
  await $("#" + form).listeners.submit({preventDefault() {}});
}
console.log(JSON.stringify({sent, yuan: [yuan(-20000), yuan(5000)],
  fill: fill("the saving ¥{saving:,.0f} a month", {saving: -14500})}));
"""

MIG = {"mig-model": "qwen2.5-14b", "mig-task": "full", "mig-from": "h100-sxm", "mig-to": "ascend-910b",
       "mig-region": "cn", "mig-kinds": "all", "mig-spend": "", "mig-gpus": "", "mig-uses": ""}
PLAN = {"model": "qwen2.5-7b", "task": "inference", "rps": "2", "objective": "cheapest", "region": "cn",
        "kinds": "listing", "framework": ""}


def _run_page(tmp_path: Path, forms: dict[str, dict[str, str]]) -> dict[str, Any]:
    return run_app_js(tmp_path, _SUBMIT, {"forms": forms})  # type: ignore[no-any-return]


def _input(html_id: str) -> str:
    m = re.search(rf'<input id="{html_id}"[^>]*>', HTML)
    assert m, html_id
    return m.group(0)


# ---- Parallel-run weeks ------------------------------------------------------------------------------------------

def test_the_migrate_form_has_parallel_weeks() -> None:
    tag = _input("mig-parallel")
    field = MigrateBody.model_fields["parallel_weeks"]
    ge = next(m.ge for m in field.metadata if hasattr(m, "ge"))
    le = next(m.le for m in field.metadata if hasattr(m, "le"))
    assert f'min="{ge:g}"' in tag and f'max="{le:g}"' in tag and 'type="number"' in tag, tag  # the API's bounds
    assert 'data-i18n="mig_parallel"' in HTML[HTML.index('<form id="mig-form"'):HTML.index('id="mig-parallel"')]
    assert re.search(r'migrate: \[[^\]]*"mig-parallel"', JS)  # kept in the URL with the tab's form
    assert 'body.parallel_weeks = Number($("#mig-parallel").value)' in JS
    for lang in ("en", "zh"):
        cat = messages(lang)
        assert cat["field.parallel_weeks"].strip("“”") == cat["web.mig_parallel"]  # refusals name the label
        assert f"{DEFAULT_PARALLEL_RUN_WEEKS:g}" in cat["web.mig_parallel_placeholder"]  # the assumed default


def test_parallel_weeks_sent_and_used(client: TestClient, tmp_path: Path) -> None:
    page = _run_page(tmp_path, {"mig-form": {**MIG, "mig-parallel": "4"}})
    [sent] = [s for s in page["sent"] if s["url"].startswith("/api/migrate?")]
    assert sent["body"]["parallel_weeks"] == 4 and sent["url"].endswith("surface=web"), sent
    answer = client.post(sent["url"], json=sent["body"]).json()
    item = next(i for i in answer["one_off_items"] if i["item"] == "parallel_run")
    assert "4 weeks" in item["note"] and "as given" in item["note"], item
    empty = _run_page(tmp_path, {"mig-form": MIG})["sent"][0]["body"]
    assert "parallel_weeks" not in empty, empty  # empty: the API's assumed default, said so in its item


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_bad_parallel_weeks_names_the_form_label(client: TestClient, lang: str) -> None:
    r = client.post(f"/api/migrate?lang={lang}&surface=web", json={"model": "qwen2.5-14b", "parallel_weeks": 600})
    assert r.status_code == 422 and r.json()["field"] == "parallel_weeks"
    assert r.json()["error"].startswith(messages(lang)["field.parallel_weeks"] + ": "), r.json()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_assumed_weeks_point_to_the_form_field(client: TestClient, lang: str) -> None:
    """The parallel run's note on the page names the form's field, not the JSON one (`parallel_weeks`)."""
    body = {"model": "qwen2.5-14b", "offer_kinds": ["listing", "index", "reference", "contract"]}
    answer = client.post(f"/api/migrate?lang={lang}&surface=web", json=body).json()
    note = next(i for i in answer["one_off_items"] if i["item"] == "parallel_run")["note"]
    assert messages(lang)["field.parallel_weeks"] in note and "parallel_weeks" not in note, note


# ---- Precision: any ----------------------------------------------------------------------------------------------

def test_the_plan_form_offers_any_precision() -> None:
    select = HTML[HTML.index('<select id="precision"'):]
    select = select[:select.index("</select>")]
    assert '<option value="any" data-i18n="precision_any">' in select, select
    for lang in ("en", "zh"):
        said = messages(lang)["web.precision_any"]
        assert all(p in said for p in PLAN_PRECISIONS), (lang, said)  # the option names what it searches
        # a sentence pointing to --precision names the form's control on the page ("int4 only with “Precision” …")
        assert messages(lang)["field.precision"].strip("“”") == messages(lang)["web.precision"]


def test_any_precision_sent_and_searched(client: TestClient, tmp_path: Path) -> None:
    page = _run_page(tmp_path, {"plan-form": {**PLAN, "precision": "any"}})
    [sent] = [s for s in page["sent"] if s["url"].startswith("/api/plan?")]
    assert sent["body"]["precision"] == "any", sent
    answer = client.post(sent["url"], json=sent["body"]).json()
    searched = next(a for a in answer["assumptions"] if a.startswith("precisions searched"))
    assert searched.startswith("precisions searched: " + ", ".join(PLAN_PRECISIONS)), searched


# ---- money on the page -------------------------------------------------------------------------------------------

def test_the_page_puts_the_sign_first(tmp_path: Path) -> None:
    page = _run_page(tmp_path, {})
    assert page["yuan"] == ["-¥20,000", "¥5,000"] and page["fill"] == "the saving -¥14,500 a month", page
    assert 'r.monthly_saving_cny < 0 ? esc(t("mig.value.rise"' in JS  # a rising bill as the CLI says it
