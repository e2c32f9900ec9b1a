"""Loose ends from the README review (2026-12-01).

3. A serving tp that vLLM-Ascend's head rule refuses and MindIE pads: the relax line names both ways out, drop --tp 8
   or use --framework mindie (en, zh; the page and the API the request's fields).
4. A pinned vpp that no searched pp splits the layers for: POST /api/plan refuses it naming `vpp`, as `suanli plan`
   does (views.bounds.check_vpp), instead of answering "no plan".
5. `migrate cost` says when the calibration file's factors went into the saving it derived, as plan and compare do.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.catalog.schema import EfficiencyFactor
from suanli.cli.main import app
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan

SERVE_TP8 = dict(model="qwen2.5-7b", task="inference", requests_per_s=5, tp=8, devices=("910b",), region="cn")


# ------------------------------------------------------------------------------ 3. drop --tp 8 or use --framework mindie
def test_relax_names_mindie_where_it_pads_the_heads(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    r = plan(cat, m, make_request(**SERVE_TP8))
    assert not r.plans and [x["id"] for x in r.relax_i18n] == ["relax.drop_pin"]
    msg = Message.from_json(r.relax_i18n[0])
    assert "drop --tp 8 or use --framework mindie (see" in render(msg, "en")
    assert "去掉 --tp 8，或改用 --framework mindie（见" in render(msg, "zh")
    web = render(msg, "en", "web")
    assert "--" not in web and "tp 8" in web and "mindie" in web
    # the way out is real: with MindIE the same request plans, at tp 8
    ok = plan(cat, m, make_request(**SERVE_TP8, framework="mindie"))
    assert ok.plans and ok.plans[0].tp == 8


def test_relax_names_no_engine_where_none_pads(cat) -> None:  # type: ignore[no-untyped-def]
    # training under MindSpeed-LLM: no padding engine beside it, so only the pin to drop
    r = plan(cat, lookup.model(cat, "qwen2.5-7b"),
             make_request(model="qwen2.5-7b", task="lora", tokens=1e8, tp=8, devices=("910b",)))
    assert not r.plans
    text = render(Message.from_json(r.relax_i18n[0]), "en")
    assert "drop --tp 8 (see" in text and "mindie" not in text


# ------------------------------------------------------------------------------ 4. vpp on the API as on the CLI
def test_api_refuses_a_vpp_no_pp_splits_the_layers_for(tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the service extra (make test installs it)")
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app

    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 'suanli.db'}", api_token=None)))
    body = {"model": "qwen2.5-7b", "task": "full", "tokens": 1e9, "framework": "megatron", "vpp": 3}
    r = client.post("/api/plan", json=body)
    assert r.status_code == 422, r.text
    err = r.json()
    assert "vpp that runs: 1, 2, 7, 14" in json.dumps(err), err
    zh = client.post("/api/plan?lang=zh", json=body)
    assert zh.status_code == 422 and "可运行的 vpp：1、2、7、14" in zh.json()["error"], zh.text
    assert client.post("/api/plan", json={**body, "vpp": 2}).status_code == 200  # 28 layers = pp 2 × vpp 2 × 7


# ------------------------------------------------------------------------------ 5. migrate cost says its calibration
@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from suanli.bench.feedback import save_calibration

    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))
    monkeypatch.setenv("SUANLI_TODAY", "2026-12-01")
    save_calibration([EfficiencyFactor(id="c", metric="matmul", device="ascend-910b", value=0.40, source="measured:t")])
    return tmp_path


MIGRATE = ["migrate", "cost", "--model", "qwen2.5-14b", "--from-gpu", "h100", "--to-gpu", "910b",
           "--offer-kinds", "listing,index"]


def test_migrate_cost_says_it_used_the_calibration_file(home: Path) -> None:
    run = CliRunner()
    en = run.invoke(app, ["--lang", "en", *MIGRATE], env={"COLUMNS": "400"})
    assert en.exit_code == 0, en.output
    assert "assumed: efficiency calibrated from your measurements" in en.output and "measured:t" in en.output
    zh = run.invoke(app, ["--lang", "zh", *MIGRATE], env={"COLUMNS": "400"})
    assert zh.exit_code == 0 and "假设：效率按你的实测校准" in zh.output, zh.output
    js = json.loads(run.invoke(app, [*MIGRATE, "--json"], env={"COLUMNS": "400"}).output)
    assert js["calibration_i18n"]["id"] == "plan.assume.calibrated" and "measured:t" in js["calibration"]
    given = json.loads(run.invoke(app, [*MIGRATE, "--saving", "20000", "--json"]).output)
    assert given["calibration"] is None  # a given saving estimated nothing


def test_migrate_cost_without_calibration_says_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))
    out = CliRunner().invoke(app, ["--lang", "en", *MIGRATE], env={"COLUMNS": "400"})
    assert out.exit_code == 0 and "calibrated" not in out.output
