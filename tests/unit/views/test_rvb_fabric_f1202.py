"""Buyer review 2026-12-02, task F.4: `rent-vs-buy --gpu 910b --cards 64` priced the rent as "8 × 8-card instances"
without tco's note that they are separate instances, never one training job, and said nothing of the purchase
having no inter-node network either. The rent's notes (CLI, API, page) now carry tco's note, the one message
(`plan.compare.separate_instances`), and that neither side includes an inter-node network."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from cli_run import run_cli
from fastapi.testclient import TestClient

from suanli.api import Settings, create_app
from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.catalog.offers import can_span_nodes
from suanli.views.rent_vs_buy import _fabric_notes, rent_vs_buy_answer

TODAY = dt.date(2026, 12, 2)
ARGS = ["rent-vs-buy", "--gpu", "910b", "--cards", "64", "--years", "3", "--subsidy", "0.3", "--utilization", "0.7"]


def _notes(cards: int) -> list[str]:
    a = rent_vs_buy_answer(packaged_catalog(), "910b", 0.7, "spread", 3.0, 1.3, 0.8, n_cards=cards, today=TODAY)
    return [x["id"] for x in a.json["rent_notes_i18n"]]


def test_several_servers_say_separate_instances_and_no_fabric() -> None:
    assert _notes(64) == ["tco.separate_instances", "rvb.no_fabric"]


def test_one_server_is_one_job_and_says_neither() -> None:
    assert _notes(8) == []


def test_the_cli_prints_tcos_words(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                   tmp_path: Path) -> None:
    code, out, _ = run_cli(ARGS, monkeypatch, capsys, tmp_path, today=str(TODAY))
    assert code == 0, out
    assert "8 separate instances, not one 64-card job" in out and "never a training job across them" in out, out
    assert "neither side includes an inter-node network" in out, out
    code, out, _ = run_cli(["--lang", "zh", *ARGS], monkeypatch, capsys, tmp_path, today=str(TODAY))
    assert "两边都不含节点间网络" in out, out


def test_the_api_carries_them_in_its_language(tmp_path: Path) -> None:
    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 's.db'}")))
    body = {"gpu": "910b", "cards": 64, "years": 3, "subsidy": 0.3, "utilization": 0.7}
    got = client.post("/api/rent-vs-buy?lang=zh", json=body).json()
    assert [x["id"] for x in got["rent_notes_i18n"]] == ["tco.separate_instances", "rvb.no_fabric"], got
    assert any("两边都不含节点间网络" in n for n in got["rent_notes"]), got["rent_notes"]


def test_an_offer_that_spans_nodes_leaves_the_purchase_without_one() -> None:
    cat = packaged_catalog()
    acc = lookup.accelerator(cat, "h200")
    o = next(x for x in cat.offers if x.device == "h200" and can_span_nodes(x))
    [note] = _fabric_notes(acc, o, 16, 2, 8)
    assert note.id == "rvb.buy_no_fabric" and note.params["offer"] == o.id
