"""compare answers alike from the CLI and the API (task C 2026-12-03): both price on the store's whole catalog (CLI
`cli.context.planning_catalog`, API `deps.catalog`), and the planner's reduced catalog (`catalog.offers.planning_offers`,
what plan searches) gives compare the same rows, so an imported offer moves both alike; compare with concurrent users
and tokens names the fields given."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_run import run_cli
from fastapi.testclient import TestClient

from suanli.api import Settings, create_app
from suanli.catalog import lookup
from suanli.catalog.offers import planning_offers
from suanli.plan.compare import compare_devices

AUTH = {"Authorization": "Bearer t"}
BODY = {"model": "qwen2.5-14b", "devices": ["h800", "910b"], "gpus": 8, "concurrent_users": 100, "tpot_s": 0.05}
ARGS = ["compare", "--model", "qwen2.5-14b", "--gpu", "h800", "--gpu", "910b", "--gpus", "8", "--concurrent-users",
        "100", "--tpot", "0.05", "--json"]


def _facts(rows: list[dict]) -> list[tuple]:  # type: ignore[type-arg]
    return [(r["device"], r["layout"]["label"], r["cost_cny"], (r["offer"] or {}).get("id") if isinstance(
        r["offer"], dict) else r["offer"], r["max_users"]) for r in rows]


def test_cli_and_api_compare_price_the_same_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str],
                                                   csv_file: Callable[..., tuple[str, bytes]]) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    client = TestClient(create_app(Settings(database_url=url, api_token="t")))
    # an 8-card 910B month cheaper than the packaged listing, and a dearer one of the same shape (planning_offers
    # drops it), imported through the API
    f = csv_file("t-910b-cheap,Acme,910b,8,month,10000,2026-11-01,acme\nt-910b-dear,Acme,910b,8,month,12000,"
                 "2026-11-01,acme\n")
    assert client.post("/api/offers/import", files={"file": f}, headers=AUTH).status_code == 200
    api = client.post("/api/compare", json=BODY)
    assert api.status_code == 200, api.text
    monkeypatch.setenv("SUANLI_DATABASE_URL", url)
    code, out, err = run_cli(ARGS, monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert _facts(api.json()) == _facts(json.loads(out))
    assert any(r["device"] == "ascend-910b" and r["cost_cny"] == 10000 for r in api.json())


def test_planner_catalog_gives_compare_the_same_rows(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-14b")
    kw = dict(gpus=8, concurrent_users=100, tpot_s=0.05)
    assert (_facts(compare_devices(cat, m, ["h800", "910b"], **kw))  # type: ignore[arg-type]
            == _facts(compare_devices(planning_offers(cat), m, ["h800", "910b"], **kw)))  # type: ignore[arg-type]


def test_api_compare_users_and_tokens_names_both(client: TestClient) -> None:
    # before: "give tokens … or requests_per_s", a field the request did not send
    r = client.post("/api/compare", json={**BODY, "tokens": 1e9})
    assert r.status_code in (400, 422), r.text
    text = r.text
    assert "concurrent_users" in text and "tokens" in text and "requests_per_s" not in text


def test_cli_compare_users_and_tokens_names_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([*ARGS[:-1], "--tokens", "1e9"], monkeypatch, capsys, tmp_path)
    assert code != 0 and "--concurrent-users" in err and "--tokens" in err and "--requests-per-s" not in err
    assert len(err.strip().splitlines()) == 1
