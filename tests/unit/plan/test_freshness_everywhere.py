"""The one freshness rule everywhere a price is chosen (code review 2026-12-01): `compare`, `tco`, value per yuan and
the card-hour price choose through `fresh_first` (a fresh price before a cheaper stale one, `offers.is_stale`), on the
date `as_of()` gives (SUANLI_TODAY), as `plan` does; `offers --stale` and the offer rows use `is_stale` too."""

from __future__ import annotations

import datetime as dt
import json

from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.catalog.offers import is_stale
from suanli.cli.main import app
from suanli.plan.compare import card_hour_offer, compare_devices, tco_rows, value_table
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.views.catalog import offer_row

TODAY = dt.date(2026, 12, 1)
STALE, FRESH = "xinghai-rtx4090-hour", "autodl-rtx4090-hour-2026-08"  # ¥1.78 of 2024-09, ¥1.88 of 2026-08


def test_the_catalog_still_has_the_case(cat) -> None:  # type: ignore[no-untyped-def]
    stale, fresh = (next(o for o in cat.offers if o.id == i) for i in (STALE, FRESH))
    assert is_stale(stale, TODAY) and not is_stale(fresh, TODAY)
    assert stale.price_cny.value < fresh.price_cny.value


def test_card_hour_price_takes_the_fresh_offer(cat) -> None:  # type: ignore[no-untyped-def]
    assert card_hour_offer(cat, "rtx-4090", today=TODAY)[1].id == FRESH  # type: ignore[index]
    # before the stale one aged (its own date): the cheapest
    assert card_hour_offer(cat, "rtx-4090", today=dt.date(2024, 10, 1))[1].id == STALE  # type: ignore[index]
    row = next(r for r in value_table(cat, today=TODAY) if r["device"] == "rtx-4090")
    assert row["offer"] == FRESH and row["cny_per_card_hour"] == 1.88


def test_compare_prices_the_offer_plan_takes(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    row = compare_devices(cat, m, ["rtx-4090", "a100-80g"], "lora", 1, tokens=1e8, today=TODAY)[0]
    assert row["offer"] == FRESH and row["cny_per_card_hour"] == 1.88
    req = make_request(model="qwen2.5-7b", task="lora", tokens=1e8, devices=("rtx-4090",), gpus=1)
    p = plan(cat, m, req, today=TODAY).plans[0]
    assert p.offer == row["offer"]


def test_tco_lists_fresh_prices_first(cat) -> None:  # type: ignore[no-untyped-def]
    rows = tco_rows(cat, "rtx-4090", 100, today=TODAY)
    assert rows[0]["offer"] == FRESH
    assert [r["stale"] is not None for r in rows] == sorted(r["stale"] is not None for r in rows)


def test_cli_reads_suanli_today(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SUANLI_TODAY", "2024-10-01")  # the 2024 price is fresh then, and cheapest
    out = CliRunner().invoke(app, ["compare", "--model", "qwen2.5-7b", "--task", "lora", "--gpu", "rtx-4090",
                                   "--gpu", "a100-80g", "--tokens", "1e8", "--json"]).output
    assert json.loads(out)[0]["offer"] == STALE
    out = CliRunner().invoke(app, ["tco", "--gpu", "rtx-4090", "--hours", "100", "--json"]).output
    assert json.loads(out)[0]["offer"] == STALE
    out = CliRunner().invoke(app, ["offers", "--device", "rtx-4090", "--stale", "--json"]).output
    assert STALE not in out
    monkeypatch.setenv("SUANLI_TODAY", "2026-12-01")
    out = CliRunner().invoke(app, ["compare", "--model", "qwen2.5-7b", "--task", "lora", "--gpu", "rtx-4090",
                                   "--gpu", "a100-80g", "--tokens", "1e8", "--json"]).output
    assert json.loads(out)[0]["offer"] == FRESH
    out = CliRunner().invoke(app, ["offers", "--device", "rtx-4090", "--stale", "--json"]).output
    assert STALE in out


def test_offer_rows_use_the_rule(cat) -> None:  # type: ignore[no-untyped-def]
    for o in cat.offers:
        assert offer_row(o, TODAY)["stale"] == is_stale(o, TODAY)
