"""compare, tco and migrate cost price the job the buyer asked about (inference start-up review, 2026-12-01).

1. A compare row's ¥/card-h and TFLOPS per ¥ are the offer's that priced the row (one offer per row): the 910B's
   云擎天下 month at ¥15,000 is ¥2.57/card-h, not seed-000's reference ¥4.47.
2. A compare row no offer can rent says plan's why-not (`search.no_rent_why`, one function): H20 tp2 on 1-card
   instances "a replica fits from tp 2, 2 cards in one instance", as plan says it.
3. compare takes plan's serving period (--hours/--days, `hours`/`days`; a rate alone: the default month) and bills
   it as plan does: 50 req/s for 30 days costs the same on compare and plan.
4. migrate cost --task inference takes compare's serving targets (--requests-per-s/--tpot/--ttft/--input/--output,
   --precision; MigrateBody's fields): each side's row is compare's for them.
5. tco says its order as it is (plan's offer choice: fresh prices first, then the cheapest)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from cli_run import run_cli
from one_card_h20 import one_card_h20

from suanli.catalog import lookup
from suanli.catalog import offers as offer_q
from suanli.catalog.schema import Catalog
from suanli.errors import InputError
from suanli.plan.compare import ServingTargets, compare_devices, migration_cost
from suanli.plan.request import make_request
from suanli.plan.search import plan

TODAY = dt.date(2026, 12, 1)
ALL = ("listing", "index", "reference")
SERVE = dict(requests_per_s=50.0, input_tokens=1024, output_tokens=300, ttft_s=1.0, tpot_s=0.04)


def _rows(cat: Catalog, devices: list[str], **kw: Any) -> dict[str, dict[str, Any]]:
    args: dict[str, Any] = {"gpus": 8, "precision": "int4", "kinds": ALL, "today": TODAY, **SERVE}
    args.update(kw)
    m = lookup.model(cat, "qwen3-30b-a3b")
    return {r["device"]: r for r in compare_devices(cat, m, devices, **args)}


# 1. one offer per row -------------------------------------------------------------------------------------------


def test_card_hour_price_is_the_rows_offer(cat: Catalog) -> None:
    rows = _rows(cat, ["h20", "h800", "rtx-4090", "910b"])  # the rate's default month (tokens beside it: refused)
    for r in rows.values():
        if r["cost_cny"] is None:
            continue
        o = next(o for o in cat.offers if o.id == r["offer"])
        assert r["cny_per_card_hour"] == pytest.approx(offer_q.card_hour_price(o))
        assert r["card_hour_billing_unit"] == o.billing_unit
        assert r["offer_facts"]["offer"] == r["offer"]
        assert r["effective_tflops_per_cny_hour"] == pytest.approx(  # per ¥ of the job's price (audit 2026-12-01)
            r["dense_tflops"] * r["scaling_efficiency"] / r["job_cny_per_card_hour"])
    b = rows["ascend-910b"]
    assert b["offer"] == "omniyq-910b-8card-month" and b["cny_per_card_hour"] == pytest.approx(15_000 / 8 / 730)


def test_row_without_a_bill_names_the_offer_its_price_is(cat: Catalog) -> None:
    """No hours (a training compare without tokens): the ¥/card-h is one offer's that can rent the job, named."""
    m = lookup.model(cat, "qwen2.5-7b")
    for r in compare_devices(cat, m, ["h800", "910b"], task="lora", gpus=8, today=TODAY):
        assert r["cost_cny"] is None and r["offer"] is not None
        o = next(o for o in cat.offers if o.id == r["offer"])
        assert r["cny_per_card_hour"] == pytest.approx(offer_q.card_hour_price(o))


# 2. plan's why-not ----------------------------------------------------------------------------------------------


def test_unrentable_row_says_plans_why_not(cat: Catalog) -> None:
    cat = one_card_h20(cat)  # the H20 rented one card per instance (its 1-card index row only)
    rows = _rows(cat, ["h20", "h800"], precision="int8", tp=2, input_tokens=None, output_tokens=None, ttft_s=None,
                 tpot_s=None)
    h20 = rows["h20"]
    assert h20["cost_cny"] is None
    why = h20["no_price_i18n"]["params"]["why"]
    assert why["id"] == "why.serve_no_instance" and why["params"] == {"tp": 2, "largest": 1}
    assert "2 cards in one instance" in h20["no_price"] and "no usable offer can hold" not in h20["no_price"]
    m = lookup.model(cat, "qwen3-30b-a3b")
    req = make_request(model=m.id, task="inference", gpus=8, tp=2, precision="int8", requests_per_s=50.0,
                       devices=("h20",), offer_kinds=ALL)
    res = plan(cat, m, req, TODAY)
    assert not res.plans
    assert any("2 cards in one instance" in json.dumps(w) for w in res.why_not), res.why_not


# 3. serving period ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["h800", "h20"])
def test_compare_bills_30_days_of_serving_as_plan(cat: Catalog, device: str) -> None:
    rows = _rows(cat, [device, "910b"], days=30.0)
    r = rows[lookup.accelerator(cat, device).id]
    m = lookup.model(cat, "qwen3-30b-a3b")
    req = make_request(model=m.id, task="inference", gpus=8, tp=r["layout"]["tp"], precision="int4",
                       requests_per_s=50.0, input=1024, output=300, ttft_s=1.0, tpot_s=0.04, days=30.0,
                       devices=(device,), offer_kinds=ALL)
    best = plan(cat, m, req, TODAY).plans[0]
    assert r["hours"] == pytest.approx(best.hours) == pytest.approx(720.0)
    assert r["cost_cny"] == pytest.approx(best.cost_cny)
    assert r["offer"] == best.offer
    assert r["period_note_i18n"]["id"] == "plan.assume.period_given"


def test_rate_alone_bills_plans_default_month_and_tokens_beside_it_are_refused(cat: Catalog) -> None:
    rows = _rows(cat, ["h800", "910b"])
    assert rows["h800"]["hours"] == pytest.approx(730.0)
    with pytest.raises(InputError) as e:  # a job's tokens or a served rate, not both: plan's rule (2026-12-02; the
        _rows(cat, ["h800", "910b"], tokens=3.888e10)  # tokens were taken and ignored, the month billed)
    assert e.value.field == "tokens"
    assert rows["h800"]["period_note_i18n"]["id"] == "plan.assume.period"
    hours = _rows(cat, ["h800", "910b"], hours=100.0)["h800"]
    assert hours["hours"] == pytest.approx(100.0)


def test_serving_period_refusals(cat: Catalog) -> None:
    m = lookup.model(cat, "qwen2.5-7b")
    with pytest.raises(InputError) as e:
        compare_devices(cat, m, ["h800", "910b"], task="lora", gpus=8, tokens=1e8, hours=10.0, today=TODAY)
    assert e.value.field == "hours"
    with pytest.raises(InputError) as e:
        compare_devices(cat, m, ["h800", "910b"], gpus=8, requests_per_s=5.0, hours=10.0, days=1.0, today=TODAY)
    assert e.value.field == "hours"
    with pytest.raises(InputError) as e:  # a job's tokens or a period, not both (no rate)
        compare_devices(cat, m, ["h800", "910b"], gpus=8, tokens=1e8, days=1.0, today=TODAY)
    assert e.value.field == "days"


def test_compare_days_cli_en_zh_and_api(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    args = ["compare", "--model", "qwen3-30b-a3b", "--gpu", "h800", "--gpu", "910b", "--gpus", "8",
            "--requests-per-s", "50", "--precision", "int4", "--days", "30", "--offer-kinds", "all"]
    code, out, err = run_cli([*args, "--json"], monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    cli = {r["device"]: r for r in json.loads(out)}
    assert cli["h800"]["hours"] == pytest.approx(720.0) and cli["h800"]["cost_cny"] == pytest.approx(8 * 720 * 8.88)
    code, out, err = run_cli(args, monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    assert "serving period 720.0 h, as given (--hours/--days)" in out
    code, out, err = run_cli(["--lang", "zh", *args], monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    assert "服务时长" in out or "服务期" in out
    fastapi = pytest.importorskip("fastapi.testclient")
    from suanli.api import Settings, create_app

    client = fastapi.TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 'a.db'}")))
    r = client.post("/api/compare", json={"model": "qwen3-30b-a3b", "devices": ["h800", "910b"], "gpus": 8,
                                          "requests_per_s": 50, "precision": "int4", "days": 30,
                                          "offer_kinds": ["listing", "index", "reference"]})
    assert r.status_code == 200, r.text
    api = {x["device"]: x for x in r.json()}
    for dev in ("h800", "ascend-910b"):
        assert api[dev]["cost_cny"] == pytest.approx(cli[dev]["cost_cny"])
        assert api[dev]["cny_per_card_hour"] == pytest.approx(cli[dev]["cny_per_card_hour"])


# 4. migrate cost takes compare's serving targets ----------------------------------------------------------------


def test_migrate_inference_takes_compares_serving_targets(cat: Catalog) -> None:
    m = lookup.model(cat, "qwen3-30b-a3b")
    tg = ServingTargets(50.0, 0.04, 1.0, 1024, 300)
    out = migration_cost(cat, m, "910b", "h800", task="inference", kinds=ALL, today=TODAY, precision="int4",
                         targets=tg)
    for dev in ("h800", "ascend-910b"):
        d = out["derived"][dev]
        # a rate both sides carry: the side's row is the layout its bill is computed for (0256ebf, `_bill_row`), on
        # the cards the bill rents, no longer compare's own search over every tp on those cards
        bill, lay = d["rate_bill"], d["workload"]
        assert (lay["gpus"], lay["tp"], lay["ep"], lay["served_batch"]) == (bill["gpus"], bill["tp"], bill["ep"],
                                                                              bill["batch"])
        assert d["tokens_per_s_8_cards"] > 0 and lay["batch"] >= bill["batch"]
        assert d["workload"]["tpot_target_s"] == 0.04 and d["workload"]["requests_per_s"] == 50.0
    assert out["workload_note_i18n"]["id"] == "mig.workload.serving_targets_rate"
    plain = migration_cost(cat, m, "910b", "h800", task="inference", kinds=ALL, today=TODAY)
    assert plain["derived"]["h800"]["workload"]["tpot_target_s"] == 0.2  # no targets: compare's default, as before
    assert plain["monthly_saving_cny"] != out["monthly_saving_cny"]


def test_migrate_serving_targets_refused_for_training(cat: Catalog) -> None:
    m = lookup.model(cat, "qwen2.5-7b")
    with pytest.raises(InputError) as e:
        migration_cost(cat, m, "910b", "h800", task="lora", today=TODAY, targets=ServingTargets(tpot_s=0.05))
    assert e.value.field == "tpot_s"
    with pytest.raises(InputError) as e:
        migration_cost(cat, m, "910b", "h800", task="lora", today=TODAY, targets=ServingTargets(output_tokens=100))
    assert e.value.field == "output"


def test_migrate_flags_cli_en_zh_and_api(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    args = ["migrate", "cost", "--model", "qwen3-30b-a3b", "--task", "inference", "--from-gpu", "h800",
            "--to-gpu", "910b", "--requests-per-s", "50", "--tpot", "0.04", "--ttft", "1", "--input", "1024",
            "--output", "300", "--precision", "int4", "--offer-kinds", "all"]
    code, out, err = run_cli([*args, "--json"], monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    cli = json.loads(out)
    assert cli["derived"]["h800"]["workload"]["tpot_target_s"] == 0.04
    code, out, err = run_cli(args, monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    assert "serves 50 requests/s at batch" in out and "40 ms" in out
    code, out, err = run_cli(["--lang", "zh", *args], monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    assert "请求/秒" in out
    code, out, err = run_cli(["migrate", "cost", "--model", "qwen2.5-7b", "--task", "lora", "--tpot", "0.05"],
                             monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code != 0 and "--task inference" in err
    fastapi = pytest.importorskip("fastapi.testclient")
    from suanli.api import Settings, create_app

    client = fastapi.TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 'a.db'}")))
    r = client.post("/api/migrate", json={"model": "qwen3-30b-a3b", "task": "inference", "from_gpu": "h800",
                                          "to_gpu": "910b", "requests_per_s": 50, "tpot_s": 0.04, "ttft_s": 1,
                                          "input": 1024, "output": 300, "precision": "int4",
                                          "offer_kinds": ["listing", "index", "reference"]})
    assert r.status_code == 200, r.text
    assert r.json()["monthly_saving_cny"] == pytest.approx(cli["monthly_saving_cny"])


# 5. tco says its order -------------------------------------------------------------------------------------------


def test_tco_says_stale_offers_follow_fresh_ones(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    args = ["tco", "--gpu", "rtx-4090", "--gpus", "8", "--hours", "120", "--offer-kinds", "all"]
    code, out, err = run_cli([*args, "--json"], monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    rows = json.loads(out)
    # plan's order: one-job offers first; within them fresh before stale; then cheapest
    keys = [(not r["one_job"], r["stale"] is not None, r["cost_cny"]) for r in rows]
    assert keys == sorted(keys) and any(r["stale"] for r in rows)
    code, out, err = run_cli(args, monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    flat = " ".join(out.split())
    assert "offers older than 12 months: listed after the fresh ones" in flat
    assert "cannot hold the 8 cards as one job" in flat
    code, out, err = run_cli(["--lang", "zh", *args], monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    assert "旧报价排在新报价之后" in "".join(out.split())
    code, out, err = run_cli(["tco", "--help"], monkeypatch, capsys, tmp_path)
    assert "cheapest first." not in out
