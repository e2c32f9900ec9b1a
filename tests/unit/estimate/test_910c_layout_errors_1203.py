"""Task L (2026-12-03): a 910C's layout errors counted its dies as gpus. `--gpus` counts cards, the workload ranks
(`catalog.ranks.ranks_of`: a 910C card is 2 dies), so `estimate --model deepseek-r1 --gpu 910c --gpus 8 --tp 16 --ep 2`
said "ep (2) must divide the data-parallel size gpus / (tp × pp × cp) = 1" of 16 "gpus" the user never typed, and
`--tp 3` said "gpus (16) must be a multiple of tp × pp". On a card of several dies the refusal now says the cards, their
dies, and the fewest cards that split (`estimate.workload.validated`, `catalog.ranks.cards_splitting`), and that
--gpus runs. POST /api/estimate checked the layout on the body's cards (`gpus` 8, `tp` 16 refused on a 910C, which
runs it: 16 dies); it now checks the workload's ranks with the same wording. Other devices: unchanged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from cli_run import run_cli
from suanli.api import Settings, create_app
from suanli.catalog.ranks import cards_splitting
from suanli.errors import InputError
from suanli.estimate.workload import make_workload

R1 = ["estimate", "--model", "deepseek-r1", "--gpu"]


def _error(args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
           home: Path) -> str:
    code, out, err = run_cli(args, monkeypatch, capsys, home)
    assert code == 2, (out, err)
    return " ".join((out + err).split())


@pytest.mark.parametrize(("flags", "said", "fix"), [
    (["--tp", "16", "--ep", "2"],
     "--ep: ep (2) must divide the data-parallel size dies / (tp × pp × cp) = 16 / 16 = 1 (8 cards are 16 dies): "
     "try --gpus 16 (32 dies)", "16"),
    (["--tp", "16", "--pp", "2"],
     "--gpus: 8 cards are 16 dies, not a multiple of tp × pp (16 × 2 = 32; tp and pp count dies): "
     "try --gpus 16 (32 dies)", "16"),
])
def test_the_910c_refusal_names_cards_and_its_gpus_runs(flags: list[str], said: str, fix: str,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    line = _error([*R1, "910c", "--gpus", "8", *flags], monkeypatch, capsys, tmp_path)
    assert said in line
    assert "gpus /" not in line and "gpus (16)" not in line
    suggested = re.search(r"try --gpus (\d+)", line)
    assert suggested is not None and suggested.group(1) == fix
    # the suggested --gpus, run: the estimate comes out (no layout refusal)
    code, out, err = run_cli([*R1, "910c", "--gpus", fix, *flags], monkeypatch, capsys, tmp_path)
    assert code == 0, (out, err)
    assert "Memory per die" in out


def test_the_910c_refusal_in_chinese(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                     tmp_path: Path) -> None:
    ep = _error(["--lang", "zh", *R1, "910c", "--gpus", "8", "--tp", "16", "--ep", "2"], monkeypatch, capsys, tmp_path)
    assert "ep（2）必须整除数据并行数 芯粒数 / (tp × pp × cp) = 16 / 16 = 1（8 张卡是 16 个芯粒）：可试 --gpus 16（32 个芯粒）" in ep
    tp = _error(["--lang", "zh", *R1, "910c", "--gpus", "8", "--tp", "3"], monkeypatch, capsys, tmp_path)
    assert "8 张卡是 16 个芯粒，不是 tp × pp（3 × 1 = 3；tp 与 pp 数的是芯粒）的倍数：可试 --gpus 9（18 个芯粒）" in tp
    for line in (ep, tp):
        assert not re.search(r"\b(dies|cards?|try)\b", line), line


@pytest.mark.parametrize(("cards", "kw"), [
    (8, {"tp": 3}),  # 16 dies in groups of 3: 18 dies, 9 cards
    (8, {"tp": 2, "cp": 3, "task": "full"}),  # tp × cp = 6: 18 dies
    (5, {"tp": 4, "ep": 2, "pp": 1}),  # 10 dies; tp4 × ep2 = 8: 16 dies, 8 cards
    (3, {"tp": 2, "pp": 2, "ep": 3}),  # 6 dies; groups of 12: 12 dies, 6 cards
])
def test_every_suggested_910c_gpus_passes_the_layout(cards: int, kw: dict[str, object]) -> None:
    with pytest.raises(InputError) as refused:
        make_workload(dies=2, gpus=cards * 2, **kw)
    said = refused.value.i18n
    assert said is not None and said.id.endswith("_dies") and said.params["cards"] == cards
    assert "gpus" not in said.params  # the ranks are said as ranks, never as gpus
    fix = int(str(said.params["try_cards"]))
    assert fix >= cards and said.params["try_ranks"] == fix * 2
    make_workload(dies=2, gpus=fix * 2, **kw)  # builds: every layout check passes
    for fewer in range(cards, fix):  # and it is the fewest that do
        with pytest.raises(InputError):
            make_workload(dies=2, gpus=fewer * 2, **kw)


def test_cards_splitting() -> None:
    assert cards_splitting(16, 32, 2) == 16
    assert cards_splitting(16, 3, 2) == 9
    assert cards_splitting(16, 16, 2) == 8  # already splits: the same cards
    assert cards_splitting(3, 2, 1) == 4


def test_other_devices_unchanged(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                 tmp_path: Path) -> None:
    line = _error([*R1, "h100", "--gpus", "8", "--tp", "8", "--ep", "2"], monkeypatch, capsys, tmp_path)
    assert "--ep: ep (2) must divide the data-parallel size gpus / (tp × pp × cp) = 1" in line
    assert "dies" not in line and "try" not in line
    line = _error([*R1, "h100", "--gpus", "3", "--tp", "2"], monkeypatch, capsys, tmp_path)
    assert "--gpus: gpus (3) must be a multiple of tp × pp (2 × 1 = 2)" in line
    with pytest.raises(InputError) as refused:
        make_workload(gpus=3, tp=2)
    assert refused.value.i18n is not None and refused.value.i18n.id == "error.wl.gpus_tp_pp"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    db = tmp_path_factory.mktemp("api") / "suanli.db"
    return TestClient(create_app(Settings(database_url=f"sqlite:///{db}", api_token="t")))


def test_api_checks_the_910c_layout_on_its_dies(client: TestClient) -> None:
    body = {"model": "deepseek-r1", "gpu": "910c", "gpus": 8, "tp": 16}
    ok = client.post("/api/estimate", json=body)  # 8 cards are 16 dies: tp 16 runs, as `suanli estimate` runs it
    assert ok.status_code == 200, ok.text
    assert ok.json()["device"]["cards"] == 8
    r = client.post("/api/estimate", json={**body, "ep": 2})
    assert r.status_code == 422
    j = r.json()
    assert j["field"] == "ep" and j["error_i18n"]["id"] == "error.wl.ep_dp_dies"
    assert j["error"] == ("ep: ep (2) must divide the data-parallel size dies / (tp × pp × cp) = 16 / 16 = 1 "
                          "(8 cards are 16 dies): try `gpus` 16 (32 dies)")
    zh = client.post("/api/estimate?lang=zh", json={**body, "tp": 3}).json()
    assert zh["error"] == "gpus: 8 张卡是 16 个芯粒，不是 tp × pp（3 × 1 = 3；tp 与 pp 数的是芯粒）的倍数：可试 `gpus` 9（18 个芯粒）"


def test_api_other_devices_unchanged(client: TestClient) -> None:
    r = client.post("/api/estimate", json={"model": "deepseek-r1", "gpu": "h100", "gpus": 3, "tp": 2})
    assert r.status_code == 422
    assert r.json() == {"error": "gpus: gpus (3) must be a multiple of tp × pp (2 × 1 = 2)", "field": "gpus",
                        "errors": [{"field": "gpus", "in": "body",
                                    "message": "gpus (3) must be a multiple of tp × pp (2 × 1 = 2)"}],
                        "error_i18n": {"id": "error.wl.gpus_tp_pp", "params": {"gpus": 3, "tp": 2, "pp": 1, "n": 2}}}
