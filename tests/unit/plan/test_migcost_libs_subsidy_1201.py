"""Task full-migsub (2026-12-01): `migrate cost` and POST /api/migrate count the CUDA-era libraries as `migrate check`
does (`--uses` / `uses`, and a config.json's quant_method / attn_implementation), through the one
`plan.search.migration_weeks`, so check and cost give the same weeks for the same model and libraries; and
`--subsidy` shows the domestic side's gross and net as tco does (`plan.cost.job_cost` → `subsidy_note`), en and zh."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog.hf_config import to_hf_config
from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import model as lookup_model
from suanli.catalog.lookup import stack as lookup_stack
from suanli.errors import InputError
from suanli.migrate.libraries import resolve_uses
from suanli.plan.compare import migration_cost
from suanli.plan.search import migration_weeks

COST = ["migrate", "cost", "--model", "qwen2.5-7b", "--from-gpu", "h800"]


@pytest.mark.parametrize("uses", [[], ["flash-attn"], ["deepspeed"], ["bitsandbytes", "flash-attn"]])
def test_migrate_cost_charges_the_libraries(uses: list[str]) -> None:
    """migrate cost's weeks are `migration_weeks`' for the libraries (check = cost: tests/unit/migrate/test_effort_one_rule.py)."""
    cat = packaged_catalog()
    m = lookup_model(cat, "qwen2.5-7b")
    lo, hi, why = migration_weeks(cat, lookup_stack(cat, "cann"), m, resolve_uses(uses), task="full")
    assert (why.id == "migration.adapted_libraries") == any(u.blocks for u in resolve_uses(uses))
    out = migration_cost(cat, m, "ascend-910b", "h800", saving=1000.0, libraries=resolve_uses(uses))
    assert tuple(out["calendar_weeks"]) == (lo, hi)
    assert [u["id"] for u in out["libraries"]] == [u.id for u in resolve_uses(uses)]


def test_no_list_stack_keeps_its_range() -> None:  # the libraries are Ascend's: a DTK range is the catalog's own
    cat = packaged_catalog()
    m = lookup_model(cat, "qwen2.5-7b")
    dtk = lookup_stack(cat, "dtk")
    assert (migration_weeks(cat, dtk, m, resolve_uses(["flash-attn"]), task="full")[:2]
            == migration_weeks(cat, dtk, m, task="full")[:2])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_uses(lang: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                  tmp_path: Path) -> None:
    code, out, err = run_cli(["--lang", lang, *COST, "--uses", "flash-attn,deepspeed"], monkeypatch, capsys, tmp_path,
                             today="2026-12-01")
    assert code == 0, err
    if lang == "en":
        assert "2–4 weeks × 2 engineers" in out and "no NPU build (flash-attn)" in out
        assert "flash-attn (no NPU build; replace it), deepspeed (runs on Ascend)" in out
    else:
        assert "2–4 周 × 2 名工程师" in out and "没有 NPU 版本的库（flash-attn）" in out
        assert "依赖库" in out and "flash-attn（没有 NPU 版本，需替换）" in out
    code, out, err = run_cli(["--lang", lang, *COST, "--uses", "flash-atn"], monkeypatch, capsys, tmp_path)
    assert code == 2 and "--uses" in err and "flash-attn" in err  # resolve_uses' refusal and its did-you-mean


def test_cli_config_json_libraries_and_same_weeks_as_check(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cfg = dict(to_hf_config(lookup_model(packaged_catalog(), "qwen2.5-7b")))
    cfg["attn_implementation"] = "flash_attention_2"
    path = tmp_path / "q7" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(cfg), encoding="utf-8")
    code, out, err = run_cli(["migrate", "cost", "--model", str(path), "--from-gpu", "h800", "--saving", "1000",
                              "--json"], monkeypatch, capsys, tmp_path)
    assert code == 0, err
    cost = json.loads(out)
    assert cost["calendar_weeks"] == [2.0, 4.0]
    assert [(u["id"], u["via"]) for u in cost["libraries"]] == [("flash-attn", "attn_implementation flash_attention_2")]
    assert migration_weeks(packaged_catalog(), lookup_stack(packaged_catalog(), "cann"),
                           lookup_model(packaged_catalog(), "qwen2.5-7b"), task="full")[:2] == (1.0, 2.0)  # without it


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_subsidy_gross_and_net(lang: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                   tmp_path: Path) -> None:
    code, out, err = run_cli([*COST, "--subsidy", "0.25", "--json"], monkeypatch, capsys, tmp_path,
                             today="2026-12-01")
    assert code == 0, err
    d = json.loads(out)
    dom, src = d["derived"]["ascend-910b"], d["derived"]["h800"]
    assert "subsidy" not in src  # the domestic side only
    hours = 12 * 730
    assert dom["horizon_hours"] == pytest.approx(hours)
    assert dom["gross_cost_cny"] == pytest.approx(8 * hours * dom["cny_per_card_hour"], rel=1e-4)  # JSON rounds ¥/card-h
    assert dom["cost_cny"] == pytest.approx(dom["gross_cost_cny"] * 0.75)
    assert dom["subsidy"] == 0.25 and dom["subsidy_note_i18n"]["id"] == "cost.subsidy"
    gross, net = dom["gross_cost_cny"], dom["cost_cny"]
    code, out, err = run_cli(["--lang", lang, *COST, "--subsidy", "0.25"], monkeypatch, capsys, tmp_path,
                             today="2026-12-01")
    assert code == 0, err
    money = f"¥{gross:,.0f} → ¥{net:,.0f}"
    if lang == "en":
        assert f"subsidy 25 % of domestic compute: {money} — Huawei Ascend 910B's rent over the 12-month" in out
    else:
        assert f"国产算力补贴 25%：{money}——华为昇腾 910B 在 12" in out
    code, out, err = run_cli([*COST], monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0 and "subsidy" not in out  # no subsidy, no line


def test_api_uses_and_subsidy(tmp_path: Path) -> None:
    fastapi = pytest.importorskip("fastapi.testclient")
    from suanli.api import Settings, create_app

    client = fastapi.TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 'a.db'}")))
    body = {"model": "qwen2.5-7b", "from_gpu": "h800", "subsidy": 0.25, "uses": ["flash-attn"]}
    r = client.post("/api/migrate", json=body)
    assert r.status_code == 200, r.text
    d = r.json()
    cat = packaged_catalog()
    want = migration_cost(cat, lookup_model(cat, "qwen2.5-7b"), "ascend-910b", "h800", subsidy=0.25,
                          libraries=resolve_uses(["flash-attn"]))
    assert d["calendar_weeks"] == [2.0, 4.0] == list(want["calendar_weeks"])
    assert d["libraries"][0]["id"] == "flash-attn" and d["libraries"][0]["status"] in ("replace", "none")
    dom = d["derived"]["ascend-910b"]
    assert dom["gross_cost_cny"] == pytest.approx(want["derived"]["ascend-910b"]["gross_cost_cny"])
    assert dom["cost_cny"] == pytest.approx(dom["gross_cost_cny"] * 0.75)
    r = client.post("/api/migrate?lang=zh", json={**body, "uses": ["flash-atn"]})
    assert r.status_code in (400, 422), r.text
    assert "uses" in r.text and "flash-attn" in r.text
    r = client.post("/api/migrate", json={**body, "uses": [f"x{i}" for i in range(13)]})
    assert r.status_code in (400, 422) and "uses" in r.text
    with pytest.raises(InputError):
        resolve_uses([f"x{i}" for i in range(13)])
