"""Audit 2026-12-01 (8): README said plan, tco and compare give the same billing-rounding note, but compare rows had
no notes: `compare --model qwen2.5-14b --task lora --gpu a100-80g --gpu 910b --gpus 8 --tokens 1e8` billed a 1.37 h
job on the A100's monthly offer (CNY 25,000) and said nothing. Each row now carries its bill's notes (`job_cost`:
`billing_note`, a machine or block rented whole), as tco's rows do (API: CompareRow.notes / notes_i18n)."""

from __future__ import annotations

import pytest

from suanli.api.responses import CompareRow
from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.i18n import Message, render
from suanli.plan.compare import compare_devices, tco_rows
from suanli.plan.cost import billing_note


@pytest.fixture(scope="module")
def rows(cat: Catalog) -> list[dict]:  # type: ignore[type-arg]
    return compare_devices(cat, lookup.model(cat, "qwen2.5-14b"), ["a100-80g", "910b"], "lora", 8, tokens=1e8)


def test_a_month_billed_for_an_hour_and_a_half_says_so(cat: Catalog, rows: list[dict]) -> None:  # type: ignore[type-arg]
    for r in rows:
        offer = next(o for o in cat.offers if o.id == r["offer"])
        assert offer.billing_unit == "month" and r["hours"] < 2, r["offer"]
        note = billing_note(offer, r["hours"])
        assert note is not None and note.id == "cost.note.billed"
        assert render(note) in r["notes"] and note.to_json() in r["notes_i18n"]
        assert [render(Message(m["id"], **m["params"])) for m in r["notes_i18n"]] == r["notes"]
        assert CompareRow.model_validate(r).notes == r["notes"]  # the API shape carries them


def test_the_same_note_as_tco(cat: Catalog, rows: list[dict]) -> None:  # type: ignore[type-arg]
    for r in rows:
        tco = next(t for t in tco_rows(cat, r["device"], r["hours"], 8) if t["offer"] == r["offer"])
        assert tco["notes"] == r["notes"] and tco["notes_i18n"] == r["notes_i18n"]


def test_no_cost_no_notes(cat: Catalog) -> None:
    for r in compare_devices(cat, lookup.model(cat, "qwen2.5-7b"), ["h100", "910b"]):  # no tokens: no hours, no bill
        assert r["cost_cny"] is None and r["notes"] == [] and r["notes_i18n"] == []
