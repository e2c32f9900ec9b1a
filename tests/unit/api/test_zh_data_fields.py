"""With lang=zh the API's data fields follow the language like its sentences: an offer's `scope` (also in
`offer_facts`), migrate's `layout_rule`/`batch_rule`, a scenario's `assumption` and `device_name` (the catalog's
`name_zh`), each beside its message (`*_i18n`), the English kept in the message and the ids unchanged."""

from __future__ import annotations

from fastapi.testclient import TestClient

from suanli.i18n import Message, render

COMPARE = {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8, "devices": ["rtx-4090", "ascend-910b"], "gpus": 8}


def _en_zh(client: TestClient, method: str, url: str, **kw: object) -> tuple[object, object]:
    en = getattr(client, method)(url, **kw)
    zh = getattr(client, method)(url + ("&" if "?" in url else "?") + "lang=zh", **kw)
    assert en.status_code == zh.status_code == 200, (en.text, zh.text)
    return en.json(), zh.json()


def test_compare_scope_and_device_name_follow_lang(client: TestClient) -> None:
    en, zh = _en_zh(client, "post", "/api/compare", json=COMPARE)
    assert isinstance(en, list) and isinstance(zh, list)
    by_en, by_zh = {r["device"]: r for r in en}, {r["device"]: r for r in zh}
    assert by_en["ascend-910b"]["device_name"] == "Huawei Ascend 910B"
    assert by_zh["ascend-910b"]["device_name"] == "华为昇腾 910B"  # the catalog's name_zh
    assert by_zh["rtx-4090"]["device_name"] == by_en["rtx-4090"]["device_name"]  # no name_zh: the one name
    assert by_zh["ascend-910b"]["device"] == "ascend-910b"  # the id unchanged
    assert by_en["rtx-4090"]["offer_facts"]["scope"] == "1 card"
    assert by_zh["rtx-4090"]["offer_facts"]["scope"] == "1 张卡"
    node = by_zh["ascend-910b"]["offer_facts"]
    assert node["scope"] == render(Message.from_json(node["scope_i18n"]), "zh") and "卡整机" in node["scope"]
    assert by_en["ascend-910b"]["offer_facts"]["scope"] == render(Message.from_json(node["scope_i18n"]), "en")


def test_tco_and_value_follow_lang(client: TestClient) -> None:
    en, zh = _en_zh(client, "post", "/api/tco", json={"gpu": "rtx-4090", "gpus": 1, "hours": 10})
    assert isinstance(en, list) and isinstance(zh, list)
    assert en[0]["scope"] == "1 card" and zh[0]["scope"] == "1 张卡"
    en, zh = _en_zh(client, "get", "/api/value")
    assert isinstance(en, list) and isinstance(zh, list)
    names = {r["device"]: r["device_name"] for r in zh}
    assert names["ascend-910b"] == "华为昇腾 910B"
    assert {r["device"]: r["device_name"] for r in en}["ascend-910b"] == "Huawei Ascend 910B"


def test_plan_device_name_follows_lang(client: TestClient) -> None:
    body = {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8, "devices": ["ascend-910b"]}
    en, zh = _en_zh(client, "post", "/api/plan", json=body)
    assert isinstance(en, dict) and isinstance(zh, dict)
    assert en["plans"][0]["device_name"] == "Huawei Ascend 910B"
    assert zh["plans"][0]["device_name"] == "华为昇腾 910B" and zh["plans"][0]["device"] == "ascend-910b"


def test_migrate_layout_rule_follows_lang(client: TestClient) -> None:
    body = {"model": "qwen2.5-7b", "from_gpu": "a100-80g", "task": "lora"}
    en, zh = _en_zh(client, "post", "/api/migrate", json=body)
    assert isinstance(en, dict) and isinstance(zh, dict)
    rule_en = en["derived"]["ascend-910b"]["workload"]["layout_rule"]
    rule_zh = zh["derived"]["ascend-910b"]["workload"]["layout_rule"]
    assert rule_en.startswith("compare's training layout") and "训练布局" in rule_zh
    assert all("card" not in u["scope"] for u in zh["offers_used"])


def test_scenario_assumption_follows_lang(client: TestClient) -> None:
    en, zh = _en_zh(client, "get", "/api/scenarios/lora-7-13b")
    assert isinstance(en, dict) and isinstance(zh, dict)
    assert en["assumption"] == "13B, 100M training tokens"
    assert zh["assumption"] == "13B，训练 1 亿 token"
    assert zh["id"] == "lora-7-13b"
