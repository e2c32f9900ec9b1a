"""POST /api/compare and POST /api/migrate carry plan's caveats on the offers they price (task full-warn 2026-12-02):
each compare row and each migrate side names what its offer leaves out of the card (`offer_warnings`, messages in
`offer_warnings_i18n`), in the request's language, as POST /api/plan's warnings say it."""

from __future__ import annotations

from fastapi.testclient import TestClient

COMPARE = {"model": "qwen2.5-72b", "devices": ["a100-80g", "910b", "h800"], "gpus": 8, "concurrent_users": 100,
           "tpot_s": 0.05, "ttft_s": 2.0}
MIGRATE = {"model": "qwen2.5-7b", "from_gpu": "a100-80g", "to_gpu": "910b"}


def test_compare_rows_carry_the_caveats(client: TestClient) -> None:
    r = client.post("/api/compare", json=COMPARE)
    assert r.status_code == 200, r.text
    a100, b910, h800 = r.json()
    # the export-controlled A100 and H800 also carry plan's China export warning (21d3f2d); the 910B does not
    assert [j["id"] for j in a100["offer_warnings_i18n"]] == ["plan.warn.card_unstated", "plan.warn.china_export"]
    assert [j["id"] for j in b910["offer_warnings_i18n"]] == ["plan.warn.variant_unstated"]
    assert [j["id"] for j in h800["offer_warnings_i18n"]] == ["plan.warn.china_export"]
    assert "does not say the card's form factor (SXM or PCIe)" in a100["offer_warnings"][0]
    assert "without its variant: specs assume the Huawei Ascend 910B2" in b910["offer_warnings"][0]
    zh = client.post("/api/compare?lang=zh", json=COMPARE).json()
    assert "未写明卡的形态（SXM 或 PCIe）" in zh[0]["offer_warnings"][0]
    assert "未写具体型号" in zh[1]["offer_warnings"][0]


def test_migrate_sides_carry_the_caveats(client: TestClient) -> None:
    r = client.post("/api/migrate", json=MIGRATE)
    assert r.status_code == 200, r.text
    d = r.json()["derived"]
    assert [j["id"] for j in d["a100-80g"]["offer_warnings_i18n"]] == ["plan.warn.card_unstated",
                                                                       "plan.warn.china_export"]
    assert [j["id"] for j in d["ascend-910b"]["offer_warnings_i18n"]] == ["plan.warn.variant_unstated"]
    assert "% of the assumed)" in d["a100-80g"]["offer_warnings"][0]
    zh = client.post("/api/migrate?lang=zh", json=MIGRATE).json()["derived"]
    assert "为所设型号的" in zh["a100-80g"]["offer_warnings"][0]
