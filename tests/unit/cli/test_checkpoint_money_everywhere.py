"""Checkpoint ids and money, everywhere (review 2026-12-01, task hA).

- Every surface names the checkpoint the job downloads (`catalog.lookup.checkpoint_id`, as plan and estimate do):
  the `suanli compare` title, compare --json / POST /api/compare rows (`model_id`), the `suanli migrate cost` header,
  migrate --json / POST /api/migrate `model` (the page's header reads it), `suanli plan --save` as POST /api/plans.
- The CLI's --json rounds money as the API does (`views.money.round_money` in `cli.output.emit_json`): the two are
  equal with ==; a message's money parameters are rounded by the message (`views.money.message_money_params`).
- Amounts named `*_cny_per_year`, `*_cny_per_week`, `*_cny_per_card_year` round to the fen; only unit prices get 4."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from suanli.api import Settings, create_app
from suanli.views.money import AMOUNT_DECIMALS, RATE_DECIMALS, message_money_params, money_decimals, round_money
from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner


@pytest.fixture()
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("SUANLI_TODAY", "2026-12-01")
    return TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 'api.db'}", api_token="t")))


def _run_cli(args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             home: Path) -> str:
    code, out, err = run_cli(args, monkeypatch, capsys, home, today="2026-12-01")
    assert code == 0, err
    return out


CASES = [  # (preset, task, the checkpoint the job downloads)
    ("llama-3.1-8b", "inference", "meta-llama/Llama-3.1-8B-Instruct"),  # the preset is the base
    ("qwen2.5-7b", "lora", "Qwen/Qwen2.5-7B"),  # the preset is the -Instruct one
    ("meta-llama/Llama-3.1-8B", "inference", "meta-llama/Llama-3.1-8B"),  # a full id typed: as typed
]


@pytest.mark.parametrize(("model", "task", "ckpt"), CASES)
def test_compare_names_the_checkpoint(model: str, task: str, ckpt: str, client: TestClient, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("compare", "--model", model, "--task", task, "--gpu", "rtx-4090", "--gpu", "l40s")
    title = _run_cli(args, monkeypatch, capsys, tmp_path).splitlines()[0]
    assert ckpt in title and title.split()[0] == ckpt, title
    rows = json.loads(_run_cli((*args, "--json"), monkeypatch, capsys, tmp_path))
    assert [r["model_id"] for r in rows] == [ckpt, ckpt]
    api = client.post("/api/compare", json={"model": model, "task": task, "devices": ["rtx-4090", "l40s"]})
    assert api.status_code == 200, api.text
    assert [r["model_id"] for r in api.json()] == [ckpt, ckpt]


@pytest.mark.parametrize(("model", "task", "ckpt"), CASES)
def test_migrate_names_the_checkpoint(model: str, task: str, ckpt: str, client: TestClient, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("migrate", "cost", "--model", model, "--task", task, "--saving", "1000")
    head = _run_cli(args, monkeypatch, capsys, tmp_path).splitlines()[0]
    assert head.startswith(ckpt + ":"), head
    out = json.loads(_run_cli((*args, "--json"), monkeypatch, capsys, tmp_path))
    assert out["model"] == ckpt and out["preset"]
    api = client.post("/api/migrate", json={"model": model, "task": task, "saving": 1000})
    assert api.status_code == 200, api.text
    assert api.json()["model"] == ckpt  # the page's header fills cli.mig.header's {model} with it (app.js)
    assert api.json() == out  # one answer, money rounded the same


def test_plan_save_stores_the_checkpoint_as_the_api(client: TestClient, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from suanli.store.db import open_store

    body = {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e7}
    saved = json.loads(_run_cli(("plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e7", "--save",
                                 "--json"), monkeypatch, capsys, tmp_path))
    cli_row = open_store().plan(saved["saved_plan_id"])  # SUANLI_HOME: the CLI's store
    api = client.post("/api/plans", json=body, headers={"Authorization": "Bearer t"})
    assert api.status_code == 200, api.text
    api_row = client.get(f"/api/plans/{api.json()['saved_plan_id']}").json()
    assert cli_row["model"] == api_row["model"] == saved["model"] == "Qwen/Qwen2.5-7B"


def test_cli_json_money_equals_the_api(client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """`rent-vs-buy --gpu rtx-4090 --utilization 0.37 --json` gave totals.running_cny 4550.644800000002 (API 4550.64)."""
    cli = json.loads(_run_cli(("rent-vs-buy", "--gpu", "rtx-4090", "--utilization", "0.37", "--json"), monkeypatch,
                              capsys, tmp_path))
    api = client.post("/api/rent-vs-buy", json={"gpu": "rtx-4090", "utilization": 0.37}).json()
    assert cli["totals"]["running_cny"] == 8282.17  # 4550.64 before the host's assumed power was counted
    for k, v in cli.items():
        if not k.endswith("_i18n") and not isinstance(v, str) and k != "assumptions":  # sentences: its language
            assert api[k] == v, k
    assert [{**a, "text": ""} for a in api["assumptions"]] == [{**a, "text": ""} for a in cli["assumptions"]]
    plan = json.loads(_run_cli(("plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e7", "--json"),
                               monkeypatch, capsys, tmp_path))
    totals = [p["total_cost_cny"] for p in plan["plans"]]
    assert totals and all(t == round(t, 2) for t in totals)


def _floats(obj: Any, key: str = "") -> list[tuple[str, float]]:
    if isinstance(obj, float):
        return [(key, obj)]
    if isinstance(obj, dict):
        return [x for k, v in obj.items() for x in _floats(v, str(k))]
    if isinstance(obj, list):
        return [x for v in obj for x in _floats(v, key)]
    return []


def test_message_money_params_are_rounded() -> None:
    """By the message: ¥{cost} an amount, ¥{rent}/card-h and ¥{lo}–¥{hi} per card-hour prices; a name that is money in
    one message (`lo`) is left alone in another (weeks)."""
    assert message_money_params("cli.rvb.header") == {"rent": RATE_DECIMALS, "card": AMOUNT_DECIMALS}
    assert message_money_params("web.rvb_fresh") == {"lo": RATE_DECIMALS, "hi": RATE_DECIMALS}
    assert message_money_params("mig.if_known_error")["saving"] == AMOUNT_DECIMALS
    assert message_money_params("mig.value.effort") == {} and message_money_params("no.such.id") == {}
    msg = {"id": "mig.if_known_error", "params": {"saving": 1234.5678901, "saving_est": 99.999999, "pct": 0.123456}}
    assert round_money({"x_i18n": msg}) == {"x_i18n": {"id": "mig.if_known_error", "params": {
        "saving": 1234.57, "saving_est": 100.0, "pct": 0.123456}}}
    nested = {"id": "list.items", "params": {"items": [{"id": "web.rvb_fresh", "params": {"lo": 1.234567, "hi": 2.0}}]}}
    assert round_money(nested)["params"]["items"][0]["params"]["lo"] == 1.2346
    weeks = {"id": "mig.value.effort", "params": {"lo": 2.123456, "hi": 4.5, "n": 2}}
    assert round_money(weeks) == weeks


def test_cli_json_message_money_rounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """plan --json's reasons carry their cost to the fen (`plan.reason.*`: ¥{cost})."""
    plan = json.loads(_run_cli(("plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e7", "--json"),
                               monkeypatch, capsys, tmp_path))
    costs = [v for k, v in _floats(plan) if k == "cost"]
    assert costs and all(c == round(c, 2) for c in costs)


@pytest.mark.parametrize("key", ["buy_cny_per_year", "rent_cny_per_year_full_use", "power_cny_per_year_full_use",
                                 "rent_cny_per_card_year", "engineer_cny_per_week", "running_cny_per_year",
                                 "total_cost_cny", "cost_cny_max"])
def test_amounts_round_to_the_fen(key: str) -> None:
    assert money_decimals(key) == AMOUNT_DECIMALS
    assert round_money({key: 1234.56789}) == {key: 1234.57}


@pytest.mark.parametrize("key", ["cny_per_card_hour", "effective_cny_per_card_hour", "rent_cny_per_card_hour",
                                 "cny_per_million_tokens", "electricity_cny_per_kwh", "cost_cny_per_hour",
                                 "price_cny_per_hour"])
def test_unit_prices_keep_four_decimals(key: str) -> None:
    assert money_decimals(key) == RATE_DECIMALS
    assert money_decimals("effective_tflops_per_cny_hour") is None
