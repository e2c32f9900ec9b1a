"""Booleans in imported offers are strict: in YAML or JSON `whole_machine_only: "yes"` (text) or `1` is refused in
one line naming the field and the allowed values, and nothing of the file is imported; a CSV cell is text, so it
takes the spellings the README lists (true/false, yes/no, y/n, t/f, 1/0) and refuses any other."""

from __future__ import annotations

import json

import pytest

from suanli.catalog.schema import Catalog
from suanli.store.importer import OfferImportError, parse_offers

ROW = dict(id="z-a100", provider="Z", device="a100-80g", cards=8, billing_unit="hour", scope="node", price_cny=60,
           date="2026-05-01", source="z")
GOOD = dict(ROW, id="z-a100-b")


@pytest.mark.parametrize("value", ["yes", "true", 1, 0.0])
@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_yaml_and_json_booleans_are_strict(cat: Catalog, fmt: str, value: object) -> None:
    doc = {"offers": [GOOD, dict(ROW, whole_machine_only=value)]}
    text = json.dumps(doc) if fmt == "json" else "offers:\n" + "".join(
        "  - " + json.dumps(r) + "\n" for r in doc["offers"])
    with pytest.raises(OfferImportError) as e:  # all or nothing: the good row is not imported either
        parse_offers(text, f"o.{'yaml' if fmt == 'yaml' else 'yml'}", cat, force=True)
    err = e.value.errors[0]
    assert err.field == "whole_machine_only" and len(e.value.errors) == 1
    assert err.message == f"must be true or false (a boolean, not text or a number; got {json.dumps(value)})" \
        if not isinstance(value, str) else err.message.endswith(f"got '{value}')")
    assert err.i18n is not None and "`true`" in err.i18n.render("zh")


def test_yaml_booleans_import(cat: Catalog) -> None:
    text = "offers:\n  - " + json.dumps(dict(ROW, whole_machine_only=True, multi_card_instance=False)) + "\n"
    o = parse_offers(text, "o.yaml", cat, force=True).offers[0]
    assert o.whole_machine_only is True and o.multi_card_instance is False


@pytest.mark.parametrize(("cell", "ok"), [("yes", True), ("T", True), ("0", False), ("maybe", None)])
def test_csv_takes_its_documented_spellings(cat: Catalog, cell: str, ok: bool | None) -> None:
    head = ",".join([*ROW, "whole_machine_only"])
    text = head + "\n" + ",".join([*(str(v) for v in ROW.values()), cell]) + "\n"
    if ok is None:
        with pytest.raises(OfferImportError) as e:
            parse_offers(text, "o.csv", cat, force=True)
        assert [x.field for x in e.value.errors] == ["whole_machine_only"]
        assert "yes/no" in e.value.errors[0].message
        return
    o = parse_offers(text, "o.csv", cat, force=True).offers[0]
    assert o.whole_machine_only is ok
