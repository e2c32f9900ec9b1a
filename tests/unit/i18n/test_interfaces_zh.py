"""Chinese on every interface (third pass): API answers rendered by `?lang=zh` / Accept-Language through one rule
(`i18n.localize`), errors that carry a message (`SuanliError.i18n`) in the CLI's and the API's language with the
English text unchanged, the page's strings in both catalogs, and the CLI's remaining commands (plans, bench, db)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from suanli.cli.main import app
from suanli.errors import InputError, NotFoundError, error_text
from suanli.i18n import Message, localize, messages

WEB = Path(__file__).resolve().parents[3] / "src" / "suanli" / "web" / "static"
_HAN = re.compile(r"[\u4e00-\u9fff]")


def _cli(lang: str, *args: str, home: Path) -> Any:
    return CliRunner().invoke(app, ["--lang", lang, *args], env={"COLUMNS": "200", "SUANLI_HOME": str(home)})


# ---- one rule for API answers ------------------------------------------------------------------------------------

def test_localize_renders_text_beside_its_message_and_keeps_english() -> None:
    answer = {"stale": "old", "stale_i18n": Message("error.no_plan").to_json(),
              "rows": [{"notes": ["a"], "notes_i18n": [Message("error.no_plan").to_json()]}], "other": "x"}
    zh = localize(answer, "zh")
    assert zh["stale"] == "没有满足约束的方案" and zh["rows"][0]["notes"] == ["没有满足约束的方案"]
    assert zh["stale_i18n"] == answer["stale_i18n"] and zh["other"] == "x"
    en = localize(answer, "en")  # English is rendered too (on the API's surface: inputs named by their JSON fields)
    assert en["stale"] == messages("en")["error.no_plan"] and en["other"] == "x" and en["stale_i18n"] == answer["stale_i18n"]


# ---- errors carry a message ----------------------------------------------------------------------------------------

def test_not_found_error_english_unchanged_and_zh() -> None:
    e = NotFoundError("gpu", "h10", ["h100", "h20"])
    assert str(e) == "gpu: unknown gpu 'h10'. Did you mean: h100, h20?"
    assert error_text(e, "en") == str(e)
    assert error_text(e, "zh") == "gpu: 未知的加速卡：'h10'。你是不是要找：h100、h20？"
    assert error_text(InputError("x", "plain"), "zh") == "x: plain"  # no message: the English line


def test_cli_errors_in_zh(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "suanli.cli.main", "--lang", "zh", "plans", "--show", "1"],
                       capture_output=True, text=True, env={**os.environ, "SUANLI_HOME": str(tmp_path)})
    assert r.returncode == 2 and "错误：方案：未知的方案：'1'。" in r.stderr
    args = ("migrate", "cost", "--model", "qwen2.5-14b", "--from-gpu", "h100", "--to-gpu", "910b", "--monthly-spend",
            "100000")
    e = _cli("zh", *args, home=tmp_path).exception
    assert isinstance(e, InputError) and str(e).startswith("saving: no cn (Chinese platforms) listing price for h100-sxm")
    zh = error_text(e, "zh")  # the one short line, no second one repeating "--saving" (the catalog's account)
    assert zh.startswith("saving: h100-sxm 没有国内平台的挂牌价格") and "derive" not in zh and "--offer-kinds" in zh
    assert e.detail is None and zh.count("--saving") == 1


def test_cli_plans_bench_db_zh(tmp_path: Path) -> None:
    assert _cli("zh", "plan", "--file", "examples/lora-7b.yaml", "--save", home=tmp_path).exit_code == 0
    out = _cli("zh", "plans", home=tmp_path).stdout
    assert "已保存的方案" in out and "最佳方案" in out and "Saved plans" not in out
    assert "Saved plans in" in _cli("en", "plans", home=tmp_path).stdout
    out = _cli("zh", "db", "info", home=tmp_path).stdout
    assert "数据库：" in out and "型号库版本" in out and "database:" not in out
    out = _cli("zh", "bench", "list", home=tmp_path).stdout
    assert "没有已保存的测试结果" in out and "no stored results" not in out


# ---- the API -----------------------------------------------------------------------------------------------------

fastapi = pytest.importorskip("fastapi", reason="the API is the optional `service` extra; `make test` installs it, so CI runs this")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app

    db = tmp_path_factory.mktemp("api") / "suanli.db"
    return TestClient(create_app(Settings(database_url=f"sqlite:///{db}", api_token=None)))


def test_api_compare_tco_migrate_scenario_zh(client: Any) -> None:
    body = {"model": "qwen2.5-72b", "devices": ["h100", "910b"], "gpus": 8}  # the H100: no Chinese listing
    en = client.post("/api/compare", json=body).json()
    zh = client.post("/api/compare?lang=zh", json=body).json()
    assert [r.get("no_price_i18n") for r in en] == [r.get("no_price_i18n") for r in zh]
    unpriced = [r for r in zh if r.get("no_price")]
    assert unpriced and all("没有国内平台的挂牌报价" in r["no_price"] for r in unpriced)
    assert all("no cn listing offer" in r["no_price"] for r in en if r.get("no_price"))

    tco = client.post("/api/tco", json={"gpu": "910b", "gpus": 8, "hours": 300},
                      headers={"Accept-Language": "zh-CN,zh;q=0.9"}).json()
    assert any(_HAN.search(" ".join(r.get("notes") or [])) for r in tco)

    mig = {"model": "qwen2.5-14b", "from_gpu": "h100", "to_gpu": "910b", "monthly_spend": 100000,
           "offer_kinds": ["listing", "index"]}
    zh_m = client.post("/api/migrate?lang=zh", json=mig).json()
    en_m = client.post("/api/migrate", json=mig).json()
    assert _HAN.search(zh_m["verdict"]) and _HAN.search(zh_m["weeks_reason"])
    assert not _HAN.search(en_m["verdict"]) and zh_m["verdict_i18n"] == en_m["verdict_i18n"]

    s = client.get("/api/scenarios/research-xinchuang?lang=zh").json()
    assert _HAN.search(s["explanation"]) and s["explanation_i18n"]["id"].startswith("scn.")


def test_api_errors_zh(client: Any) -> None:
    r = client.post("/api/tco?lang=zh", json={"gpu": "h10", "gpus": 8, "hours": 3})
    assert r.status_code == 404 and r.json()["error"].startswith("gpu: 未知的加速卡：'h10'。")
    assert r.json()["error_i18n"]["id"] == "error.unknown_hint"
    r = client.post("/api/tco", json={"gpu": "h10", "gpus": 8, "hours": 3})
    assert r.json()["error"].startswith("gpu: unknown gpu 'h10'. Did you mean") and "error_i18n" in r.json()
    r = client.post("/api/migrate", json={"model": "qwen2.5-14b", "from_gpu": "h100", "to_gpu": "910b",
                                         "monthly_spend": 100000}, headers={"Accept-Language": "zh"})
    assert r.status_code == 422 and r.json()["error"].startswith("saving: 无法推算")


# ---- the page ----------------------------------------------------------------------------------------------------

def test_page_strings_have_chinese() -> None:
    """Every `data-i18n` key of the page and every `t("…")` of app.js is `web.<key>` in both catalogs."""
    html = (WEB / "index.html").read_text(encoding="utf-8")
    js = (WEB / "app.js").read_text(encoding="utf-8")
    keys = set(re.findall(r'data-i18n(?:-label|-placeholder|-title)?="([^"]+)"', html))
    keys |= set(re.findall(r'\bt\("([a-z_0-9]+)"', js))
    zh, en = messages("zh"), messages("en")
    missing = sorted(k for k in keys if not k.endswith("_") and (f"web.{k}" not in zh or f"web.{k}" not in en))
    assert missing == []
