"""Buyer review 5 (2026-12-01), defects 5, 6 and 9: no English words outside names in `--lang zh` output of the
offers import flow (row errors, the price-band refusal, the summary, `offers imports`), `compare`'s layouts,
`migrate check`'s status column and `scenarios`' lines; row errors in the API's request language; the guard's
refusals carry `error_i18n`; seconds shown as ms/µs; `rent-vs-buy` states its years; `estimate` prints set-up and
total for a training job."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from suanli.cli.main import app
from suanli.store.importer import CSV_COLUMNS

from .test_errors_zh import english_words

_HEAD = "id,provider,device,cards,billing_unit,price_cny,date,source\n"
_NAMES = {"autodl", "AutoDL", "rollback", "offers", "suanli", "import", "sources"}  # a provider, commands, sections


def _words(text: str) -> list[str]:
    """English words outside names: test_errors_zh's measure, CSV column names and commands allowed."""
    return [w for w in english_words(text) if w not in CSV_COLUMNS and w not in _NAMES]


def _run(home: Path, lang: str, *args: str) -> Any:
    return CliRunner().invoke(app, ["--lang", lang, *args], env={"COLUMNS": "200", "SUANLI_HOME": str(home)})


def _csv(tmp_path: Path, name: str, *rows: str) -> str:
    p = tmp_path / name
    p.write_text(_HEAD + "".join(r + "\n" for r in rows), encoding="utf-8")
    return str(p)


def _error_line(r: Any) -> str:
    from suanli.errors import error_text

    assert r.exit_code != 0 and r.exception is not None
    return error_text(r.exception, "zh")


def test_import_flow_in_chinese(tmp_path: Path) -> None:
    bad = _csv(tmp_path, "bad.csv", "t-1,autodl,rtx-4090,1,hour,1.9,2026-08-01,t-src",
               "t-2,autodl,rtx-9999,1,hour,1.9,2026-08-01,t-src", "t-3,autodl,rtx-4090,1,hour,xx,2026-08-01,t-src")
    line = _error_line(_run(tmp_path, "zh", "offers", "import", bad))
    assert "第 3 行，字段 device：未知的加速卡" in line and "另有 1 处：第 4 行，字段 price_cny" in line, line
    assert _words(line) == [], line
    en = _run(tmp_path, "en", "offers", "import", bad).exception
    assert str(en).startswith(f"{bad}, line 3, field device: unknown gpu 'rtx-9999'.")  # English unchanged
    band = _csv(tmp_path, "band.csv", "t-4,autodl,rtx-4090,1,hour,190,2026-08-01,t-src")
    line = _error_line(_run(tmp_path, "zh", "offers", "import", band))
    assert "超出 rtx-4090 的合理区间" in line and "--force" in line and _words(line) == [], line
    assert "per card-hour is outside the plausible band for rtx-4090 (hour billing)" in str(
        _run(tmp_path, "en", "offers", "import", band).exception)
    good = _csv(tmp_path, "my-prices.csv", "t-5,autodl,rtx-4090,1,hour,1.9,2026-08-01,t-src",
                "t-6,autodl,rtx-4090,2,hour,3.9,2026-08-01,t-src")
    out = _run(tmp_path, "zh", "offers", "import", good).stdout
    assert "2 行，新价格 2 条" in out and "导入编号 1" in out and _words(out) == [], out
    out = _run(tmp_path, "zh", "offers", "imports").stdout
    assert "报价导入记录" in out and "文件名" in out and _words(out) == [], out
    out = _run(tmp_path, "zh", "offers", "rollback", "1").stdout
    assert "撤回 2 条价格" in out and _words(out) == [], out
    assert "2 rows, 2 new prices, " in _run(tmp_path, "en", "offers", "import", good).stdout



def test_api_import_errors_in_the_request_language(tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the API is the optional `service` extra; `make test` installs it")
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app

    c = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path}/s.db", api_token="tok")))
    body = (_HEAD + "t-1,autodl,rtx-9999,1,hour,1.9,2026-08-01,t-src\n").encode()
    auth = {"Authorization": "Bearer tok"}
    for how in ({"params": {"lang": "zh"}}, {"headers": {"Accept-Language": "zh-CN"}}):
        r = c.post("/api/offers/import", files={"file": ("bad.csv", body, "text/csv")},
                   headers={**auth, **how.get("headers", {})}, params=how.get("params"))
        assert r.status_code == 422, r.text
        said = r.json()
        assert "未知的加速卡" in said["error"] and said["error_i18n"]["id"] == "import.error"
        assert "未知的加速卡" in said["errors"][0]["message"] and _words(said["errors"][0]["message"]) == []
    r = c.post("/api/offers/import", files={"file": ("bad.csv", body, "text/csv")}, headers=auth)
    assert r.json()["errors"][0]["message"].startswith("unknown gpu 'rtx-9999'")


def test_guard_refusals_carry_error_i18n(tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the API is the optional `service` extra; `make test` installs it")
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app

    url = f"sqlite:///{tmp_path}/s.db"
    with_token = TestClient(create_app(Settings(database_url=url, api_token="tok", allowed_hosts=("testserver",))))
    no_token = TestClient(create_app(Settings(database_url=url)))
    cases = [
        (with_token.post("/api/plans", json={}), 401),
        (no_token.post("/api/plans", json={}), 403),
        (with_token.get("/api/health", headers={"Host": "evil.example"}), 400),
        (with_token.post("/api/plan", content=b"x" * 3_000_000, headers={"Content-Type": "application/json"}), 413),
    ]
    for r, status in cases:
        assert r.status_code == status, r.text
        said = r.json()
        assert said["error_i18n"]["id"], said  # in English too, as every other refusal


def test_compare_layout_words_in_chinese() -> None:
    out = CliRunner().invoke(app, ["--lang", "zh", "compare", "--model", "qwen2.5-14b", "--task", "lora", "--gpu",
                                   "rtx-4090", "--gpu", "910b", "--gpus", "8", "--tokens", "1e8"],
                             env={"COLUMNS": "200"}).stdout
    assert "重计算 " in out and not re.search(r"重计算 (none|full|selective)", out), out
    en = CliRunner().invoke(app, ["--lang", "en", "compare", "--model", "qwen2.5-14b", "--task", "lora", "--gpu",
                                  "rtx-4090", "--gpu", "910b", "--gpus", "8", "--tokens", "1e8"],
                            env={"COLUMNS": "200"}).stdout
    assert re.search(r"recompute (none|full|selective)", en), en


def test_network_in_both_languages() -> None:
    from suanli.catalog.load import packaged_catalog
    from suanli.catalog.offers import network_label, network_text

    o = next(o for o in packaged_catalog().offers if o.inter_node_gbit_per_s and o.inter_node_network != "none")
    text = network_text(o)
    assert text["en"] == network_label(o) and "Gbit/s per node" in text["en"]
    assert "每节点 " in text["zh"] and "Gbit/s" in text["zh"] and "吉比特" not in text["zh"] and "per node" not in text["zh"]


def test_migrate_check_status_and_scenarios_in_chinese(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import suanli.trace
    from suanli.migrate.coverage import OpTrace

    monkeypatch.setattr(suanli.trace, "trace_model", lambda cfg, **kw: OpTrace(
        model="m", task="inference", device="meta", ops={"mm": 4, "linear": 2, "add.Tensor": 3},
        decompositions={"linear": {"mm": 1}}))
    out = _run(tmp_path, "zh", "migrate", "check", "--model", "llama-3.1-8b").stdout
    rows = [ln for ln in out.splitlines() if re.match(r"\s*│?\s*(mm|linear|add\.Tensor)\s", ln)]
    assert rows and all(not re.search(r"\b(npu|composite|cpu-fallback)\b", ln) for ln in rows), out
    assert "NPU 原生" in out
    assert re.search(r"\bnpu\b", _run(tmp_path, "en", "migrate", "check", "--model", "llama-3.1-8b").stdout)
    out = _run(tmp_path, "zh", "scenarios").stdout
    labelled = [ln for ln in out.splitlines() if re.match(r"[a-z0-9-]+:", ln)]
    assert labelled == [], labelled
    assert "AI绘画/Stable Diffusion：" in out
    assert "students: " in _run(tmp_path, "en", "scenarios").stdout


def test_estimate_note_label_and_seconds() -> None:
    zh = CliRunner().invoke(app, ["--lang", "zh", "estimate", "--model", "llama-2-7b", "--task", "full", "--gpu",
                                  "h100", "--gpus", "8", "--zero", "3"], env={"COLUMNS": "200"}).stdout
    assert "说明：" in zh and "说明： " not in zh
    en = CliRunner().invoke(app, ["--lang", "en", "estimate", "--model", "qwen2.5-7b", "--gpu", "h100"], env={"COLUMNS": "200"}).stdout
    assert re.search(r"decode_step_overhead_s = \d[\d.]* ms", en), en
    assert "_s = 0.00" not in en


def test_estimate_training_time_states_setup_and_total() -> None:
    args = ["--lang", "en", "estimate", "--model", "llama-2-7b", "--task", "lora", "--gpu", "h100", "--tokens", "1e8"]
    t = json.loads(CliRunner().invoke(app, [*args, "--json"]).stdout)["time"]
    out = CliRunner().invoke(app, args, env={"COLUMNS": "200"}).stdout
    assert f"set-up {t['setup_hours']:,.2f} hours" in out and f"total {t['total_hours']:,.1f} hours" in out, out
    zh = CliRunner().invoke(app, ["--lang", "zh", *args[2:]], env={"COLUMNS": "200"}).stdout
    total = f"{t['total_hours']:,.1f}".removesuffix(".0")  # whole hours without ".0" in Chinese
    assert f"准备 {t['setup_hours']:,.2f} 小时" in zh and f"合计 {total} 小时" in zh


def test_rent_vs_buy_states_the_years() -> None:
    args = ["rent-vs-buy", "--gpu", "rtx-4090"]
    en = ["--lang", "en", *args]
    out = CliRunner().invoke(app, [*en, "--years", "1"], env={"COLUMNS": "200"}).stdout
    assert "amortized over 1 year (--years), no resale value" in out
    zh = CliRunner().invoke(app, ["--lang", "zh", *args], env={"COLUMNS": "200"}).stdout
    assert "按 3 年摊销（--years），不计残值" in zh
    d = json.loads(CliRunner().invoke(app, [*en, "--years", "2", "--json"]).stdout)
    assert d["years"] == 2 and d["resale_value_cny"] == 0
