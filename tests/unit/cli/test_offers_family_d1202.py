"""Helper D, 2026-12-02: `suanli offers --device 910b` hid the SMM 算力直播 quotes that name the 910B2 and the 910B3
(offers on the variants' ids): asking for the generic device now lists its variants' offers after its own, each row
labelled by its device; `--device 910b3` stays exact. One rule, `lookup.family_ids`, for the CLI and GET /api/offers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run_cli
from fastapi.testclient import TestClient

from suanli.api import Settings, create_app
from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog

TODAY = "2026-12-02"


def test_family_ids_generic_and_variant() -> None:
    cat = packaged_catalog()
    assert lookup.family_ids(cat, "ascend-910b") == ("ascend-910b", *(f"ascend-910b{i}" for i in range(1, 5)))
    assert lookup.family_ids(cat, "ascend-910b3") == ("ascend-910b3",)
    assert lookup.family_ids(cat, "h100-sxm") == ("h100-sxm",)


def test_offers_910b_lists_the_variants_labelled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["offers", "--device", "910b", "--json"], monkeypatch, capsys, tmp_path, today=TODAY)
    assert code == 0, err
    rows = json.loads(out)
    devices = [r["device"] for r in rows]
    assert {"ascend-910b", "ascend-910b2", "ascend-910b3"} <= set(devices), devices
    assert devices == sorted(devices, key=lambda d: d != "ascend-910b"), devices  # the generic device's own first
    ids = {r["id"] for r in rows}
    assert {"smm-910b2-8card-month-2026-09", "omniyq-910b-8card-month"} <= ids
    # the table labels each row by its device (the column kept at 80 columns: it differs between rows)
    code, out, err = run_cli(["offers", "--device", "910b"], monkeypatch, capsys, tmp_path, today=TODAY, columns=80)
    assert code == 0, err
    assert "ascend-910b2" in out and "ascend-910b3" in out, out
    # a variant stays exact
    code, out, err = run_cli(["offers", "--device", "910b3", "--json"], monkeypatch, capsys, tmp_path, today=TODAY)
    assert code == 0, err
    assert {r["device"] for r in json.loads(out)} == {"ascend-910b3"}
    # the API lists the same rows
    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 's.db'}")))
    got = client.get("/api/offers?device=910b").json()
    assert {r["id"] for r in got} == ids and [r["device"] for r in got] == devices
    assert {r["device"] for r in client.get("/api/offers?device=910b3").json()} == {"ascend-910b3"}
