"""Buyer review 2026-12-03 (E): `plan --model qwen2.5-7b --task lora --tokens 30M` planned 1 × H800 on AutoDL's
hourly row (#1, and 1 × A800 #2) as the SXM5 part with no word that the listing does not say SXM or PCIe — while
the same row's note says so and the why-not of a multi-card job refuses it for that reason
(`single_card_why: form_factor_unpublished`). A row that is one card only because its form factor is unpublished now
says it on the plan, as 云擎天下's A100/A800 nodes do (`Offer.unstated`, plan.warn.card_unstated_alone)."""

from __future__ import annotations

import datetime as dt

import pytest

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan

TODAY = dt.date(2026, 12, 3)


def test_a_row_kept_to_one_card_for_its_form_factor_says_the_form_factor_is_unstated(cat) -> None:  # type: ignore[no-untyped-def]
    rows = [o for o in cat.offers if o.single_card_why == "form_factor_unpublished"]
    assert {o.id for o in rows} >= {"autodl-h800-hour-2026-08", "autodl-a800-80g-hour-2026-08"}
    assert all("form_factor" in o.unstated for o in rows)


@pytest.mark.parametrize("device, offer", [("h800", "autodl-h800-hour-2026-08"),
                                           ("a800", "autodl-a800-80g-hour-2026-08")])
def test_the_one_card_lora_plan_on_it_says_which_part_it_assumes(cat, device: str, offer: str) -> None:  # type: ignore[no-untyped-def]
    req = make_request(model="qwen2.5-7b", task="lora", tokens=3e7, deadline_hours=48, devices=(device,))
    p = plan(cat, lookup.model(cat, "qwen2.5-7b"), req, TODAY).plans[0]
    assert (p.offer, p.gpus) == (offer, 1)
    (w,) = [x for x in p.warnings_i18n if x["id"].startswith("plan.warn.card_unstated")]
    assert w["id"] == "plan.warn.card_unstated_alone"  # the catalog has no H800/A800 PCIe part to estimate it on
    name = lookup.accelerator(cat, device).name
    en, zh = render(Message.from_json(w)), render(Message.from_json(w), "zh")
    assert f"offer {offer} does not say the card's form factor (SXM or PCIe): specs assume the {name}" in en
    assert "ask the provider which card it rents" in en
    assert "未写明卡的形态（SXM 或 PCIe）" in zh and "请向平台确认租的是哪种卡" in zh
    assert f"form factor (SXM or PCIe) not stated: {name} specs assumed" in p.reason
