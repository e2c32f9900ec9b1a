"""The bound on `gpus` (65,536) is the workload's, on ranks: on a 910C (2 dies a card, `catalog.ranks`) a request
of 32,769 to 65,536 cards was refused with "must be at most 65,536 (got 65538)", a limit the cards met and a count
the user never typed. On a card of several dies the refusal now says the card limit with its dies
(`estimate.workload.validated`); one die a card: unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from cli_run import run_cli
from suanli.api import Settings, create_app
from suanli.errors import InputError
from suanli.estimate.workload import Workload, make_workload
from suanli.i18n import render

RANKS = Workload.model_fields["gpus"].metadata[-1].le  # the workload's own bound, 65,536 ranks


@pytest.mark.parametrize("cards", [RANKS // 2 + 1, RANKS, RANKS + 1])
def test_a_910c_over_the_bound_is_told_its_card_limit(cards: int) -> None:
    with pytest.raises(InputError) as e:
        make_workload(dies=2, gpus=cards * 2)
    assert e.value.field == "gpus"
    assert str(e.value) == f"gpus: must be at most {RANKS // 2:,} cards ({RANKS:,} dies, 2 a card; got {cards:,})"
    assert e.value.i18n is not None and e.value.i18n.params["le"] == RANKS // 2  # a number, as error.v.le's
    assert "32,768 张卡" in render(e.value.i18n, "zh")


def test_the_card_limit_itself_runs_and_one_die_a_card_is_unchanged() -> None:
    assert make_workload(dies=2, gpus=RANKS).gpus == RANKS  # 32,768 cards
    with pytest.raises(InputError) as e:
        make_workload(gpus=RANKS + 1)
    assert e.value.i18n is not None and e.value.i18n.id == "error.v.le"  # "must be at most 65,536 (got 65537)"
    assert render(e.value.i18n, "en") == f"must be at most {RANKS:,} (got {RANKS + 1})"


def test_cli_and_api_say_the_cards(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                   tmp_path: Path) -> None:
    code, _, err = run_cli(("--lang", "en", "estimate", "--model", "qwen2.5-7b", "--gpu", "910c", "--gpus", "40000"),
                           monkeypatch, capsys, tmp_path)
    assert code == 2 and "--gpus: must be at most 32,768 cards (65,536 dies, 2 a card; got 40,000)" in err, err
    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path}/s.db")))
    r = client.post("/api/estimate", json={"model": "qwen2.5-7b", "gpu": "910c", "gpus": 40000})
    assert r.status_code == 422 and r.json()["field"] == "gpus", r.text
    assert r.json()["error"] == "gpus: must be at most 32,768 cards (65,536 dies, 2 a card; got 40,000)"
    assert r.json()["error_i18n"]["id"] == "error.wl.gpus_le_dies"
