"""A refused value is echoed one way on every input surface (`suanli.errors.echoed`, through
`validation_message`): text quoted as it was given, anything else as its JSON, never a Python repr, at most 80
characters; a missing field echoes nothing (pydantic's `input` is then the whole body or row)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_run import run_cli

from suanli.errors import SHOWN_CHARS, echoed, validation_message
from suanli.i18n import Message, render


def test_echoed() -> None:
    assert echoed("50") == "'50'"
    assert echoed(True) == "true" and echoed(None) == "null" and echoed(1.5) == "1.5"
    assert echoed({"a": [1, 2]}) == '{"a": [1, 2]}' and echoed(["中文"]) == '["中文"]'
    long = echoed("x" * 500)
    assert len(long) == SHOWN_CHARS + 1 and long.endswith("…")
    assert len(echoed(list(range(1000)))) == SHOWN_CHARS + 1


def _params(err: dict[str, Any]) -> dict[str, Any]:
    return dict(validation_message(err).params)


def test_missing_field_echoes_nothing() -> None:
    said = validation_message({"type": "missing", "loc": ("gpu",), "msg": "Field required",
                               "input": {"model": "qwen3-30b-a3b", "note": "x" * 500}})
    assert said == Message("error.v.missing") and render(said, "en") == "field required"


def test_generic_shapes_echo_json_bounded() -> None:
    assert _params({"type": "bool_type", "input": {"a": 1}}) == {"value": '{"a": 1}'}
    assert _params({"type": "int_type", "input": [1, 2]}) == {"value": "[1, 2]"}
    assert _params({"type": "int_parsing", "input": "abc"}) == {"value": "'abc'"}
    assert _params({"type": "float_type", "input": None}) == {"value": "null"}
    assert _params({"type": "less_than_equal", "input": 9e9, "ctx": {"le": 1e6}}) == {"value": "9000000000.0", "le": 1e6}
    value = _params({"type": "string_type", "input": {"k": "v" * 500}})["value"]
    assert len(value) == SHOWN_CHARS + 1 and "{'" not in value


def test_literal_and_own_messages_bounded() -> None:
    said = validation_message({"type": "literal_error", "input": ["lora"] * 50, "ctx": {"expected": "'lora' or 'full'"}})
    assert "['" not in render(said, "en") and len(said.params["value"]) <= SHOWN_CHARS + 1
    said = validation_message({"type": "literal_error", "input": "d" * 300, "ctx": {"expected": "'lora' or 'full'"}})
    assert len(said.params["value"]) == SHOWN_CHARS + 1

    class Own(ValueError):
        i18n = Message("err.is_not_one_of", value={"x": True}, allowed="a")

    said = validation_message({"type": "value_error", "ctx": {"error": Own()}, "input": {"whole": "body"}})
    assert said.params["value"] == '{"x": true}'


# ---- the CLI and the offers importer get the same echo ---------------------------------------------------------------

def _import(tmp_path: Path, name: str, text: str, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str], lang: str = "en") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, out, err = run_cli(["--lang", lang, "offers", "import", str(path)], monkeypatch, capsys, tmp_path / "home")
    assert code != 0
    return out + err


def test_offers_import_errors_read_well(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from suanli.catalog.load import load_catalog
    from suanli.store.importer import OfferImportError, parse_offers

    head = "id,provider,device,cards,billing_unit,price_cny,date,source\n"
    csv = head + "x1,autodl,rtx-4090,abc,hour,2.0,2026-01-01,my\nx2,autodl,rtx-4090,1,hour,,2026-01-01,my\n" \
        f"x3,autodl,rtx-4090,{'9' * 200}z,hour,2.0,2026-01-01,my\n"
    yml = ("offers:\n  - id: y1\n    provider: autodl\n    cards: [1, 2]\n    billing_unit: hour\n    price_cny: 2\n"
           "    date: 2026-01-01\n    source: my\n    whole_machine_only: {a: 1}\n")
    cat = load_catalog()
    seen = []
    for name, text in (("bad.csv", csv), ("bad.yaml", yml)):
        with pytest.raises(OfferImportError) as e:
            parse_offers(text.encode(), name, cat)
        for row in e.value.errors:
            said = json.dumps(row.i18n.to_json() if row.i18n else None, ensure_ascii=False)
            assert "{'" not in said and "['" not in said and "'id'" not in said, (name, row)
            assert len(row.message) < 200 and all(len(str(v)) <= SHOWN_CHARS + 1 for v in
                                                  (row.i18n.params.values() if row.i18n else ()))
            seen.append((row.line, row.field, row.i18n.id if row.i18n else None, row.i18n.params if row.i18n else None))
    assert (3, "price_cny", "error.v.missing", {}) in seen  # a missing column: nothing of the row echoed
    assert (2, "device", "error.v.missing", {}) in seen
    assert (2, "cards", "error.v.int", {"value": "[1, 2]"}) in seen
    assert (2, "whole_machine_only", "error.v.bool", {"value": '{"a": 1}'}) in seen
    assert (2, "cards", "import.err.int", {"value": "'abc'"}) in seen
    assert any(f == "cards" and p["value"].endswith("…") for _, f, _, p in seen if p and "value" in p)
    out = _import(tmp_path, "bad.csv", csv, monkeypatch, capsys)
    assert "bad.csv, line 2, field cards: 'abc' is not a whole number" in out and "{'" not in out
    out = _import(tmp_path, "bad.yaml", yml, monkeypatch, capsys, "zh")
    assert "字段 device：缺少此字段" in out and "{'" not in out


def test_cli_flag_echo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["estimate", "--model", "qwen2.5-7b", "--gpu", "h100", "--batch", "x" * 300],
                             monkeypatch, capsys, tmp_path / "home")
    assert code == 2 and "x" * (SHOWN_CHARS + 5) not in out + err, out + err
