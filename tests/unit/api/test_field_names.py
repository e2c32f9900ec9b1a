"""One sentence, the input named as the interface that shows it takes it (`i18n.field_name`): the API names the
request's JSON field (`output`, `tpot_s`), the page (`?surface=web`) its form label in the page's language (“输出
token”), the CLI its flag (--output) — one message id with a `field` parameter, no copy of the sentence per interface."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from suanli.i18n import Message, field_name, messages, render

REASONING = {"model": "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "task": "inference", "requests_per_s": 1}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_reasoning_warning_names_the_json_field(client: TestClient, lang: str) -> None:
    body = client.post(f"/api/plan?lang={lang}", json=REASONING).json()
    assert [m["id"] for m in body["warnings_i18n"]] == ["plan.warn.reasoning_output"]
    warning = body["warnings"][0]
    assert "`output`" in warning and "--output" not in warning, warning
    assert messages(lang)["field.output"] not in warning, warning  # not the page's form label
    assert ("推理（思考）模型" in warning) == (lang == "zh")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_page_gets_its_form_labels(client: TestClient, lang: str) -> None:
    warning = client.post(f"/api/plan?lang={lang}&surface=web", json=REASONING).json()["warnings"][0]
    assert messages(lang)["field.output"] in warning and "`output`" not in warning and "--output" not in warning


@pytest.mark.parametrize(("surface", "named"), [("api", "`tpot_s`"), ("web", None)])
def test_refusal_names_the_field_per_interface(client: TestClient, surface: str, named: str | None) -> None:
    r = client.post(f"/api/plan?lang=zh&surface={surface}", json={"model": "qwen2.5-7b", "task": "inference",
                                                                  "concurrent_users": 50})
    assert r.status_code == 422 and r.json()["field"] == "concurrent_users"
    said = r.json()["errors"][0]["message"]
    assert said.startswith("需要 " + (named or messages("zh")["field.tpot_s"])) and "--tpot" not in said, said


def test_field_name_per_interface() -> None:
    assert field_name("output", "zh", "cli") == "--output" and field_name("output", "zh", "api") == "`output`"
    assert field_name("output", "zh", "web") == "“输出 token”" and field_name("output", "en", "web") == "“Output tokens”"
    assert field_name("hours", "en", "api") == "`hours`/`days`" and field_name("budget_cny", "en", "cli") == "--budget"
    msg = Message("error.users_needs_tpot", field="tpot_s")
    assert render(msg, "en").startswith("needs --tpot,") and render(msg, "en", "api").startswith("needs `tpot_s`,")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_pages_error_line_starts_with_the_form_label(client: TestClient, lang: str) -> None:
    """The `field: message` line the page shows names the field by its form label (“并发用户数”: …); API clients keep
    the JSON field, and `field` stays the JSON name for both."""
    body = {"model": "qwen2.5-7b", "task": "inference", "concurrent_users": 50}
    web = client.post(f"/api/plan?lang={lang}&surface=web", json=body).json()
    api = client.post(f"/api/plan?lang={lang}", json=body).json()
    assert web["field"] == api["field"] == "concurrent_users"
    assert web["error"].startswith(messages(lang)["field.concurrent_users"] + ": "), web["error"]
    assert "concurrent_users" not in web["error"] and api["error"].startswith("concurrent_users: ")
