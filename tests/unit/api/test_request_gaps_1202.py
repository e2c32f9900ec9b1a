"""Request validation gaps a buyer hit (2026-12-02), each in English and Chinese:

1. `tokens` beside a serving rate (or concurrent users) was echoed and ignored (a month billed): refused in one line
   naming both fields, as `tokens` beside a period without a rate is;
2. `vendors` / `stacks` / `already_on` are read as `suanli plan` and GET /api/accelerators read names (华为, Huawei,
   CANN), and an unknown one is a 404 naming the JSON field and the item (`vendors.1`) with the closest names;
3. "gpus (1) must be a multiple of tp × pp" names its field (`gpus`, as the CLI's --gpus), not null;
4. a body sent as another media type than JSON is a 415 in the one error shape saying how to send it, never the raw
   bytes echoed back.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from suanli.errors import InputError
from suanli.estimate.workload import make_workload
from suanli.i18n import Message, render

LORA = {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8, "top": 1, "breakdown": False}


def _shape(body: dict[str, Any]) -> None:
    """The one error shape: the first item names the same field as the answer."""
    assert set(body) >= {"error", "field", "errors", "error_i18n"}, body
    assert body["errors"][0]["field"] == body["field"], body


# ---- 1. tokens beside a rate ----------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("serving", "rate_field"), [({"requests_per_s": 5}, "requests_per_s"),
                                                     ({"concurrent_users": 50, "tpot_s": 0.05}, "concurrent_users")])
def test_tokens_beside_a_rate_is_refused_naming_both(client: TestClient, lang: str, serving: dict[str, Any],
                                                     rate_field: str) -> None:
    r = client.post(f"/api/plan?lang={lang}", json={"model": "qwen3-32b", "task": "inference", "tokens": 1e9,
                                                     **serving})
    body = r.json()
    assert r.status_code == 422, body
    _shape(body)
    assert body["field"] == "tokens" and body["error_i18n"]["id"] == "err.tokens_or_rate", body
    line = body["error"]
    assert line.startswith("tokens: ") and "`tokens`" in line and f"`{rate_field}`" in line, line
    assert "--" not in line, line  # JSON fields, not the CLI's flags
    if lang == "zh":
        assert "不能同时给出" in line, line


def test_tokens_alone_and_a_rate_alone_still_plan(client: TestClient) -> None:
    job = client.post("/api/plan", json={"model": "qwen3-32b", "task": "inference", "tokens": 1e9, "top": 1,
                                         "breakdown": False})
    served = client.post("/api/plan", json={"model": "qwen3-32b", "task": "inference", "requests_per_s": 5, "top": 1,
                                            "breakdown": False})
    assert job.status_code == 200 and served.status_code == 200, (job.text, served.text)
    assert served.json()["plans"][0]["hours"] == pytest.approx(730.0)  # the default month, billed
    assert job.json()["plans"][0]["hours"] < 730.0  # the job's own hours


def test_compare_refuses_tokens_beside_a_rate_as_plan_does(client: TestClient) -> None:
    r = client.post("/api/compare", json={"model": "qwen3-32b", "task": "inference", "devices": ["h20", "h800"],
                                          "requests_per_s": 5, "tokens": 1e9})
    assert r.status_code == 422 and r.json()["field"] == "tokens", r.text


# ---- 2. vendors, stacks, already_on as names are typed --------------------------------------------------------

@pytest.mark.parametrize(("field", "typed", "canonical"), [
    ("vendors", ["华为"], ["huawei"]), ("vendors", ["Huawei", "华为"], ["huawei"]), ("vendors", ["NVIDIA"], ["nvidia"]),
    ("stacks", ["CANN"], ["cann"]), ("stacks", ["华为昇腾 CANN"], ["cann"]),
    ("already_on", ["CANN"], ["cann"]), ("already_on", ["Huawei Ascend CANN", "cuda"], ["cann", "cuda"]),
])
def test_names_read_as_the_cli_reads_them(client: TestClient, field: str, typed: list[str],
                                          canonical: list[str]) -> None:
    r = client.post("/api/plan", json={**LORA, field: typed})
    assert r.status_code == 200, r.text
    assert r.json()["request"][field] == canonical  # the request echoed with the catalog's ids


def test_vendor_filter_plans_the_vendors_devices(client: TestClient) -> None:
    r = client.post("/api/plan", json={**LORA, "vendors": ["华为"], "offer_kinds": ["listing", "index", "reference"]})
    assert r.status_code == 200, r.text
    devices = {p["device"] for p in r.json()["plans"]}
    assert devices and all("910" in d or "ascend" in d for d in devices), devices


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("field", "typed", "kind", "near"), [
    ("vendors", ["huawei", "nvdia"], "vendor", "nvidia"),
    ("stacks", ["cnn"], "stack", "cann"),
    ("already_on", ["cuda", "cnn"], "stack", "cann"),
])
def test_unknown_name_names_the_json_field_and_item(client: TestClient, lang: str, field: str, typed: list[str],
                                                    kind: str, near: str) -> None:
    r = client.post(f"/api/plan?lang={lang}", json={**LORA, field: typed})
    body = r.json()
    assert r.status_code == 404, body  # an unknown name, as for devices
    _shape(body)
    at = f"{field}.{len(typed) - 1}"
    assert body["field"] == at and body["errors"][0]["in"] == "body", body
    assert body["errors"][0]["suggestions"] == [near], body
    assert body["error_i18n"]["id"] == "error.unknown_hint" and body["error_i18n"]["params"]["kind"] == kind, body
    assert body["error"] == f"{at}: " + render(Message.from_json(body["error_i18n"]), lang, "api"), body
    assert near in body["error"] and "is not one of" not in body["error"], body


def test_accelerators_vendor_and_plan_vendors_agree(client: TestClient) -> None:
    listed = client.get("/api/accelerators", params={"vendor": "华为"})
    assert listed.status_code == 200 and {a["vendor"] for a in listed.json()} == {"huawei"}


# ---- 3. a whole-workload check names its field ----------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_gpus_multiple_of_tp_names_gpus(client: TestClient, lang: str) -> None:
    r = client.post(f"/api/estimate?lang={lang}", json={"model": "qwen3-32b", "gpu": "h20", "tp": 3})
    body = r.json()
    assert r.status_code == 422, body
    _shape(body)
    assert body["field"] == "gpus" and body["errors"][0]["in"] == "body", body
    assert body["error"].startswith("gpus: ") and body["error_i18n"]["id"] == "error.wl.gpus_tp_pp", body


@pytest.mark.parametrize(("kw", "field"), [
    ({"gpus": 1, "tp": 3}, "gpus"), ({"gpus": 4, "tp": 2, "pp": 3, "cp": 2, "task": "full"}, "gpus"),
    ({"vpp": 2}, "vpp"), ({"task": "qlora", "precision": "fp8"}, "precision"),
    ({"quant_method": "awq", "precision": "bf16"}, "quant-method"),
])
def test_workload_checks_name_their_field_for_the_cli_too(kw: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as e:
        make_workload(**kw)
    assert e.value.field == field  # the CLI's flag is this field's (was `qlora` for the QLoRA precision check)


# ---- 4. a body that is not sent as JSON -----------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("headers", "media"), [({"Content-Type": "text/plain"}, "'text/plain'"),
                                                ({"Content-Type": "application/x-www-form-urlencoded"},
                                                 "'application/x-www-form-urlencoded'"),
                                                ({}, None)])
def test_non_json_body_is_415_saying_how_to_send_it(client: TestClient, lang: str, headers: dict[str, str],
                                                    media: str | None) -> None:
    sent = b'{"model":"qwen3-32b","gpu":"h20"}'
    r = client.post(f"/api/estimate?lang={lang}", content=sent, headers=headers)
    body = r.json()
    assert r.status_code == 415, body
    _shape(body)
    assert body["field"] == "body" and body["errors"][0]["in"] == "body", body
    assert "application/json" in body["error"] and "b'" not in r.text and "qwen3-32b" not in r.text, body
    said = Message.from_json(body["error_i18n"])
    assert said.id == ("error.v.json_media" if media else "error.v.json_media_none"), body
    assert body["error"] == "body: " + render(said, lang, "api") and body["errors"][0]["message"] == render(said, lang)
    if media:
        assert media in body["error"], body
    if lang == "zh":
        assert "必须是 JSON" in body["error"], body


def test_json_body_still_answers_and_415_is_documented(client: TestClient) -> None:
    ok = client.post("/api/estimate", json={"model": "qwen2.5-7b", "gpu": "h20"})
    assert ok.status_code == 200, ok.text
    listed = client.post("/api/plan", json=[1, 2])  # JSON, but not an object: still the 422 naming what was sent
    assert listed.status_code == 422, listed.text
    spec = client.get("/openapi.json").json()
    assert "415" in spec["paths"]["/api/plan"]["post"]["responses"]
