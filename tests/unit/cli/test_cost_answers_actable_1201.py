"""Cost answers a buyer can act on (buyer review 2026-12-01, task F): rent-vs-buy gives no buy verdict while the
server share is unpriced (one rule with `--cards` beyond the catalog's server: refuse and name --server-share), its
running row says power unless --ops adds operations; migrate cost says the monthly spend it used and marks the
assumed default; plan warns of a training job over a year; an offer quoted second-hand reads "quoted via a third
party", not "second-hand" (which reads as used hardware)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from cli_run import run_cli
from suanli.api import Settings, create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    db = tmp_path_factory.mktemp("costF") / "s.db"
    return TestClient(create_app(Settings(database_url=f"sqlite:///{db}")))


def _run(args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
         tmp_path: Path) -> tuple[int, str, str]:
    return run_cli(args, monkeypatch, capsys, tmp_path, today="2026-12-01")


def test_rvb_refuses_a_card_without_a_priced_server(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The L20 has a card price and no server row: no verdict on the card alone (it cannot run without a server);
    the error names the missing figure and the flag, in en and zh, as `--cards` without a matching server does."""
    code, out, err = _run(["rent-vs-buy", "--gpu", "l20"], monkeypatch, capsys, tmp_path)
    assert code != 0 and "cheaper" not in out, out
    assert "no server price for l20" in err and "--server-share" in err and "no rent-or-buy verdict" in err, err
    code, out, err = _run(["--lang", "zh", "rent-vs-buy", "--gpu", "l20"], monkeypatch, capsys, tmp_path)
    assert code != 0 and "服务器价格" in err and "--server-share" in err, err
    code, out, err = _run(["rent-vs-buy", "--gpu", "h20", "--cards", "4"], monkeypatch, capsys, tmp_path)
    assert code != 0 and "--server-share" in err, err  # the rule it follows
    code, out, err = _run(["rent-vs-buy", "--gpu", "l20", "--server-share", "3000"], monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert "capex ¥ per card" in out and "78,000" in out  # card ¥75,000 + the typed share
    assert "power ¥/year at this use" in out and "power and operations" not in out
    assert "(capex ¥78,000 + power ¥" in out


def test_rvb_running_row_names_ops_only_when_given(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = _run(["rent-vs-buy", "--gpu", "l20", "--server-share", "3000", "--ops", "500"], monkeypatch,
                          capsys, tmp_path)
    assert code == 0, err
    assert "power and operations (--ops) ¥/year at this use" in out and "+ power and operations (--ops) ¥" in out
    code, out, err = _run(["--lang", "zh", "rent-vs-buy", "--gpu", "l20", "--server-share", "3000"], monkeypatch,
                          capsys, tmp_path)
    assert code == 0, err
    assert "按利用率电费 ¥/年" in out and "电费与运维" not in out  # the ¥0 operations said as an assumption only


def test_rvb_api_refuses_naming_server_share(client: TestClient) -> None:
    r = client.post("/api/rent-vs-buy", json={"gpu": "l20"})
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["field"] == "server_share" and "server_share" in body["error"], body
    ok = client.post("/api/rent-vs-buy", json={"gpu": "l20", "server_share": 3000})
    assert ok.status_code == 200 and ok.json()["server_share_cny"] == 3000, ok.text


def test_migrate_cost_says_the_default_spend(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path, client: TestClient) -> None:
    """Without --monthly-spend the saving rests on the assumed ¥100,000 (seed-000 §4's worked example): said in the
    table (en, zh) and the JSON/API, and marked as the default; a typed spend is not."""
    args = ["migrate", "cost", "--model", "qwen2.5-7b", "--task", "inference", "--from-gpu", "a800"]
    code, out, err = _run(args, monkeypatch, capsys, tmp_path)
    assert code == 0, err
    flat = " ".join(out.split())
    assert "monthly compute spend ¥100,000, assumed default: seed-000 §4's worked example" in flat, flat
    assert "--monthly-spend" in flat
    code, out, err = _run(["--lang", "zh", *args], monkeypatch, capsys, tmp_path)
    assert code == 0 and "每月算力花费" in out and "假设的默认值" in out, out
    code, out, err = _run([*args, "--json"], monkeypatch, capsys, tmp_path)
    got = json.loads(out)
    assert got["monthly_spend_cny"] == 100_000 and got["monthly_spend_default"] is True
    assert got["monthly_spend_note_i18n"]["id"] == "mig.spend.default"
    code, out, err = _run([*args, "--monthly-spend", "50000", "--json"], monkeypatch, capsys, tmp_path)
    got = json.loads(out)
    assert got["monthly_spend_cny"] == 50_000 and got["monthly_spend_default"] is False
    assert got["monthly_spend_note_i18n"]["id"] == "mig.spend.given"
    api = client.post("/api/migrate", json={"model": "qwen2.5-7b", "task": "inference", "from_gpu": "a800"})
    assert api.status_code == 200, api.text
    assert api.json()["monthly_spend_default"] is True and api.json()["monthly_spend_cny"] == 100_000


def _long_job_ids(plan: dict) -> list[str]:  # type: ignore[type-arg]
    return [w["id"] for w in plan["warnings_i18n"] if w["id"] == "plan.warn.long_job"]


def test_plan_warns_of_a_job_over_a_year(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path, client: TestClient) -> None:
    """1e14 tokens of a 7B LoRA: 8× 910B for ~559,000 h (64 years) is warned of, with the cards it would take at
    perfect scaling and the flags; a short job is not."""
    args = ["plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e14", "--top", "1"]
    code, out, err = _run([*args, "--json"], monkeypatch, capsys, tmp_path)
    assert code == 0, err
    p = json.loads(out)["plans"][0]
    assert p["hours"] > 8760 and _long_job_ids(p), p["warnings"]
    code, out, err = _run(args, monkeypatch, capsys, tmp_path)
    flat = " ".join(out.split())
    assert "over the 1-year limit (assumed" in flat and "--gpus" in flat and "--deadline-hours" in flat, flat
    code, out, err = _run(["--lang", "zh", *args], monkeypatch, capsys, tmp_path)
    assert "超过 1 年的上限" in out.replace("\n", ""), out
    code, out, err = _run(["plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--top", "3",
                           "--json"], monkeypatch, capsys, tmp_path)
    assert not any(_long_job_ids(q) for q in json.loads(out)["plans"])
    r = client.post("/api/plan", json={"model": "qwen2.5-7b", "task": "lora", "tokens": 1e14, "top": 1})
    assert r.status_code == 200, r.text
    assert _long_job_ids(r.json()["plans"][0])


def test_second_hand_offer_reads_as_quoted(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    """AutoDL's prices come from a user's notes: "quoted via a third party" in English (zh keeps 转引), never
    "second-hand", which reads as used hardware."""
    args = ["plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--gpu", "h800", "--top", "1"]
    code, out, err = _run(args, monkeypatch, capsys, tmp_path)
    flat = " ".join(out.split())
    assert code == 0 and "AutoDL" in flat and "quoted via a third party)" in flat and "second-hand" not in flat, flat
    code, out, err = _run(["--lang", "zh", *args], monkeypatch, capsys, tmp_path)
    assert "转引" in out
