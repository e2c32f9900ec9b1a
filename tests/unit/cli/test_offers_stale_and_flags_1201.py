"""Buyer review 2026-12-01, found and left alone, fixed here: `suanli offers` listed stale prices unmarked (the planner
warns of them), `offers --device 9999` named the catalog's field "gpu:" where the user typed --device (and
`migrate cost --from-gpu/--to-gpu` likewise), and `tco` without --hours: its one flag for the period, named in both
languages (tco has no --days: plan and compare have)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run_cli
from fastapi.testclient import TestClient

from suanli.api import Settings, create_app

TODAY = "2026-12-01"  # the FT survey's A100 row (2024-09) is 27 months old, the ctyun L20 rows (2026-10-10) fresh


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_offers_table_marks_stale_rows(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--lang", lang, "offers", "--device", "a100-40g"], monkeypatch, capsys, tmp_path,
                             today=TODAY)
    assert code == 0, err
    assert ("2024-09 (stale)" if lang == "en" else "2024-09（过期）") in out, out
    assert ("stale: a price dated more than 12 months ago (--stale-months)" if lang == "en"
            else "过期：日期早于 12 个月前的价格（--stale-months）") in out.replace("\n", "")
    code, out, err = run_cli(["--lang", lang, "offers", "--device", "l20"], monkeypatch, capsys, tmp_path,
                             today=TODAY)
    assert code == 0, err
    assert "2026-10-10" in out and "stale" not in out and "过期" not in out  # fresh rows: no mark, no note
    code, out, err = run_cli(["--lang", lang, "offers", "--device", "l20", "--stale-months", "1"], monkeypatch,
                             capsys, tmp_path, today=TODAY)
    assert code == 0, err
    assert ("2026-10-10 (stale)" if lang == "en" else "2026-10-10（过期）") in out  # the typed limit, as --stale


def test_offers_json_and_api_carry_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["offers", "--device", "a100-40g", "--json"], monkeypatch, capsys, tmp_path, today=TODAY)
    assert code == 0, err
    cli = {r["id"]: r for r in json.loads(out)}
    assert cli["px-ft-cn-small-cloud-a100-8card-hour"]["stale"] is True
    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 's.db'}")))
    got = {r["id"]: r for r in client.get("/api/offers?device=a100-40g").json()}
    assert set(got) == set(cli)
    for k, r in got.items():
        assert (r["stale"], r["age_months"]) == (cli[k]["stale"], cli[k]["age_months"]), k
    fresh = client.get("/api/offers?device=l20").json()
    assert fresh and not any(r["stale"] for r in fresh)
    props = client.get("/openapi.json").json()["components"]["schemas"]["OfferListJson"]["properties"]
    assert {"stale", "age_months"} <= set(props)


@pytest.mark.parametrize(("args", "flag"), [
    (["offers", "--device", "9999"], "--device"),
    (["migrate", "cost", "--model", "qwen2.5-7b", "--from-gpu", "9999"], "--from-gpu"),
    (["migrate", "cost", "--model", "qwen2.5-7b", "--to-gpu", "9999"], "--to-gpu"),
])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_unknown_device_names_the_flag_typed(args: list[str], flag: str, lang: str, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--lang", lang, *args], monkeypatch, capsys, tmp_path)
    assert code == 2, (out, err)
    line = err.strip()
    assert line.startswith(f"error: {flag}: unknown gpu '9999'" if lang == "en" else f"错误：{flag}：未知的加速卡：'9999'"), line


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tco_without_hours_names_its_flag(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--lang", lang, "tco", "--gpu", "l20"], monkeypatch, capsys, tmp_path)
    assert code == 2
    assert ("error: Missing option '--hours'." if lang == "en" else "错误：缺少选项 '--hours'。") in err, err
    code, out, err = run_cli(["tco", "--gpu", "l20", "--days", "3"], monkeypatch, capsys, tmp_path)
    assert code == 2 and "No such option: --days" in err  # the flag to type is --hours: no --days to name
