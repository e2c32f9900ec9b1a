"""Helper D, 2026-12-02: rent-vs-buy put the 910B's rent, ¥1,875 per card-month, beside a ¥120,000 card with nothing
saying why the two are so far apart. Both are right as cited: 云擎天下's ¥15,000 a month is for a whole 8-card machine
(the CMIS audit row's unit '万元/8卡整机/月'), so a card's share is ¥1,875; the card price is Reuters' of 2024-02. The
answer now says the card bought in months of this rent, how the machine's price became a card's, and both dates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run_cli
from fastapi.testclient import TestClient

from suanli.api import Settings, create_app
from suanli.catalog.load import packaged_catalog
from suanli.units import HOURS_PER_MONTH

TODAY = "2026-12-02"


def test_the_910b_rent_is_an_8_card_machine_month_as_its_source_says() -> None:
    o = next(o for o in packaged_catalog().offers if o.id == "omniyq-910b-8card-month")
    assert (o.cards, o.billing_unit, o.price_cny.value) == (8, "month", 15000)
    assert "万元/8卡整机/月" in (o.price_cny.chosen.note or "")  # the source's own unit, in the value's note


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_rent_vs_buy_910b_says_months_of_rent_and_the_division(lang: str, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--lang", lang, "rent-vs-buy", "--gpu", "910b"], monkeypatch, capsys, tmp_path,
                             today=TODAY)
    assert code == 0, err
    if lang == "en":
        assert ("rent against price: the card and its server share (¥187,500: card ¥120,000 + server ¥67,500) cost "
                "100 months of this rent at full use, ¥1,875 per card-month (the offer prices the whole 8-card "
                "instance per month: ÷ 8); the purchase price is dated 2024-02, the rent 2026-07-20") in out, out
    else:
        assert ("相当于按此租金满负荷租 100 个月，每卡每月 ¥1,875（报价是整台 8 卡实例按月计的价格，除以 8）；"
                "采购价日期 2024-02，租金日期 2026-07-20") in out, out


def test_rent_vs_price_is_the_capex_over_the_monthly_rent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    for gpu in ("910b", "rtx-4090"):
        code, out, err = run_cli(["rent-vs-buy", "--gpu", gpu, "--json"], monkeypatch, capsys, tmp_path, today=TODAY)
        assert code == 0, err
        d = json.loads(out)
        p = d["rent_vs_price_i18n"]["params"]
        assert p["capex"] == pytest.approx(d["card_cny"] + d["server_share_cny"])
        assert p["per_month"] == pytest.approx(d["rent_cny_per_card_hour"] * HOURS_PER_MONTH, rel=1e-4)
        assert p["months"] == pytest.approx(p["capex"] / p["per_month"])
    # a rent typed: no offer to divide, no dates
    code, out, err = run_cli(["rent-vs-buy", "--gpu", "910b", "--rent-price", "3", "--json"], monkeypatch, capsys,
                             tmp_path, today=TODAY)
    assert code == 0, err
    p = json.loads(out)["rent_vs_price_i18n"]["params"]
    assert (p["per_card"], p["dates"], p["per_month"]) == ("", "", pytest.approx(3 * HOURS_PER_MONTH))


def test_api_rent_vs_buy_carries_it_in_the_request_language(tmp_path: Path) -> None:
    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 's.db'}")))
    r = client.post("/api/rent-vs-buy?lang=zh", json={"gpu": "910b"})
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["rent_vs_price_i18n"]["id"] == "rvb.rent_vs_price"
    assert "每卡每月" in d["rent_vs_price"], d["rent_vs_price"]
