"""migrate cost and compare size the bill for the stated serving rate (buyer reviews, task full-rate).

1. `migrate cost --task inference --requests-per-s R` (or `--concurrent-users`): each side is sized and billed for
   the rate as plan does it (`plan.compare._rate_bill`: `plan.search.plan` on that device at the side's precision:
   the cards that carry the rate, whole offers for the serving month); the saving is the difference, not the given
   spend scaled at full capacity (it was ¥40,000 at every rate, "4 × 8 card(s) … 568 h of the work a month each").
   A side plan cannot carry the rate on says so and the verdict is not "worth it".
2. A capacity row that does not carry the rate says so in `batch_rule`, not "batch 1: no configuration meets the
   TPOT target" beside batch 93.
3. compare picks a serving layout its offers rent: H20 on 1-card instances runs 8 × tp1, priced, not an unpriced
   4 × tp2 row.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from cli_run import run_cli

from one_card_h20 import one_card_h20

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.plan.compare import ServingTargets, compare_devices, migration_cost
from suanli.plan.request import make_request
from suanli.plan.search import plan

TODAY = dt.date(2026, 12, 1)
ALL = ("listing", "index", "reference")


def _migrate(rate: float, tpot: float = 0.05, **kw: object) -> dict:
    cat = packaged_catalog()
    m = lookup.model(cat, "qwen2.5-72b")
    return migration_cost(cat, m, "910b", "h800", 100_000.0, task="inference", today=TODAY,
                          targets=ServingTargets(requests_per_s=rate, tpot_s=tpot), **kw)  # type: ignore[arg-type]


def _plan_cost(device: str, rate: float) -> float:
    cat = packaged_catalog()
    m = lookup.model(cat, "qwen2.5-72b")
    # no --precision: plan's own search over the precisions it serves at (task G 2026-12-02: not bf16 pinned)
    req = make_request(model=m.id, task="inference", requests_per_s=rate, tpot_s=0.05, devices=(device,), top=1)
    return plan(cat, m, req, TODAY, precision_up=False).plans[0].cost_cny


@pytest.mark.parametrize("rate", [1.0, 40.0])
def test_each_side_is_billed_for_the_rate_as_plan_bills_it(rate: float) -> None:
    out = _migrate(rate)
    old, new = out["derived"]["h800"]["rate_bill"], out["derived"]["ascend-910b"]["rate_bill"]
    assert old["carried"] and new["carried"]
    assert old["monthly_cost_cny"] == pytest.approx(_plan_cost("h800", rate))
    assert new["monthly_cost_cny"] == pytest.approx(_plan_cost("ascend-910b", rate))
    # the spend is the old side's bill for the rate; the given ¥100,000 is said not to be used
    assert out["monthly_spend_cny"] == pytest.approx(old["monthly_cost_cny"])
    assert not out["monthly_spend_default"] and "not used" in out["monthly_spend_note"]
    assert out["monthly_saving_cny"] == pytest.approx(old["monthly_cost_cny"] - new["monthly_cost_cny"])
    assert "monthly_rent" not in out["derived"]["ascend-910b"]  # no spend scaled at full capacity


def test_saving_follows_the_rate() -> None:
    assert _migrate(1.0)["monthly_saving_cny"] != pytest.approx(_migrate(40.0)["monthly_saving_cny"])


def test_a_rate_no_side_carries_is_not_worth_it() -> None:
    out = _migrate(5.0, tpot=0.012, precision="bf16")  # at fp8 (plan's pick without it) the H800 carries it
    assert not out["derived"]["h800"]["rate_bill"]["carried"]
    assert out["payback_months"] is None and out["monthly_saving_cny"] == 0
    assert out["verdict_i18n"]["id"] == "mig.verdict.not_carried"
    assert "worth it" not in out["verdict"].replace("not worth", "")


def test_batch_rule_says_the_rate_is_not_carried() -> None:
    # a side plan cannot carry the rate on (910B: 56 cards, above max_gpus 16): the rows stay on --gpus' 8 cards,
    # and the 910B's 8-card row says it does not carry 40 requests/s (helper D 2026-12-02: where both sides carry
    # the rate each row is on its bill's cards instead, test_rows_on_the_bills_cards_d1202)
    cat = packaged_catalog()
    out = migration_cost(cat, lookup.model(cat, "qwen2.5-72b"), "910b", "h800", 100_000.0, task="inference",
                         today=TODAY, targets=ServingTargets(requests_per_s=40.0, tpot_s=0.05, max_gpus=16))
    assert not out["derived"]["ascend-910b"]["rate_bill"]["carried"]
    lay = out["derived"]["ascend-910b"]["workload"]
    assert lay["gpus"] == 8 and lay["batch"] > 1
    assert lay["batch_rule_i18n"]["id"] == "mig.batch_rule.not_carried" and "40 requests/s" in lay["batch_rule"]


def test_migrate_takes_concurrent_users_as_plan() -> None:
    cat = packaged_catalog()
    m = lookup.model(cat, "qwen2.5-72b")
    out = migration_cost(cat, m, "910b", "h800", task="inference", today=TODAY,
                         targets=ServingTargets(tpot_s=0.05, ttft_s=2.0, concurrent_users=200))
    rate = make_request(model="x", task="inference", concurrent_users=200, tpot_s=0.05, ttft_s=2.0).requests_per_s
    assert out["derived"]["h800"]["rate_bill"]["requests_per_s"] == pytest.approx(rate)
    assert out["derived"]["h800"]["rate_bill"]["concurrent_users"] == 200
    assert "200 users" in out["workload_note"]


def test_compare_rents_a_narrower_tp_its_offers_hold() -> None:
    cat = one_card_h20()  # the H20 rented one card per instance (its 1-card index row only)
    m = lookup.model(cat, "qwen3-32b")
    rows = {r["device"]: r for r in compare_devices(cat, m, ["h20", "910b", "h800"], gpus=8, concurrent_users=200,
                                                    tpot_s=0.05, ttft_s=2.0, kinds=ALL, today=TODAY)}
    h20 = rows["h20"]
    assert h20["layout"]["tp"] == 1 and h20["layout"]["dp"] == 8
    assert h20["cost_cny"] is not None and h20["no_price"] is None
    assert h20["max_users"] is not None and h20["max_users"] < 200  # tp1's users, not tp2's 232


def test_cli_en_zh_and_api(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                           tmp_path: Path) -> None:
    args = ["migrate", "cost", "--model", "qwen2.5-72b", "--task", "inference", "--from-gpu", "h800", "--to-gpu",
            "910b", "--concurrent-users", "200", "--tpot", "0.05", "--ttft", "2"]
    code, out, err = run_cli([*args, "--json"], monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    cli = json.loads(out)
    code, out, err = run_cli(args, monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    assert "bill for the rate" in out and "as plan sizes it" in out
    code, out, err = run_cli(["--lang", "zh", *args], monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    assert "该请求率的账单" in out
    fastapi = pytest.importorskip("fastapi.testclient")
    from suanli.api import Settings, create_app

    client = fastapi.TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 'a.db'}")))
    r = client.post("/api/migrate", json={"model": "qwen2.5-72b", "task": "inference", "from_gpu": "h800",
                                          "to_gpu": "910b", "concurrent_users": 200, "tpot_s": 0.05, "ttft_s": 2})
    assert r.status_code == 200, r.text
    assert r.json()["monthly_saving_cny"] == pytest.approx(cli["monthly_saving_cny"])
    assert r.json()["derived"]["ascend-910b"]["rate_bill"]["carried"] is True
