"""Buyer review 2026-12-01: AutoDL's A800/H800 hourly rows are one card per instance (their form factor, PCIe or SXM,
is unpublished), so a 32B LoRA plan prices the A800/H800 only at an 8-card monthly rate and never said why the hourly
rows were not used. The why-not row now says it (`Offer.single_card_why`); the rule (`max_cards`) is unchanged."""

from __future__ import annotations

import datetime as dt

from suanli.catalog import lookup
from suanli.catalog.offers import max_cards
from suanli.plan.request import make_request
from suanli.plan.search import plan

TODAY = dt.date(2026, 12, 1)
ROWS = {"a800": "autodl-a800-80g-hour-2026-08", "h800": "autodl-h800-hour-2026-08"}


def _why(cat, model: str) -> dict[str, list[dict]]:  # type: ignore[no-untyped-def]
    r = plan(cat, lookup.model(cat, model), make_request(model=model, task="lora", tokens=1e8), TODAY)
    return {w["device"]: w["reasons_i18n"] for w in r.why_not}


def test_the_rule_is_unchanged(cat) -> None:  # type: ignore[no-untyped-def]
    for dev, oid in ROWS.items():
        o = next(o for o in cat.offers if o.id == oid)
        assert o.single_card_why == "form_factor_unpublished" and not o.multi_card_instance
        assert max_cards(o, lookup.accelerator(cat, dev).max_cards_per_node) == 1


def test_a_multi_card_job_says_why_the_one_card_rows_are_not_used(cat) -> None:  # type: ignore[no-untyped-def]
    why = _why(cat, "qwen2.5-32b")
    for dev, oid in ROWS.items():
        assert dev in why, dev
        single = [m for m in why[dev] if m["id"] == "why.single_card_offer"]
        assert len(single) == 1 and single[0]["params"]["offer"] == oid
        assert single[0]["params"]["provider"] == "AutoDL" and single[0]["params"]["billing"] == "hour"
        assert single[0]["params"]["why"]["id"] == "why.single_card_form_factor"


def test_a_one_card_job_does_not(cat) -> None:  # type: ignore[no-untyped-def]
    r = plan(cat, lookup.model(cat, "qwen2.5-7b"), make_request(model="qwen2.5-7b", task="lora", tokens=1e8), TODAY)
    assert {"a800", "h800"} <= {p.device for p in r.plans}  # one card suffices: the hourly rows are the plans
    for w in r.why_not:
        assert all(m["id"] != "why.single_card_offer" for m in w["reasons_i18n"])
