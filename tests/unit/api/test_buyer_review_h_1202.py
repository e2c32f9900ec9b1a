"""Defects of the web page and the REST API found in the buyer review of 2026-12-02 (task H), each in English and
Chinese on the surface that showed it:

1. an export-controlled device's plan warning names where to read about it on the surface that shows it
   (`GET /api/accelerators/{id}` in the API, the Catalog tab on the page), not the CLI's `suanli gpu`;
2. the page's refusals name its form labels for every field its forms send (tokens, tokens_per_s, ops, uses too);
3. an empty POST body is refused naming the body (field "body") and what to send, not "Field required" and no field;
4. HEAD on a GET route answers as GET without the body, not 405;
5. rent-vs-buy's card_from and rent_from name the request's fields (`card_price`, `rent_price`), not the CLI's flags,
   and follow the language (card_from was "purchase px-…" in Chinese too);
6. POST /api/estimate's framework is bounded (200 characters) and described in OpenAPI as the other name fields;
7. a body that is not UTF-8 (GBK) or nested too deeply is refused naming the body and why, in the request's language;
8. /openapi.json describes every request-body field (from its CLI option's help, in the API's words), and
   EstimateBody.engine states no default "hf" that an estimate without engine does not use;
9. migrate's workload line names POST /api/compare (API) or the Compare tab (page), not the CLI's `compare`."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

LANGS = ["en", "zh"]
# a LoRA plan whose five plans are all export-controlled cards (H800, A800, RTX 4090, RTX 5090, …; 2026-12-02)
LORA_14B = {"model": "qwen2.5-14b", "task": "lora", "tokens": 1e8}


def _export_warnings(answer: dict[str, Any]) -> list[str]:
    return [w for p in answer["plans"] for w, j in zip(p["warnings"], p["warnings_i18n"])
            if j["id"] == "plan.warn.china_export"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("surface", ["api", "web"])
def test_export_warning_points_to_the_surface_own_place(client: TestClient, lang: str, surface: str) -> None:
    r = client.post(f"/api/plan?lang={lang}&surface={surface}", json=LORA_14B)
    assert r.status_code == 200, r.text
    said = _export_warnings(r.json())
    assert said, r.json()["plans"]
    for w in said:
        assert "suanli gpu" not in w, w
        if surface == "api":
            assert "`GET /api/accelerators/" in w, w
        else:
            assert ("the Catalog tab" if lang == "en" else "“型号库”页") in w, w
    if surface == "api":  # the id in the route is the plan's device
        p = next(p for p in r.json()["plans"] if any(j["id"] == "plan.warn.china_export" for j in p["warnings_i18n"]))
        assert f"/api/accelerators/{p['device']}`" in " ".join(p["warnings"]), p["warnings"]


# 2. the page's refusals name its form labels (`?surface=web`), also for the fields these four forms send that had no
#    label: tokens (plan, compare), tokens_per_s (tco), ops (rent-vs-buy), uses (migrate); was "tokens: 必须小于等于 …"
PAGE_REFUSALS = [
    ("/api/plan", {"model": "qwen2.5-14b", "task": "lora", "tokens": 1e30}, "web.tokens"),
    ("/api/plan", {"model": "qwen2.5-14b", "task": "lora"}, "web.tokens"),  # the field left empty
    ("/api/compare", {"model": "qwen2.5-14b", "task": "lora", "devices": ["h20", "h800"], "tokens": 1e30}, "web.tokens"),
    ("/api/tco", {"gpu": "h20", "hours": 720, "tokens_per_s": 1e13}, "web.tco_tps"),
    ("/api/rent-vs-buy", {"gpu": "h20", "ops": 1e20}, "web.rvb_ops"),
    ("/api/migrate", {"model": "qwen3-32b", "uses": ["flash-atn"]}, "web.mig_uses"),
]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("path", "body", "label"), PAGE_REFUSALS)
def test_page_refusal_names_the_form_label(client: TestClient, lang: str, path: str, body: dict[str, Any],
                                           label: str) -> None:
    r = client.post(f"{path}?lang={lang}&surface=web", json=body)
    assert 400 <= r.status_code < 500, r.text
    shown = client.get(f"/api/messages?lang={lang}").json()[label]
    assert r.json()["error"].startswith(f"“{shown}”"), r.json()["error"]
    # the API's own clients keep the JSON field
    api = client.post(f"{path}?lang={lang}", json=body).json()
    assert api["error"].startswith(api["field"]), api["error"]


# 3. an empty POST body is one line naming the body and what to send; was 422 "Field required" with field null
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("path", ["/api/plan", "/api/estimate", "/api/compare", "/api/tco", "/api/migrate"])
@pytest.mark.parametrize("headers", [{"Content-Type": "application/json"}, {}])
def test_empty_body_names_the_body(client: TestClient, lang: str, path: str, headers: dict[str, str]) -> None:
    r = client.post(f"{path}?lang={lang}", content=b"", headers=headers)
    assert r.status_code == 422, r.text
    j = r.json()
    assert j["field"] == "body" and j["errors"] == [{"field": "body", "in": "body", "message": j["error"][6:]}], j
    assert j["error"].startswith("body: " + ("empty: send a JSON object" if lang == "en" else "为空：请发送")), j
    assert "Content-Type: application/json" in j["error"] and j["error_i18n"] == {"id": "error.v.body_empty",
                                                                                  "params": {}}, j


# 4. HEAD on a GET route answers as GET without the body (RFC 9110 §9.3.2): an uptime check's `curl -I
#    /api/health` or `HEAD /` got 405 (FastAPI's routes take GET only)
@pytest.mark.parametrize("path", ["/", "/api/health", "/api/accelerators", "/docs", "/openapi.json"])
def test_head_is_get_without_the_body(client: TestClient, path: str) -> None:
    got, head = client.get(path), client.head(path)
    assert got.status_code == 200 and head.status_code == 200, (got.status_code, head.status_code)
    assert head.content == b"", head.content[:80]
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers["content-length"] == got.headers["content-length"] == str(len(got.content))
    assert head.headers["x-content-type-options"] == "nosniff"  # the guard's headers as on GET


def test_head_on_a_post_route_is_still_refused(client: TestClient) -> None:
    r = client.head("/api/plan")
    assert r.status_code == 405 and r.content == b"" and "POST" in r.headers["allow"], r.headers


def test_405_on_a_get_route_advertises_head(client: TestClient) -> None:
    r = client.post("/api/health")
    assert r.status_code == 405 and r.headers["allow"] == "GET, HEAD", r.headers


def test_rent_vs_buy_says_where_prices_come_from_in_the_api_words(client: TestClient) -> None:
    given = {"gpu": "h20", "card_price": 100000, "rent_price": 5}
    en = client.post("/api/rent-vs-buy", json=given).json()
    assert (en["card_from"], en["rent_from"]) == ("`card_price`", "`rent_price`"), en  # were --card-price, --rent-price
    zh = client.post("/api/rent-vs-buy?lang=zh", json=given).json()
    assert (zh["card_from"], zh["rent_from"]) == ("你给出的单卡价格（`card_price`）", "你给出的租金（`rent_price`）"), zh
    row = client.post("/api/rent-vs-buy?lang=zh", json={"gpu": "h20"}).json()
    assert row["card_from"].startswith("采购价 px-") and "purchase" not in row["card_from"], row["card_from"]
    assert row["card_from_i18n"]["id"] == "rvb.card_from.purchase", row
    over = client.post("/api/rent-vs-buy?lang=zh", json={"gpu": "h200"}).json()  # the catalog card dearer than 1/8 server
    assert over["card_from"].startswith("采购价 px-") and "高于整台服务器" in over["card_from"], over["card_from"]


# 6. POST /api/estimate's framework is bounded and documented as every other name field (was unbounded in OpenAPI)
def test_estimate_framework_is_bounded_in_openapi(client: TestClient) -> None:
    prop = client.get("/openapi.json").json()["components"]["schemas"]["EstimateBody"]["properties"]["framework"]
    assert {"type": "string", "minLength": 1, "maxLength": 200} in prop["anyOf"] and "suanli" not in prop["description"]
    r = client.post("/api/estimate", json={"model": "qwen2.5-7b", "gpu": "h20", "task": "lora", "framework": "x" * 201})
    assert r.status_code == 422 and r.json()["field"] == "framework", r.text
    ok = client.post("/api/estimate", json={"model": "qwen2.5-7b", "gpu": "h20", "task": "lora",
                                            "framework": "llama-factory"})
    assert ok.status_code == 200, ok.text


# 7. a body that cannot be decoded (GBK bytes from a Chinese Windows client; nesting past Python's recursion limit) was
#    FastAPI's English "There was an error parsing the body", field null, no error_i18n, in every language
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("content", "msg_id"), [
    ('{"model": "通义千问"}'.encode("gbk"), "error.v.body_not_utf8"),
    (b"[" * 5000 + b"]" * 5000, "error.v.body_unreadable"),
])
def test_undecodable_body_names_the_body_and_why(client: TestClient, lang: str, content: bytes, msg_id: str) -> None:
    r = client.post(f"/api/plan?lang={lang}", content=content, headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    j = r.json()
    assert j["field"] == "body" and j["error_i18n"] == {"id": msg_id, "params": {}}, j
    assert j["error"] == "body: " + j["errors"][0]["message"] and "There was an error" not in j["error"], j
    if lang == "zh":
        assert ("UTF-8" in j["error"] and "GBK" in j["error"]) if msg_id.endswith("utf8") else "嵌套过深" in j["error"]


# 8. /openapi.json describes every field of every request body (62 had a title and limits only: PlanBody's model, task,
#    tpot_s …), from the help of the field's CLI option worded for the API (one text per input: schemas._described)
BODIES = ["EstimateBody", "PlanBody", "SavePlanBody", "CompareBody", "TcoBody", "MigrateBody", "MigrateCheckBody",
          "RentVsBuyBody", "PriceBody"]
CLI_CROSS_REFERENCES = {"allow_migration", "parallel_weeks", "uses"}  # "as `--parallel-weeks`": said on purpose


def test_openapi_describes_every_body_field_in_the_api_words(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for body in BODIES:
        for name, prop in schemas[body]["properties"].items():
            said = prop.get("description", "")
            assert said.strip(), (body, name)
            if name not in CLI_CROSS_REFERENCES:
                assert not re.search(r"--[a-z]|\bsuanli [a-z]", said), (body, name, said)
    plan = schemas["PlanBody"]["properties"]
    assert plan["input"]["description"] == "serving: prompt tokens", plan["input"]  # help.plan.input
    assert "instead of requests_per_s (needs tpot_s" in plan["concurrent_users"]["description"], plan["concurrent_users"]
    assert "config.json is read by the CLI only" in plan["model"]["description"], plan["model"]  # not "path to"
    assert "50M" not in schemas["CompareBody"]["properties"]["tokens"]["description"]  # a JSON number only


def test_estimate_engine_states_no_false_default(client: TestClient) -> None:
    # OpenAPI said "default": "hf" while an estimate without engine runs the stack's usual one (vllm on CUDA)
    engine = client.get("/openapi.json").json()["components"]["schemas"]["EstimateBody"]["properties"]["engine"]
    assert "default" not in engine and "default: the one most teams serve with" in engine["description"], engine
    r = client.post("/api/estimate", json={"model": "qwen3-8b", "gpu": "h20"})
    assert r.status_code == 200 and r.json()["workload"]["engine"] == "vllm", r.text


# 9. migrate's workload line named the CLI's `compare` on the page and in the API ("每种设备按 `compare` 对所给目标的
#    结果…而非 `compare` 的默认精度"): the API names POST /api/compare, the page the Compare tab (横向对比)
MIG_SERVING = {"model": "qwen3-32b", "task": "inference", "from_gpu": "h800", "to_gpu": "910b", "requests_per_s": 5,
               "tpot_s": 0.05}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("surface", ["api", "web"])
@pytest.mark.parametrize("body", [MIG_SERVING, {**MIG_SERVING, "requests_per_s": None, "tpot_s": None}])
def test_migrate_workload_names_the_surface_compare(client: TestClient, lang: str, surface: str,
                                                    body: dict[str, Any]) -> None:
    r = client.post(f"/api/migrate?lang={lang}&surface={surface}", json={k: v for k, v in body.items() if v is not None})
    assert r.status_code == 200, r.text
    note = r.json()["workload_note"]
    assert "`compare`" not in note and not re.search(r"\bcompare's\b|\bcompare with\b", note), note
    want = "`POST /api/compare`" if surface == "api" else "the Compare tab" if lang == "en" else "“横向对比”页"
    assert want in note, note
