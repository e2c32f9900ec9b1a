"""With lang=zh the rent the answers name follows the language (2026-12-01): rent-vs-buy's `rent_from` (the offer and
the year's bill) and every offer's `provider` (the catalog's provider_zh: tco rows, rent-vs-buy's offers, compare's
and migrate's offer facts), each beside its message (`*_i18n`); the English answer is unchanged."""

from __future__ import annotations

from fastapi.testclient import TestClient

ALL = ["listing", "index", "reference"]


def _en_zh(client: TestClient, url: str, body: dict[str, object]) -> tuple[object, object]:
    en, zh = client.post(url, json=body), client.post(url + "?lang=zh", json=body)
    assert en.status_code == zh.status_code == 200, (en.text, zh.text)
    return en.json(), zh.json()


def test_rent_from_follows_lang(client: TestClient) -> None:
    en, zh = _en_zh(client, "/api/rent-vs-buy", {"gpu": "910b", "cards": 16})
    assert isinstance(en, dict) and isinstance(zh, dict)
    assert en["rent_from"].startswith("omniyq-910b-8card-month, ")
    assert "billed per month: 8 cards for a year = 12 months = ¥180,000, ÷ 8 cards" in en["rent_from"]
    assert en["rent_from"].endswith("; 2 × 8-card instances, one per server bought")
    assert zh["rent_from"] == ("omniyq-910b-8card-month，云擎天下 (omniyq.com)，每卡每月 ¥1,875（挂牌，2026-07-20，转引），"
                               "按月计费：8 张卡租一年 = 12 个月 = ¥180,000，÷ 8 张卡；共 2 个 8 卡实例，每台购买的服务器一个")
    typed, typed_zh = _en_zh(client, "/api/rent-vs-buy", {"gpu": "910b", "rent_price": 3})
    assert isinstance(typed, dict) and isinstance(typed_zh, dict)
    # the API names its field, not the CLI's flag (--rent-price until buyer review H, 2026-12-02)
    assert (typed["rent_from"], typed_zh["rent_from"]) == ("`rent_price`", "你给出的租金（`rent_price`）")


def test_provider_follows_lang(client: TestClient) -> None:
    en, zh = _en_zh(client, "/api/tco", {"gpu": "h100", "gpus": 8, "hours": 40, "offer_kinds": ALL})
    assert isinstance(en, list) and isinstance(zh, list)
    by_en, by_zh = {r["offer"]: r["provider"] for r in en}, {r["offer"]: r["provider"] for r in zh}
    assert by_en["cnbeta-h100-8card-month-2024"] == "market (industry sources, cnBeta)"
    assert by_zh["cnbeta-h100-8card-month-2024"] == "市场行情（业内消息，cnBeta）"
    assert by_zh["seed000-h100-8card-month"] == by_en["seed000-h100-8card-month"]  # no provider_zh: the one name
