"""Monthly prices in whole yuan (buyer review 2026-12-02): an offer billed by the month or longer is cited as
'¥1,875 per card-month', as every other monthly figure is, not '¥1,875.00'; an hour's price keeps the fen
(`offers.price_decimals`, the one rule `rent_message` and the `suanli offers` table follow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_run import run_cli
from suanli.catalog.load import packaged_catalog
from suanli.catalog.offers import price_decimals, rent_message
from suanli.i18n import render


def _offer(offer_id: str):  # type: ignore[no-untyped-def]
    return next(o for o in packaged_catalog().offers if o.id == offer_id)


def test_a_month_price_is_whole_yuan_an_hour_price_keeps_the_fen() -> None:
    month = rent_message(_offer("omniyq-910b-8card-month"))  # ¥15,000 an 8-card month
    assert "¥1,875 per card-month" in render(month, "en") and "¥1,875.00" not in render(month, "en")
    assert "每卡每月 ¥1,875（" in render(month, "zh")
    hour = render(rent_message(_offer("ninehills-autodl-rtx4090-hour")), "en")
    assert "per card-hour" in hour and hour.split("¥")[1].split(" ")[0].count(".") == 1  # ¥1.88: to the fen
    assert [price_decimals(u) for u in ("hour", "day", "month", "year")] == [2, 0, 0, 0]


def test_the_offers_table_writes_a_month_in_whole_yuan(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(["offers", "--device", "910b"], monkeypatch, capsys, tmp_path, today="2026-12-02")
    assert code == 0, (out, err)
    assert "15,000" in out and "15,000.00" not in out  # the 8-card month
    assert "4.47" in out  # seed-000's hourly 910B price, to the fen
