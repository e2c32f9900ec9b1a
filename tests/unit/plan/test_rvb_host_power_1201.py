"""rent-vs-buy counts the whole server's power and says every assumption (procurement review 2026-12-01): an owned
card draws its TDP and its share of the server's CPUs, memory, NICs and fans (a cited whole-server figure, else an
assumed share of the TDP, said as assumed), and the text, `--json` and POST /api/rent-vs-buy list PUE, ¥/kWh,
operations, depreciation years, use and host power with "assumed", "cited" or "given" and the flag that changes
each."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli
from fastapi.testclient import TestClient
from rich.cells import cell_len

from suanli.api import Settings, create_app
from suanli.catalog.load import packaged_catalog
from suanli.views.rent_vs_buy import rent_vs_buy_answer

KEYS = ["pue", "electricity", "ops", "years", "utilization", "host_w"]


def _h800_16(**kw: object) -> dict:  # type: ignore[type-arg]
    args = dict(cat=packaged_catalog(), gpu="h800", utilization=0.5, use_pattern="spread", years=3.0, pue=1.3,
                electricity=0.8, n_cards=16)
    return rent_vs_buy_answer(**{**args, **kw}).json  # type: ignore[arg-type]


def test_h800_16_cards_counts_the_host_by_hand() -> None:
    """NVIDIA's DGX H100/H200 user guide: 10.2 kW maximum for the 8-GPU system; the H800 SXM5 is the same 700 W
    board in the same server. Host per card = 10,200 ÷ 8 − 700 = 575 W; power at full use per card-year =
    (700 + 575) W × 1.3 (PUE) × ¥0.8/kWh × 8,760 h = ¥11,615.76, not the cards' alone ¥6,377.28."""
    j = _h800_16()
    host = 10_200 / 8 - 700
    assert host == 575 and j["host_w_per_card"] == pytest.approx(host) and j["power_w_per_card"] == 1275
    full = (700 + host) / 1000 * 1.3 * 0.8 * 8760
    assert j["power_cny_per_year_full_use"] == pytest.approx(full) == pytest.approx(11_615.76)
    assert j["power_cny_per_year_full_use"] > 700 / 1000 * 1.3 * 0.8 * 8760  # more than the cards alone
    t = j["totals"]  # 16 cards × 3 years at 50 % use, no operations
    assert t["running_cny"] == pytest.approx(full * 0.5 * 16 * 3)
    assert t["own_cny"] == pytest.approx(t["capex_all_cards_cny"] + full * 0.5 * 16 * 3)


def test_assumptions_listed_with_status_and_source() -> None:
    j = _h800_16()
    by = {a["key"]: a for a in j["assumptions"]}
    assert list(by) == KEYS
    for k in ("pue", "electricity", "ops", "years", "utilization"):
        assert by[k]["status"] == "assumed" and by[k]["assumed"] and by[k]["source"] == "assumed", by[k]
        assert by[k]["text"].startswith("assumed: ") and f"--{k}" in by[k]["text"]
    assert by["pue"]["value"] == 1.3 and by["electricity"]["value"] == 0.8 and by["ops"]["value"] == 0
    assert by["host_w"]["status"] == "cited" and by["host_w"]["source"] == "nvidia-dgx-h100-user-guide"
    assert "10,200 W" in by["host_w"]["text"] and by["host_w"]["value"] == 575
    # typed inputs are the buyer's own, not assumptions; --host-w 0 counts the cards alone
    given = {a["key"]: a for a in _h800_16(pue=1.5, ops=2000.0, host_w=0.0, utilization=0.7)["assumptions"]}
    assert {k for k, a in given.items() if a["status"] == "given"} == {"pue", "ops", "host_w", "utilization"}
    assert _h800_16(host_w=0.0)["power_cny_per_year_full_use"] == pytest.approx(700 / 1000 * 1.3 * 0.8 * 8760)


def test_a_device_without_a_server_figure_assumes_and_says_so() -> None:
    j = rent_vs_buy_answer(packaged_catalog(), "910b", 0.5, "spread", 3.0, 1.3, 0.8).json
    host = next(a for a in j["assumptions"] if a["key"] == "host_w")
    assert host["status"] == "assumed" and host["source"] == "assumed" and "82%" in host["text"]
    assert j["host_w_per_card"] == pytest.approx(0.82 * 350)


def test_api_carries_the_assumptions_and_names_every_key(tmp_path: Path) -> None:
    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 's.db'}")))
    r = client.post("/api/rent-vs-buy?lang=zh", json={"gpu": "h800", "cards": 16, "years": 3})
    assert r.status_code == 200, r.text
    got = r.json()
    assert [a["key"] for a in got["assumptions"]] == KEYS
    assert got["power_cny_per_year_full_use"] == pytest.approx(11_615.76)
    assert got["assumptions"][0]["text"].startswith("假设：PUE 1.3") and "--pue" not in got["assumptions"][0]["text"]
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert set(schemas["RvbAssumption"]["properties"]) == set(got["assumptions"][0])
    assert {"assumptions", "host_w_per_card", "power_w_per_card"} <= set(schemas["RentVsBuyAnswer"]["properties"])
    bad = client.post("/api/rent-vs-buy", json={"gpu": "h800", "host_w": -1})
    assert bad.status_code == 422 and "host_w" in bad.text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_text_lists_the_assumptions_within_the_terminal(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--lang", lang, "rent-vs-buy", "--gpu", "h800", "--cards", "16", "--years", "3"],
                             monkeypatch, capsys, tmp_path, columns=72)
    assert code == 0, err
    assert all(cell_len(line) <= 72 for line in (out + err).splitlines()), out
    flat = out.replace("\n", "")
    for flag in ("--pue", "--electricity", "--ops", "--years", "--utilization", "--host-w"):
        assert flag in flat
    assert ("assumed: PUE 1.3" if lang == "en" else "假设：PUE 1.3") in flat
    assert "nvidia-dgx-h100-user-guide" in flat
