"""POST /api/rent-vs-buy (webmig 2026-12-01): the answer of `suanli rent-vs-buy --json` (one computation,
`views.rent_vs_buy`), its inputs bounded, refusals in the API's one error shape naming the request's own fields,
sentences in the request's language, and the route in /openapi.json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from suanli.api import Settings, create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    db = tmp_path_factory.mktemp("rvb") / "s.db"
    return TestClient(create_app(Settings(database_url=f"sqlite:///{db}")))


def _shape(body: dict[str, object], field: str) -> None:
    assert set(body) == {"error", "field", "errors", "error_i18n"}, body
    assert body["field"] == field and body["error_i18n"], body
    assert body["errors"][0]["field"] == field and body["errors"][0]["in"] == "body", body  # type: ignore[index]


def test_equals_the_cli_json(client: TestClient) -> None:
    """The L20 at 50 %: the hourly offer for the hours in use (¥68,854), break-even 18.8 % (the host's assumed power counted), the year's rent from the
    monthly listing — the same JSON as `suanli rent-vs-buy --json` for the same options."""
    r = client.post("/api/rent-vs-buy", json={"gpu": "l20", "utilization": 0.5, "cards": 8, "server_share": 0})
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["rent_at_utilization_cny"] == pytest.approx(68853.6)
    assert got["break_even_utilization"] == pytest.approx(0.1877, abs=1e-4)
    assert got["rent_offer"]["offer"] == "ctyun-l20-1card-month" and got["rent_offer"]["date"]
    assert got["totals"]["cards"] == 8 and got["totals"]["years"] == 3
    assert got["totals"]["rent_cny"] == pytest.approx(got["rent_at_utilization_cny"] * 24, abs=0.01)
    cli = subprocess.run([sys.executable, "-m", "suanli.cli.main", "rent-vs-buy", "--gpu", "l20", "--utilization",
                          "0.5", "--cards", "8", "--server-share", "0", "--json"], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).parents[3])
    want = json.loads(cli.stdout)
    for k in ("rent_cny_per_year_full_use", "buy_cny_per_year", "capex_cny", "break_even_utilization",
              "rent_at_utilization_cny", "buy_at_utilization_cny", "cheaper", "rent_at_utilization_offer",
              "rent_from", "card_cny", "server_share_cny", "totals"):
        assert got[k] == want[k], k  # money rounded by one rule on both (views.money.round_money): equal, not approx


def test_commitment_and_server_share(client: TestClient) -> None:
    """The 910B: the eight-card month rented all year, a server share from the catalog's 8-card server."""
    got = client.post("/api/rent-vs-buy", json={"gpu": "910b", "cards": 8}).json()
    assert got["cheaper"] == "rent" and got["break_even_utilization"] is None
    assert got["server_cards"] == 8 and got["server_share_note"] and got["server_share_note_i18n"]["id"]
    assert got["commitment_note"] is None  # the 910B month is no multi-year contract


@pytest.mark.parametrize(("body", "status", "field"), [
    ({"gpu": "l20", "utilization": 5e-4}, 422, "utilization"),
    ({"gpu": "l20", "utilization": 1.5}, 422, "utilization"),
    ({"gpu": "l20", "years": 0}, 422, "years"),
    ({"gpu": "l20", "cards": 0}, 422, "cards"),
    ({"gpu": "l20", "use_pattern": "weekends"}, 422, "use_pattern"),
    ({"gpu": "l20", "utilization": "half"}, 422, "utilization"),
    ({"gpu": "l20", "surprise": 1}, 422, "surprise"),
    ({"gpu": "h100"}, 422, "rent_price"),  # no Chinese listing for the H100: named by the request's field
    ({"gpu": "rtx-4090", "cards": 8}, 422, "cards"),  # the catalog's 4090 server holds 1
    ({"gpu": "nonexistent"}, 404, "gpu"),
])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_refused_in_one_shape(client: TestClient, body: dict[str, object], status: int, field: str,
                              lang: str) -> None:
    r = client.post(f"/api/rent-vs-buy?lang={lang}", json=body)
    assert r.status_code == status, r.text
    _shape(r.json(), field)


def test_chinese(client: TestClient) -> None:
    got = client.post("/api/rent-vs-buy?lang=zh", json={"gpu": "l20", "server_share": 0}).json()
    assert "买卡更划算" in got["break_even_note"] and "租用" in got["rent_at_utilization_note"]
    err = client.post("/api/rent-vs-buy", json={"gpu": "l20", "utilization": 5e-4},
                      headers={"Accept-Language": "zh-CN"}).json()
    assert "必须" in err["error"]


def test_in_openapi(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    op = spec["paths"]["/api/rent-vs-buy"]["post"]
    assert op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("RentVsBuyAnswer")
    body = spec["components"]["schemas"]["RentVsBuyBody"]["properties"]
    assert body["utilization"]["minimum"] == 0.001 and body["utilization"]["maximum"] == 1
