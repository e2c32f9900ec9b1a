"""Issue 14 on the CLI: hostile files are one line, never a traceback (findings 5 and 9); CSV exports
neutralise formula prefixes (8); `suanli db info` shows no password in either URL form (3)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

PG = os.environ.get("SUANLI_TEST_POSTGRES_URL")


def suanli(*args: str, home: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    e = {**os.environ, "SUANLI_HOME": str(home), "COLUMNS": "200", **(env or {})}
    e.pop("SUANLI_DATABASE_URL", None) if not env or "SUANLI_DATABASE_URL" not in env else None
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True, env=e,
                          timeout=120)


def one_line_error(r: subprocess.CompletedProcess[str], needle: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stdout[-500:], r.stderr[-2000:])
    assert "Traceback" not in r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert lines and lines[0].startswith("error:") and needle in r.stderr, r.stderr


def test_model_config_files_are_bounded(tmp_path: Path) -> None:
    (tmp_path / "nan.json").write_text('{"hidden_size": NaN, "num_hidden_layers": 2}')
    one_line_error(suanli("model", str(tmp_path / "nan.json"), home=tmp_path), "NaN")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    one_line_error(suanli("model", str(tmp_path / "deep.json"), home=tmp_path), "deeper")
    (tmp_path / "bytes.json").write_bytes(b'{"a": "\xff\xfe"}')
    one_line_error(suanli("model", str(tmp_path / "bytes.json"), home=tmp_path), "UTF-8")


def test_deep_yaml_plan_file(tmp_path: Path) -> None:
    (tmp_path / "deep.yaml").write_text("model: qwen2.5-7b\nx: " + "[" * 5000 + "]" * 5000 + "\n")
    one_line_error(suanli("plan", "--file", str(tmp_path / "deep.yaml"), home=tmp_path), "deeper")


def test_plan_bounds_on_the_cli(tmp_path: Path) -> None:
    r = suanli("plan", "--model", "qwen2.5-7b", "--task", "inference", "--requests-per-s", "1e306", home=tmp_path)
    one_line_error(r, "requests-per-s")


@pytest.mark.parametrize(("row", "needle"), [
    ("big,Acme,rtx-4090,100000000000000000000,hour,2,2026-01-01,acme", "cards"),
    ("nul,Ac\x00me,rtx-4090,1,hour,2,2026-01-01,acme", "NUL"),
    ("x" * 301 + ",Acme,rtx-4090,1,hour,2,2026-01-01,acme", "id"),
])
def test_hostile_offer_files_are_one_line(tmp_path: Path, row: str, needle: str) -> None:
    f = tmp_path / "bad.csv"
    f.write_text("id,provider,device,cards,billing_unit,price_cny,date,source\n" + row + "\n", encoding="utf-8")
    one_line_error(suanli("offers", "import", str(f), home=tmp_path), needle)


def test_csv_export_neutralises_formulas(tmp_path: Path) -> None:
    f = tmp_path / "f.csv"
    f.write_text("id,provider,device,cards,billing_unit,price_cny,date,source,region\n"
                 '=1+2,"=HYPERLINK(""http://x"")",rtx-4090,1,hour,2,2026-01-01,acme,cn\n', encoding="utf-8")
    r = suanli("offers", "import", str(f), home=tmp_path)
    assert r.returncode == 0, r.stderr
    out = suanli("offers", "--device", "rtx-4090", "--csv", home=tmp_path).stdout
    assert "'=1+2" in out and "'=HYPERLINK(" in out
    assert "\n=1+2" not in out and ",=HYPERLINK" not in out


@pytest.mark.skipif(not PG, reason="SUANLI_TEST_POSTGRES_URL is not set: `source .ci/postgres.sh` starts a server")
@pytest.mark.parametrize("form", ["userinfo", "query"])
def test_db_info_shows_no_password(tmp_path: Path, form: str) -> None:
    assert PG
    head, tail = PG.split("://", 1)
    user, rest = tail.split("@", 1)
    url = f"{head}://{user}:s3cretpw@{rest}" if form == "userinfo" else f"{PG}?password=s3cretpw"
    r = suanli("db", "info", "--json", home=tmp_path, env={"SUANLI_DATABASE_URL": url})
    assert r.returncode == 0, r.stderr
    assert "s3cretpw" not in r.stdout + r.stderr and "***" in r.stdout


def test_tco_tiny_utilization_is_one_line(tmp_path: Path) -> None:
    r = suanli("tco", "--gpu", "rtx-4090", "--hours", "10", "--utilization", "1e-200", "--tokens-per-s", "1e-200",
               home=tmp_path)
    one_line_error(r, "utilization")


def test_serve_banner_redacts_the_url(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn
    from typer.testing import CliRunner

    import suanli.api
    from suanli.cli.main import app

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    monkeypatch.setattr(suanli.api, "create_app", lambda *a, **k: None)
    for url in ("postgresql+psycopg://u:s3cretpw@db/x", "postgresql+psycopg://u@db/x?password=s3cretpw"):
        monkeypatch.setenv("SUANLI_DATABASE_URL", url)
        r = CliRunner().invoke(app, ["serve"])
        assert r.exit_code == 0, r.output
        assert "s3cretpw" not in r.output and "***" in r.output


@pytest.mark.skipif(not PG, reason="SUANLI_TEST_POSTGRES_URL is not set: `source .ci/postgres.sh` starts a server")
@pytest.mark.parametrize("form", ["userinfo", "query"])
def test_api_info_shows_no_password(form: str) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app

    assert PG
    head, tail = PG.split("://", 1)
    user, rest = tail.split("@", 1)
    url = f"{head}://{user}:s3cretpw@{rest}" if form == "userinfo" else f"{PG}?password=s3cretpw"
    info = TestClient(create_app(Settings(database_url=url))).get("/api/info")
    assert info.status_code == 200 and "s3cretpw" not in info.text and "***" in info.json()["url"]
